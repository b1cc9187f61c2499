package storefront

import (
	"net/http"
	"net/url"

	"reviewd/app/cdn"
	"reviewd/app/web"
)

// cdnDirectives are added to the Cache-Control of public answers a CDN may keep:
// five minutes at the CDN (a purge drops them sooner, app/cdn), then served stale
// for a minute while it asks again. Browsers keep what max-age says.
const cdnDirectives = ", s-maxage=300, stale-while-revalidate=60"

// readHeaders are the caching headers of one read answer.
type readHeaders struct {
	cacheControl []string
	tags         cdn.Tags
}

// answerTags names a product answer for a CDN: every answer, the product (in its
// scope) and the channel.
func answerTags(v url.Values, channel string) cdn.Tags {
	return cdn.NewTags(cdn.AllTag, cdn.ProductTag(v.Get("scope"), v.Get("product")), cdn.ChannelTag(channel))
}

// setTags sets the CDN tag headers when a CDN is configured.
func (h *Handler) setTags(hd http.Header, t cdn.Tags) {
	if h.CDN {
		hd["Cache-Tag"] = t.CacheTag
		hd["Surrogate-Key"] = t.SurrogateKey
	}
}

// publicCache is the Cache-Control of a public answer: v1 as spec 2 names it, the
// CDN's directives added when a CDN is configured.
func (h *Handler) publicCache(v1 string) string {
	if h.CDN {
		return v1 + cdnDirectives
	}
	return v1
}

// readCache is the Cache-Control of a list or question answer (private, max-age=30
// in spec 2) and an SSR answer: a server key's stays private; a site key's is
// public data (the key is in the page) and is made public for a CDN only when one
// is configured.
func (h *Handler) readCache(r *http.Request, ssr bool) []string {
	switch {
	case web.HasBearer(r) && ssr:
		return ssrPrivateCacheControl
	case web.HasBearer(r):
		return listPrivateCacheControl
	case ssr && h.CDN:
		return ssrPublicCDNCacheControl
	case ssr:
		return ssrPublicCacheControl
	case h.CDN:
		return listPublicCDNCacheControl
	}
	return listPrivateCacheControl
}

// answerHeaders are the caching headers of a product read answer.
func (h *Handler) answerHeaders(r *http.Request, v url.Values, channel string, ssr bool) readHeaders {
	hs := readHeaders{cacheControl: h.readCache(r, ssr)}
	if h.CDN {
		hs.tags = answerTags(v, channel)
	}
	return hs
}

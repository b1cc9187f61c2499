package storefront

import (
	"net/http"
	"net/url"

	"reviewd/app/cdn"
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

// setTags sets the CDN tag headers.
func setTags(hd http.Header, t cdn.Tags) {
	hd["Cache-Tag"] = t.CacheTag
	hd["Surrogate-Key"] = t.SurrogateKey
}

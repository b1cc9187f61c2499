package storefront

import (
	"context"
	"net/http"
	"net/url"

	"reviewd/app/cdn"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/storereviews"
	"reviewd/app/web"
)

// handleCarousel serves GET /v1/reviews/carousel: the home page carousel of the
// channel (site key from a verified domain, or server key plus channel): its
// featured reviews newest first, else recent 4 and 5 star reviews with text.
// Cache-Control as the list's; ETag, and 304 with If-None-Match. No structured data.
func (h *Handler) handleCarousel(w http.ResponseWriter, r *http.Request) error {
	return h.serveChannel(w, r, memoCarousel, false)
}

// handleSSRCarousel serves GET /v1/ssr/carousel: the carousel with its ready HTML.
// Cache-Control as GET /v1/ssr's.
func (h *Handler) handleSSRCarousel(w http.ResponseWriter, r *http.Request) error {
	return h.serveChannel(w, r, memoSSRCarousel, true)
}

// handleAllReviews serves GET /v1/reviews/all: the store-wide review page, the
// channel's published reviews across products newest first with their products,
// filtered by rating, verified and media, paged. Caching as the carousel's.
func (h *Handler) handleAllReviews(w http.ResponseWriter, r *http.Request) error {
	return h.serveChannel(w, r, memoAll, false)
}

// handleSSRAll serves GET /v1/ssr/all: the store page with its ready HTML.
func (h *Handler) handleSSRAll(w http.ResponseWriter, r *http.Request) error {
	return h.serveChannel(w, r, memoSSRAll, true)
}

// serveChannel answers a carousel or store page request (serveRemembered, as
// badge answers): the stamp moves with every change of a product's figures (a
// publication, a pin) and of the read generation.
func (h *Handler) serveChannel(w http.ResponseWriter, r *http.Request, kind byte, ssr bool) error {
	return h.serveRemembered(w, r, h.chanMemo, kind, func(caller readmodel.CachedCaller, v url.Values, gen int64) (readmodel.Answer, readHeaders, error) {
		out, err := h.channelAnswer(r.Context(), kind, caller, v, gen, ssr)
		hs := readHeaders{cacheControl: channelCache(r, ssr)}
		if h.CDN {
			hs.tags = cdn.NewTags(cdn.AllTag, cdn.ChannelTag(caller.Channel.Code))
		}
		return out, hs, err
	})
}

// channelAnswer builds the answer of a carousel or store page request.
func (h *Handler) channelAnswer(ctx context.Context, kind byte, caller readmodel.CachedCaller, v url.Values, gen int64, ssr bool) (readmodel.Answer, error) {
	if kind == memoCarousel || kind == memoSSRCarousel {
		return h.StoreReviews.CarouselAnswer(ctx, caller.Channel, storereviews.CarouselInput{Lang: v.Get("lang"), Theme: v.Get("theme"),
			ProductURL: v.Get("product_url")}, gen, ssr, nil)
	}
	return h.StoreReviews.AllReviewsAnswer(ctx, caller.Channel, storereviews.AllInput{Page: v.Get("page"), PageSize: v.Get("page_size"),
		Rating: v.Get("rating"), Verified: v.Get("verified"), Media: v.Get("media"), Lang: v.Get("lang"), Theme: v.Get("theme"),
		ProductURL: v.Get("product_url")}, gen, ssr, nil)
}

// channelCache is the Cache-Control of a carousel or store page answer: the list's
// (JSON) or GET /v1/ssr's (SSR) as spec 2 names them, without the CDN's longer
// s-maxage even when a CDN is configured: purges name products, and these answers
// change with any product of the channel, so a CDN keeps them no longer than a
// browser does.
func channelCache(r *http.Request, ssr bool) []string {
	switch {
	case web.HasBearer(r) && ssr:
		return ssrPrivateCacheControl
	case ssr:
		return ssrPublicCacheControl
	}
	return listPrivateCacheControl
}

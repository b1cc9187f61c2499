package storefront

import (
	"net/http"
	"net/url"

	"reviewd/app/core/readmodel"
)

// listInput reads the list parameters of GET /v1/reviews/list and /v1/ssr from the
// parsed query v.
func listInput(v url.Values) readmodel.ListInput {
	return readmodel.ListInput{Product: v.Get("product"), Scope: v.Get("scope"), Sort: v.Get("sort"), Page: v.Get("page"),
		PageSize: v.Get("page_size"), Rating: v.Get("rating"), Verified: v.Get("verified"), Media: v.Get("media"),
		Q: v.Get("q"), Topic: v.Get("topic"), Lang: v.Get("lang"), Via: v.Get("via")}
}

// handleReviewList serves GET /v1/reviews/list: published reviews of a product with
// the summary figures, required elements, labels and limits (site key from a
// verified domain, or server key plus channel). Cache-Control private, max-age=30
// with a server key; public with a site key, for a CDN too (cdn.go); the ETag is known before anything is built, and If-None-Match with it answers
// 304 without reading reviews. A request sent again exactly as before is answered
// from memory while nothing it depends on changed (read_reuse.go).
func (h *Handler) handleReviewList(w http.ResponseWriter, r *http.Request) error {
	k, done, err := h.reuseAnswer(w, r, memoList)
	if done {
		return err
	}
	v := r.URL.Query() // parsed once for the whole request
	rs, caller, err := h.readRequest(r, v)
	if err != nil {
		return err
	}
	out, err := h.Read.CachedReviewList(r.Context(), caller.Channel, listInput(v), rs, heldBy(r))
	if err != nil {
		return err
	}
	hs := h.answerHeaders(r, v, caller.Channel.Code, false)
	h.remember(k, caller, out, hs)
	return writeAnswer(w, hs, out)
}

// Cache-Control of the read answers (header values, shared). Answers to a server
// key are private; answers to a site key are public data (the key is in the page)
// and may be kept by a CDN (cdn.go).
var (
	listPrivateCacheControl   = []string{"private, max-age=30"}
	listPublicCDNCacheControl = []string{"public, max-age=30" + cdnDirectives}
	ssrPrivateCacheControl    = []string{"private, max-age=60"}
	ssrPublicCacheControl     = []string{"public, max-age=60"}
	ssrPublicCDNCacheControl  = []string{"public, max-age=60" + cdnDirectives}
)

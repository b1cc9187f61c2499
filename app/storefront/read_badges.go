package storefront

import (
	"net/http"

	"reviewd/app/core/readmodel"
	"reviewd/app/web"
	"reviewd/store"
)

// handleBadges serves GET /v1/reviews/badges: the star badges (average and count)
// of up to 50 products of a listing page in one request (site key from a verified
// domain, or server key plus channel). Cache-Control as the list's; ETag, and 304
// with If-None-Match (readmodel.CachedBadges).
func (h *Handler) handleBadges(w http.ResponseWriter, r *http.Request) error {
	return h.serveBadges(w, r, false)
}

// handleSSRBadges serves GET /v1/ssr/badges: the badges with their ready HTML, for
// themes that render on the server. Cache-Control as GET /v1/ssr's (private with a
// server key, public with a site key). No structured data.
func (h *Handler) handleSSRBadges(w http.ResponseWriter, r *http.Request) error {
	return h.serveBadges(w, r, true)
}

func (h *Handler) serveBadges(w http.ResponseWriter, r *http.Request, ssr bool) error {
	v := r.URL.Query()
	st, err := h.Read.DB.ReadStamp(r.Context(), store.ScopeVariant, "")
	if err != nil {
		return err
	}
	_, caller, err := h.readCaller(r, v, st.Gen)
	if err != nil {
		return err
	}
	if err := web.CheckQuery(r); err != nil {
		return err
	}
	out, err := h.Read.CachedBadges(r.Context(), caller.Channel, readmodel.BadgesInput{Products: v.Get("products"),
		Scope: v.Get("scope"), Lang: v.Get("lang"), Theme: v.Get("theme")}, st.Gen, ssr, heldBy(r))
	if err != nil {
		return err
	}
	cc := listCacheControl
	if ssr {
		cc = ssrPublicCacheControl
		if web.HasBearer(r) {
			cc = ssrPrivateCacheControl
		}
	}
	return writeAnswer(w, cc, out)
}

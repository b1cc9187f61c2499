package storefront

import (
	"net/http"
	"strconv"
	"strings"

	"reviewd/app/core/readmodel"
	"reviewd/app/web"
)

// handleSSR serves GET /v1/ssr: ready HTML, the list state and structured data of a
// product. The answer carries an ETag; If-None-Match with the same content answers
// 304. Cache-Control is private with a server key and public with a site key.
func (h *Handler) handleSSR(w http.ResponseWriter, r *http.Request) error {
	rs, caller, err := h.readRequest(r)
	if err != nil {
		return err
	}
	v := r.URL.Query()
	out, err := h.Read.CachedSSR(r.Context(), caller.Channel, readmodel.SSRInput{ListInput: listInput(r), Name: v.Get("name"),
		Style: v.Get("style"), Theme: v.Get("theme")}, rs)
	if err != nil {
		return err
	}
	hd := w.Header()
	if web.HasBearer(r) {
		hd.Set("Cache-Control", "private, max-age=60")
	} else {
		hd.Set("Cache-Control", "public, max-age=60")
	}
	hd.Set("ETag", out.ETag)
	if etagMatches(r.Header.Get("If-None-Match"), out.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(out.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Body)
	return nil
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match; * matches any).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// handleReviewsCSS serves GET /static/reviews.css, the component's style sheet with
// the eight themes.
func (h *Handler) handleReviewsCSS(w http.ResponseWriter, r *http.Request) error {
	hd := w.Header()
	hd.Set("Content-Type", "text/css; charset=utf-8")
	hd.Set("Cache-Control", "public, max-age=86400")
	hd.Set("Cross-Origin-Resource-Policy", "cross-origin")
	_, _ = w.Write(readmodel.StaticCSS)
	return nil
}

package storefront

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"reviewd/app/core/readmodel"
	"reviewd/app/web"
)

// handleSSR serves GET /v1/ssr: ready HTML, the list state and structured data of a
// product. The ETag is known before anything is built (readmodel.CachedSSR), so
// If-None-Match with the same content answers 304 without reading reviews.
// Cache-Control is private with a server key and public with a site key. Repeated
// requests are answered as the list's are (read_reuse.go).
func (h *Handler) handleSSR(w http.ResponseWriter, r *http.Request) error {
	k, done, err := h.reuseAnswer(w, r, memoSSR)
	if done {
		return err
	}
	v := r.URL.Query() // parsed once for the whole request
	rs, caller, err := h.readRequest(r, v)
	if err != nil {
		return err
	}
	out, err := h.Read.CachedSSR(r.Context(), caller.Channel, readmodel.SSRInput{ListInput: listInput(v), Name: v.Get("name"),
		Style: v.Get("style"), Theme: v.Get("theme")}, rs, heldBy(r))
	if err != nil {
		return err
	}
	hs := h.answerHeaders(r, v, caller.Channel.Code, true)
	h.remember(k, caller, out, hs)
	return writeAnswer(w, hs, out)
}

// heldBy reports whether the request's If-None-Match names an ETag.
func heldBy(r *http.Request) func(etag string) bool {
	inm := r.Header.Get("If-None-Match")
	if inm == "" {
		return nil
	}
	return func(etag string) bool { return web.ETagMatches(inm, etag) }
}

// writeAnswer writes a cached read answer with its ETag, Cache-Control and CDN
// tags: 304 without a body when the caller holds it. The header values were built
// with the answer (hs is shared too): they are set as they are, canonical names
// written out.
func writeAnswer(w http.ResponseWriter, hs readHeaders, out readmodel.Answer) error {
	hd := w.Header()
	hd["Cache-Control"] = hs.cacheControl
	if hs.tags.CacheTag != nil {
		hd["Cache-Tag"] = hs.tags.CacheTag
		hd["Surrogate-Key"] = hs.tags.SurrogateKey
	}
	hd["Etag"] = out.ETagHeader
	if out.NotModified {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hd["Content-Type"] = jsonContentType
	hd["Content-Length"] = out.LengthHeader
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Body)
	return nil
}

var jsonContentType = []string{"application/json; charset=utf-8"}

// handleReviewsCSS serves GET /static/reviews.css, the component's style sheet with
// the eight themes. It changes only with the binary: its ETag is its hash, and
// If-None-Match with it answers 304.
func (h *Handler) handleReviewsCSS(w http.ResponseWriter, r *http.Request) error {
	hd := w.Header()
	hd.Set("Cache-Control", "public, max-age=86400")
	hd.Set("Cross-Origin-Resource-Policy", "cross-origin")
	hd.Set("ETag", reviewsCSSETag)
	if web.ETagMatches(r.Header.Get("If-None-Match"), reviewsCSSETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hd.Set("Content-Type", "text/css; charset=utf-8")
	_, _ = w.Write(readmodel.StaticCSS)
	return nil
}

// reviewsCSSETag is the ETag of the component's style sheet.
var reviewsCSSETag = contentETag(readmodel.StaticCSS)

// contentETag is a strong ETag naming content.
func contentETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

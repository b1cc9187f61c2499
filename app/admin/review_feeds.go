package admin

import (
	"net/http"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/feeds"
	"reviewd/app/web"
)

// handleReviewFeedList serves GET /admin/v1/review-feeds: the feed definitions
// with their addresses.
func (h *Handler) handleReviewFeedList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Feeds.Feeds(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleReviewFeedCreate serves POST /admin/v1/review-feeds: 201 with the address.
func (h *Handler) handleReviewFeedCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in feeds.Input
	if err := web.DecodeJSON(r, sourceBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	ctx := r.Context()
	out, err := h.Feeds.CreateFeed(ctx, a, in)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusCreated, out)
}

// handleReviewFeedDelete serves DELETE /admin/v1/review-feeds/{id}: 204.
func (h *Handler) handleReviewFeedDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	ctx, id := r.Context(), web.Vars(r)["id"]
	if err := h.Feeds.DeleteFeed(ctx, a, id); err != nil {
		return err
	}
	return web.NoContent(w)
}

// handleSharedReviewFeed serves GET /admin/v1/shared-review-feeds/{id}/{key}.xml
// without a session: the feed in Google's Product Review Feed schema, streamed.
// An unknown feed or a wrong key is 404 not_found; If-None-Match (else
// If-Modified-Since) with unchanged content is 304.
func (h *Handler) handleSharedReviewFeed(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	ctx, v := r.Context(), web.Vars(r)
	f, err := h.Feeds.Open(ctx, v["id"], v["key"])
	if err != nil {
		return err
	}
	st, err := h.Feeds.Stamp(ctx, f)
	if err != nil {
		return err
	}
	h.Feeds.Touch(ctx, f)
	hd := w.Header()
	hd.Set("ETag", st.ETag)
	hd.Set("Last-Modified", st.Modified.UTC().Format(http.TimeFormat))
	hd.Set("Cache-Control", "private, no-cache")
	if notModified(r, st) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hd.Set("Content-Type", "application/xml; charset=utf-8")
	cw := &countingWriter{w: w}
	if _, err := h.Feeds.Write(ctx, cw, f); err != nil {
		if cw.n == 0 {
			return err
		}
		// The answer has begun: it stays unfinished (a broken document, never a
		// shorter feed) and the failure goes to the log.
		h.Feeds.Log.Warn("review feed cut short", "feed", v["id"], "bytes", cw.n, "err", err)
	}
	return nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// notModified applies If-None-Match, else If-Modified-Since (RFC 9110 13.2.2).
func notModified(r *http.Request, st feeds.Stamp) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return web.ETagMatches(inm, st.ETag)
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		t, err := http.ParseTime(ims)
		return err == nil && !st.Modified.Truncate(time.Second).After(t)
	}
	return false
}

package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/web"
)

// handleModerationQueue serves GET /admin/v1/moderation/queue: the reviews
// awaiting approval (shared list contract, q as in the review list, channel and
// market filters) with counters waiting, flagged, reported and elsewhere (reviews
// and responses waiting in the other channels; 0 without channel).
func (h *Handler) handleModerationQueue(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v := r.URL.Query()
	out, err := h.Reviews.ModerationQueue(r.Context(), a, reviews.QueueFilter{ListQuery: l, Channel: v.Get("channel"),
		Market: v.Get("market")})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleModerationBulk serves POST /admin/v1/moderation/bulk: body ids (up to 200
// review ids), action approve or reject, reason (required for reject). Only
// reviews awaiting approval change; the answer is {"count", "skipped",
// "skipped_ids"}.
func (h *Handler) handleModerationBulk(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in reviews.BulkInput
	if err := web.DecodeJSON(r, moderationBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Reviews.BulkModerate(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

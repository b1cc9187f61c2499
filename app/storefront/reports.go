package storefront

import (
	"net/http"

	"reviewd/app/core/reviews"
	"reviewd/app/web"
)

// handleReviewReport serves POST /v1/reviews/{id}/report: reason, note, visitor_key
// (site key, per-IP limit); 201 with the new report's id, 200 with the id of the
// visitor's open report on the review.
func (h *Handler) handleReviewReport(w http.ResponseWriter, r *http.Request) error {
	a, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	if err := h.perIP(r); err != nil {
		return err
	}
	var in reviews.ReportInput
	if err := web.DecodeJSON(r, maxSmallBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Reviews.ReportReview(r.Context(), a, acc.Channel, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if out.Created {
		status = http.StatusCreated
	}
	return web.JSON(w, status, out)
}

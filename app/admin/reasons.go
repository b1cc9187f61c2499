package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/web"
)

// handleReasonList serves GET /admin/v1/reasons: the reason lists (review
// rejection, review removal, question rejection, review_media_removal, report) in
// tr and en, each entry a code and a label.
func (h *Handler) handleReasonList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return web.JSON(w, http.StatusOK, brand.ReasonCatalogue())
}

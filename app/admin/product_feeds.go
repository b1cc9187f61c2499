package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/catalogue"
	"reviewd/app/web"
)

// handleProductFeedList serves GET /admin/v1/product-feeds: the feeds read on a
// schedule and the catalogue's size.
func (h *Handler) handleProductFeedList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Catalogue.Feeds(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleProductFeedCreate serves POST /admin/v1/product-feeds: 201.
func (h *Handler) handleProductFeedCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in catalogue.FeedInput
	if err := web.DecodeJSON(r, sourceBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	ctx := r.Context()
	out, err := h.Catalogue.CreateFeed(ctx, a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleProductFeedDelete serves DELETE /admin/v1/product-feeds/{id}: 204.
func (h *Handler) handleProductFeedDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	ctx, id := r.Context(), web.Vars(r)["id"]
	if err := h.Catalogue.DeleteFeed(ctx, a, id); err != nil {
		return err
	}
	return web.NoContent(w)
}

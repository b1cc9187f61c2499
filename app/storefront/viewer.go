package storefront

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/web"
	"reviewd/store"
)

// viewerCaller authenticates a viewer call (server key plus channel only; a site
// key gets 403 refused / server_only) and takes one request from the viewer limit
// shared by both viewer endpoints, per server key.
func (h *Handler) viewerCaller(w http.ResponseWriter, r *http.Request) (*core.Actor, store.Channel, error) {
	w.Header().Set("Cache-Control", "no-store")
	if err := web.CheckQuery(r); err != nil {
		return nil, store.Channel{}, err
	}
	a, ch, err := h.Auth.ServerOnly(r)
	if err != nil {
		return nil, ch, err
	}
	if !h.Limits.Viewer.Allow(a.ID) {
		return nil, ch, core.ErrRateLimited
	}
	return a, ch, nil
}

// handleViewer serves GET /v1/viewer: what a signed-in customer (X-Service-Customer,
// optional X-Service-Customer-Name) may do with a product: state, own reviews,
// limits, a writing token with products when a review can be written, and an
// asker token when questions are on. Cache-Control no-store.
func (h *Handler) handleViewer(w http.ResponseWriter, r *http.Request) error {
	a, ch, err := h.viewerCaller(w, r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	out, err := h.Buyer.Viewer(r.Context(), a, ch, buyer.ViewerInput{Customer: r.Header.Get("X-Service-Customer"),
		CustomerName: buyer.DecodeCustomerName(r.Header.Get("X-Service-Customer-Name")), Product: q.Get("product"),
		Scope: q.Get("scope"), Lang: q.Get("lang")})
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleViewerOrder serves GET /v1/viewer/order: the review state of each line of
// a signed-in customer's order (order detail response). An order not found or of
// another customer answers 200 with empty lines. Cache-Control no-store.
func (h *Handler) handleViewerOrder(w http.ResponseWriter, r *http.Request) error {
	a, ch, err := h.viewerCaller(w, r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	out, err := h.Buyer.ViewerOrder(r.Context(), a, ch, buyer.ViewerOrderInput{Customer: r.Header.Get("X-Service-Customer"),
		Order: q.Get("order"), Lang: q.Get("lang")})
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

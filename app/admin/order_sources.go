package admin

import (
	"encoding/json"
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// sourceBodyLimit is the largest order connection body read.
const sourceBodyLimit = 16 << 10

func readSourceBody(r *http.Request) (map[string]json.RawMessage, error) {
	var body map[string]json.RawMessage
	if err := web.DecodeJSON(r, sourceBodyLimit, web.ModeAPI, &body); err != nil {
		return nil, err
	}
	if body == nil {
		return nil, core.ErrInvalidJSON
	}
	return body, nil
}

// handleOrderSourceList serves GET /admin/v1/order-sources: items and platforms
// (each platform with its connection fields).
func (h *Handler) handleOrderSourceList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Orders.ListOrderSources(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleOrderSourceCreate serves POST /admin/v1/order-sources: 201 with the new
// connection.
func (h *Handler) handleOrderSourceCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	body, err := readSourceBody(r)
	if err != nil {
		return err
	}
	out, err := h.Orders.CreateOrderSource(r.Context(), a, body)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleOrderSourceCheck serves POST /admin/v1/order-sources/check: the dry run of
// an unsaved connection (same body, channel not needed).
func (h *Handler) handleOrderSourceCheck(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	body, err := readSourceBody(r)
	if err != nil {
		return err
	}
	out, err := h.Orders.CheckOrderSource(r.Context(), a, body)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleOrderSourceGet serves GET /admin/v1/order-sources/{id}.
func (h *Handler) handleOrderSourceGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Orders.OrderSource(r.Context(), web.Vars(r)["id"])
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleOrderSourceUpdate serves PATCH /admin/v1/order-sources/{id}.
func (h *Handler) handleOrderSourceUpdate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	body, err := readSourceBody(r)
	if err != nil {
		return err
	}
	out, err := h.Orders.UpdateOrderSource(r.Context(), a, web.Vars(r)["id"], body)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleOrderSourceDelete serves DELETE /admin/v1/order-sources/{id}: 204.
func (h *Handler) handleOrderSourceDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Orders.RemoveOrderSource(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

// handleOrderSourceCheckSaved serves POST /admin/v1/order-sources/{id}/check: the
// dry run of a saved connection with its saved details.
func (h *Handler) handleOrderSourceCheckSaved(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Orders.CheckSavedOrderSource(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleOrderSourceRun serves POST /admin/v1/order-sources/{id}/run: 202. The
// connection is made due at once (so the order-sources job reads it on its next
// tick whatever happens to this process) and read right away in the background
// under the same one-read-per-connection lease, which also works while the job
// queue is down.
func (h *Handler) handleOrderSourceRun(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := h.Orders.RequestOrderSourceRun(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	web.Background(h.Orders.Log.With("connection", orders.OrderSourcePublicID(id)), "manual order connection read",
		orders.ManualReadLimit, h.Orders.ManualRead(id), nil)
	out, err := h.Orders.OrderSource(r.Context(), orders.OrderSourcePublicID(id))
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusAccepted, out)
}

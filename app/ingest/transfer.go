package ingest

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// handleOrderIngest serves POST /v1/ingest/orders: one order or {"channel",
// "orders": [...]} (1 to 100), saved as a whole or not at all.
func (h *Handler) handleOrderIngest(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	a, body, err := h.Auth.Ingest(r, MaxBody)
	if err != nil {
		return h.refused(r, a, orders.KindOrder, "", 0, err)
	}
	req, err := decodeOrders(body)
	if err != nil {
		return h.refused(r, a, orders.KindOrder, req.ChannelLabel(), len(req.Orders), err)
	}
	res, err := h.Orders.IngestOrders(r.Context(), a, req)
	if err != nil {
		return h.refused(r, a, orders.KindOrder, req.ChannelLabel(), len(req.Orders), err)
	}
	return web.JSON(w, http.StatusOK, res)
}

// handleDeliveryIngest serves POST /v1/ingest/deliveries: one delivery or
// {"deliveries": [...]} (1 to 100); unknown lines are listed, an unknown state
// refuses the whole request.
func (h *Handler) handleDeliveryIngest(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	a, body, err := h.Auth.Ingest(r, MaxBody)
	if err != nil {
		return h.refused(r, a, orders.KindDelivery, "", 0, err)
	}
	req, err := decodeDeliveries(body)
	if err != nil {
		return h.refused(r, a, orders.KindDelivery, "", len(req.Deliveries), err)
	}
	res, err := h.Orders.IngestDeliveries(r.Context(), a, req)
	if err != nil {
		return h.refused(r, a, orders.KindDelivery, "", len(req.Deliveries), err)
	}
	return web.JSON(w, http.StatusOK, res)
}

// refused files a refused transfer in the transfer figures and returns err for the
// error writer.
func (h *Handler) refused(r *http.Request, a *core.Actor, kind, channel string, records int, err error) error {
	h.Orders.RecordRefusedIngest(r.Context(), a, kind, channel, records, err)
	return err
}

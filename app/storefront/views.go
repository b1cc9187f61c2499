package storefront

import (
	"net/http"

	"reviewd/app/core/readmodel"
	"reviewd/app/web"
)

// handleViewCount serves POST /v1/views?key=<site key>: one view of the review
// component. The body is JSON sent as text/plain (navigator.sendBeacon), read
// whatever the Content-Type. Bots, link preview tools and prefetches are answered
// the same 204 but not counted.
func (h *Handler) handleViewCount(w http.ResponseWriter, r *http.Request) error {
	_, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	if err := h.perIP(r); err != nil {
		return err
	}
	raw, err := web.ReadBody(r, maxSmallBody)
	if err != nil {
		return err
	}
	var in readmodel.ViewInput
	if err := web.ParseJSON(raw, web.ModeAPI, &in); err != nil {
		return err
	}
	hd := r.Header
	_, err = h.Read.CountView(r.Context(), acc.Channel, in, readmodel.ViewClient{UserAgent: r.UserAgent(),
		Purpose: hd.Get("Purpose"), SecPurpose: hd.Get("Sec-Purpose"), XMoz: hd.Get("X-Moz"), XPurpose: hd.Get("X-Purpose")})
	if err != nil {
		return err
	}
	return web.NoContent(w)
}

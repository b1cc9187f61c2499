package ingest

import (
	"encoding/json"
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/catalogue"
	"reviewd/app/web"
)

// productEnvelope is one product or {"products": [...]}.
type productEnvelope struct {
	catalogue.ProductInput
	Products json.RawMessage `json:"products"`
}

// handleProductIngest serves POST /v1/ingest/products (CONTRACT): one product or
// {"products": [...]} (1 to 100), saved as a whole or not at all, with the same
// authentication as order ingest.
func (h *Handler) handleProductIngest(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	a, body, err := h.Auth.Ingest(r, MaxBody)
	if err != nil {
		return err
	}
	var env productEnvelope
	if err := web.ParseJSON(body, web.ModeIngest, &env); err != nil {
		return err
	}
	in, batch := []catalogue.ProductInput{env.ProductInput}, false
	if env.Products != nil {
		batch = true
		if err := list(env.Products, "products", &in); err != nil {
			return err
		}
	}
	res, err := h.Catalogue.IngestProducts(r.Context(), a, in, batch)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, res)
}

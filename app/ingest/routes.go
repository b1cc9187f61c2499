package ingest

import "reviewd/app/core"

// routes is the audit table of the ingest surface: method, path, callers (see
// access), admin permission, handler.
func (h *Handler) routes() []route {
	return []route{
		{"POST", "/v1/ingest/orders", transfer, "", h.handleOrderIngest},
		{"POST", "/v1/ingest/deliveries", transfer, "", h.handleDeliveryIngest},
		{"POST", "/v1/ingest/products", transfer, "", h.handleProductIngest},
		{"POST", "/admin/v1/ingest/check", dryRun, "", h.handleIngestCheck},
		{"GET", "/admin/v1/ingest/stats", keyOrPanel, core.PermRead, h.handleIngestStats},
	}
}

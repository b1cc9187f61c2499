package ingest

import "reviewd/app/core"

// routes is the audit table of the ingest surface: method, path, permission,
// handler. Transfer routes ("" permission) take a Bearer server key with the orders
// scope or a signature with a signing password (web.Auth.Ingest); the dry run needs
// no credentials at all (spec 1, rule 5) and is limited per IP address.
func (h *Handler) routes() []route {
	return []route{
		{"POST", "/v1/ingest/orders", "", h.handleOrderIngest},
		{"POST", "/v1/ingest/deliveries", "", h.handleDeliveryIngest},
		{"POST", "/admin/v1/ingest/check", "", h.handleIngestCheck},
		{"GET", "/admin/v1/ingest/stats", core.PermRead, h.handleIngestStats},
	}
}

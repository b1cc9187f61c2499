package admin

import (
	"encoding/json"
	"net/http"
	"time"

	"reviewd/app/core"
	"reviewd/app/web"
)

// handleOptOutCheck serves POST /admin/v1/opt-outs/check: body addresses (up to
// 1000 e-mail addresses or phone numbers); the answer lists the opted-out ones,
// each address echoed as sent.
func (h *Handler) handleOptOutCheck(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Addresses json.RawMessage `json:"addresses"`
	}
	if err := web.DecodeJSON(r, 512<<10, web.ModeAPI, &in); err != nil {
		return err
	}
	if len(in.Addresses) == 0 || string(in.Addresses) == "null" {
		return core.Invalid("addresses_required")
	}
	var addresses []string
	if err := json.Unmarshal(in.Addresses, &addresses); err != nil {
		return core.Invalid("addresses")
	}
	rows, err := h.Sending.CheckOptOuts(r.Context(), a, addresses)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, map[string]any{"opted_out": rows})
}

// handleOptOutExport serves GET /admin/v1/opt-outs/export: the opt-out list as
// format csv (default), xlsx or json; rows carry address_hash. Each download is
// recorded.
func (h *Handler) handleOptOutExport(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "csv"
	}
	if format != "csv" && format != "xlsx" && format != "json" {
		return core.Invalid("format")
	}
	rows, err := h.Sending.ExportOptOuts(r.Context(), a, format)
	if err != nil {
		return err
	}
	header := []string{"address", "address_hash", "channel_kind", "reason", "created_at"}
	table := exportTable{Header: header}
	for _, o := range rows {
		table.Rows = append(table.Rows, []string{o.Address, o.AddressHash, o.ChannelKind, o.Reason,
			o.CreatedAt.UTC().Format(time.RFC3339)})
	}
	return writeExport(w, format, "opt-outs-"+h.Clock.Now().UTC().Format("20060102"), rows, table)
}

package admin

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

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
	rows, err := h.Core.CheckOptOuts(r.Context(), a, addresses)
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
	rows, err := h.Core.ExportOptOuts(r.Context(), a, format)
	if err != nil {
		return err
	}
	header := []string{"address", "address_hash", "channel_kind", "reason", "created_at"}
	record := func(o core.OptOutExportRow) []string {
		return []string{o.Address, o.AddressHash, o.ChannelKind, o.Reason, o.CreatedAt.UTC().Format(time.RFC3339)}
	}
	var body []byte
	var ctype string
	switch format {
	case "json":
		ctype = "application/json; charset=utf-8"
		if body, err = json.Marshal(rows); err != nil {
			return err
		}
	case "csv":
		ctype = "text/csv; charset=utf-8"
		var b bytes.Buffer
		cw := csv.NewWriter(&b)
		_ = cw.Write(header)
		for _, o := range rows {
			rec := record(o)
			for i, v := range rec {
				rec[i] = csvSafe(v)
			}
			_ = cw.Write(rec)
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		body = b.Bytes()
	case "xlsx":
		ctype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		f := excelize.NewFile()
		defer f.Close()
		sheet := f.GetSheetName(0)
		sw, err := f.NewStreamWriter(sheet)
		if err != nil {
			return err
		}
		cells := func(ss []string) []any {
			out := make([]any, len(ss))
			for i, s := range ss {
				out[i] = s
			}
			return out
		}
		if err := sw.SetRow("A1", cells(header)); err != nil {
			return err
		}
		for i, o := range rows {
			cell, _ := excelize.CoordinatesToCellName(1, i+2)
			if err := sw.SetRow(cell, cells(record(o))); err != nil {
				return err
			}
		}
		if err := sw.Flush(); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			return err
		}
		body = b.Bytes()
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="opt-outs-`+h.Core.Now().UTC().Format("20060102")+`.`+format+`"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// csvSafe keeps a spreadsheet from reading a cell as a formula (an address may
// start with = + - or @).
func csvSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

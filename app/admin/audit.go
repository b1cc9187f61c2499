package admin

import (
	"net/http"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/audit"
	"reviewd/app/web"
)

// queryFields reads the named query parameters (each storable text, else invalid /
// <name>).
func queryFields(r *http.Request, names ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range names {
		v, err := web.Query(r, n)
		if err != nil {
			return nil, core.Invalid(n)
		}
		out[n] = v
	}
	return out, nil
}

// handleAccessLog serves GET /admin/v1/access-log: the personal-data access log with
// the list contract and filters action, actor, via and q.
func (h *Handler) handleAccessLog(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v, err := queryFields(r, "action", "actor", "via")
	if err != nil {
		return err
	}
	page, err := h.Audit.AccessLog(r.Context(), l, audit.AccessFilter{Action: v["action"], Actor: v["actor"], Via: v["via"]})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, page)
}

// handleAuditLog serves GET /admin/v1/audit-log: the activity history with the list
// contract and filters action, actor, via, target_type, target_id, from, to and
// sessions=1 (sign-ins are listed only then).
func (h *Handler) handleAuditLog(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v, err := queryFields(r, "action", "actor", "via", "target_type", "target_id", "from", "to", "sessions")
	if err != nil {
		return err
	}
	if s := v["sessions"]; s != "" && s != "0" && s != "1" {
		return core.Invalid("sessions")
	}
	page, err := h.Audit.AuditLog(r.Context(), l, audit.AuditFilter{Action: v["action"], Actor: v["actor"], Via: v["via"],
		TargetType: v["target_type"], TargetID: v["target_id"], From: v["from"], To: v["to"], Q: l.Q, Sessions: v["sessions"] == "1"})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, page)
}

// handleAuditLogExport serves POST /admin/v1/audit-log/export: body format, title,
// filters, columns, labels, changes and optional rows; the file is read on the
// server (up to 10,000 entries) and its SHA-256 is sent as X-Service-Fingerprint.
func (h *Handler) handleAuditLogExport(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in audit.ExportInput
	if err := web.DecodeJSON(r, 1<<20, web.ModeAPI, &in); err != nil {
		return err
	}
	f, err := h.Audit.ExportAuditLog(r.Context(), a, in)
	if err != nil {
		return err
	}
	return writeFile(w, f)
}

// handleAuditFileCreate serves POST /admin/v1/audit-file: body market, channel,
// start, end; 201 with the stored report.
func (h *Handler) handleAuditFileCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in audit.AuditFileInput
	if err := web.DecodeJSON(r, 16<<10, web.ModeAPI, &in); err != nil {
		return err
	}
	row, err := h.Audit.CreateAuditFile(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, row)
}

// handleAuditFileGet serves GET /admin/v1/audit-file/<id>?format=json|csv|xlsx with
// the verification code in X-Service-Fingerprint.
func (h *Handler) handleAuditFileGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	format, err := web.Query(r, "format")
	if err != nil {
		return core.Invalid("format")
	}
	f, err := h.Audit.DownloadAuditFile(r.Context(), a, mux.Vars(r)["id"], format)
	if err != nil {
		return err
	}
	return writeFile(w, f)
}

// writeFile sends a built download through web.WriteDownload.
func writeFile(w http.ResponseWriter, f audit.File) error {
	return web.WriteDownload(w, f.ContentType, f.Name, f.Fingerprint, f.Body)
}

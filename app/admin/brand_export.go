package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/web"
)

// handleBrandExportList serves GET /admin/v1/brand-export: {"items": archives}.
func (h *Handler) handleBrandExportList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	items, err := h.Exports.List(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, map[string]any{"items": items})
}

// handleBrandExportCreate serves POST /admin/v1/brand-export: 202 with the archive
// being built (the one already being built, if any).
func (h *Handler) handleBrandExportCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, _, err := h.Exports.Start(r.Context(), a)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusAccepted, out)
}

// handleBrandExportDownload serves GET /admin/v1/brand-export/<id>/download: the
// zip, streamed from its file (Range supported); 404 not_found / export_not_ready
// until it is ready and after it expired.
func (h *Handler) handleBrandExportDownload(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f, e, err := h.Exports.Open(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="reviewd-brand-export-`+e.ID+`.zip"`)
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("X-Service-Fingerprint", e.SHA256)
	http.ServeContent(w, r, "", *e.ReadyAt, f)
	return nil
}

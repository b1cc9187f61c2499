package admin

import (
	"net/http"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/web"
)

const templatesBodyLimit = 512 << 10

// handleAspectTemplateList serves GET /admin/v1/aspect-templates: preset (own
// false) and own rating-topic lists with their default flag and products.
func (h *Handler) handleAspectTemplateList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Brand.AspectTemplates(r.Context())
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"items": out})
}

// handleAspectTemplateSave serves POST /admin/v1/aspect-templates: creates an own
// list (no key; 201) or changes one (key; 200): name, aspects, products, default.
func (h *Handler) handleAspectTemplateSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in brand.AspectTemplateInput
	if err := web.DecodeJSON(r, templatesBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Brand.SaveAspectTemplate(r.Context(), a, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if strings.TrimSpace(in.Key) == "" {
		status = http.StatusCreated
	}
	return web.JSON(w, status, out)
}

// handleAspectTemplateRetire serves POST /admin/v1/aspect-templates/retire with
// {"key"}: the list is no longer offered; reviews keep their values.
func (h *Handler) handleAspectTemplateRetire(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Key string `json:"key"`
	}
	if err := web.DecodeJSON(r, templatesBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	if err := h.Brand.RetireAspectTemplate(r.Context(), a, in.Key); err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"key": strings.TrimSpace(in.Key), "retired": true})
}

package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/sending"
	"reviewd/app/web"
)

// maxTemplateBody bounds the body of a template save or preview (the HTML is at
// most sending.MaxTemplateHTML).
const maxTemplateBody = sending.MaxTemplateHTML + 16<<10

// handleInviteTemplateList serves GET /admin/v1/invite-templates: {"items": rows}.
func (h *Handler) handleInviteTemplateList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	items, err := h.Sending.InviteTemplates(r.Context())
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"items": items, "placeholders": sending.TemplatePlaceholders()})
}

// handleInviteTemplateSave serves POST /admin/v1/invite-templates: 201 with the new
// row, or 200 with the changed one (body id).
func (h *Handler) handleInviteTemplateSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in sending.InviteTemplateInput
	if err := web.DecodeJSON(r, maxTemplateBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, created, err := h.Sending.SaveInviteTemplate(r.Context(), a, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return web.JSON(w, status, out)
}

// handleInviteTemplatePreview serves POST /admin/v1/invite-templates/preview:
// subject, html, text and source of the e-mail as a customer would receive it.
func (h *Handler) handleInviteTemplatePreview(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in sending.InviteTemplateInput
	if err := web.DecodeJSON(r, maxTemplateBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Sending.PreviewInviteTemplate(r.Context(), in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleInviteTemplateDelete serves DELETE /admin/v1/invite-templates/<id>: 204.
func (h *Handler) handleInviteTemplateDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Sending.DeleteInviteTemplate(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

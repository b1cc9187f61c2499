package admin

import (
	"encoding/json"
	"net/http"

	"reviewd/app/core"
	"reviewd/app/web"
)

// settingsBodyLimit is the largest settings body read.
const settingsBodyLimit = 64 << 10

// handleSettingsGet serves GET /admin/v1/settings: the full settings object with
// has_webhook_secret.
func (h *Handler) handleSettingsGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v, err := h.Brand.SettingsOf(r.Context())
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, v)
}

// handleSettingsUpdate serves POST /admin/v1/settings: a partial update (only the
// fields sent change); the route fields change only in a panel session.
func (h *Handler) handleSettingsUpdate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var fields map[string]json.RawMessage
	if err := web.DecodeJSON(r, settingsBodyLimit, web.ModeAPI, &fields); err != nil {
		return err
	}
	if fields == nil {
		return core.ErrInvalidJSON
	}
	v, err := h.Brand.UpdateSettings(r.Context(), a, fields)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, v)
}

// handleWebhookSecretCreate serves POST /admin/v1/settings/webhook-secret: a new
// notification password, shown once (panel session only).
func (h *Handler) handleWebhookSecretCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	p, err := h.Brand.CreateWebhookSecret(r.Context(), a)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusCreated, map[string]any{"id": p.ID, "password": p.Secret})
}

// handleWhatsAppTest serves POST /admin/v1/settings/whatsapp-test: {"phone"} gets
// the invitation template (panel session only).
func (h *Handler) handleWhatsAppTest(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Phone string `json:"phone"`
	}
	if err := web.DecodeJSON(r, 4<<10, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Sending.SendWhatsAppTest(r.Context(), a, in.Phone)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

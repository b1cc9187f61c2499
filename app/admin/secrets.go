package admin

import (
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/web"
)

// secretJSON is a signing or mail-event password row (CONTRACT, "Management
// resources"); the password itself only in the creation answer.
func secretJSON(p core.ListedPassword) map[string]any {
	return map[string]any{"id": p.ID, "purpose": p.Purpose, "channel": optCode(p.Channel),
		"created_at": p.CreatedAt.UTC().Format(time.RFC3339), "revoked_at": optTime(p.RevokedAt)}
}

// handleSecretList serves GET /admin/v1/secrets (shared list contract; q matches id,
// purpose or channel). The password is never listed.
func (h *Handler) handleSecretList(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	ps, err := h.Passwords.ListPasswords(r.Context())
	if err != nil {
		return err
	}
	q := strings.ToLower(l.Q)
	var rows []map[string]any
	for _, p := range ps {
		if q != "" && !strings.Contains(strings.ToLower(p.ID+" "+p.Purpose+" "+p.Channel), q) {
			continue
		}
		rows = append(rows, secretJSON(p))
	}
	return writeListPage(w, l, rows)
}

// handleSecretCreate serves POST /admin/v1/secrets: purpose signing (with channel)
// or mail_events; 201 with the password, shown this once.
func (h *Handler) handleSecretCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Purpose string `json:"purpose"`
		Channel string `json:"channel"`
	}
	if err := web.DecodeJSON(r, keyBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	if in.Purpose != "" && !core.ManagedPurpose(in.Purpose) {
		return core.Invalid("purpose")
	}
	p, err := h.Passwords.CreatePassword(r.Context(), a, in.Purpose, in.Channel)
	if err != nil {
		return err
	}
	out := secretJSON(core.ListedPassword{Password: p.Password, Channel: p.Channel})
	out["password"] = p.Secret
	return web.JSON(w, http.StatusCreated, out)
}

// handleSecretDelete serves DELETE /admin/v1/secrets/<id>: the password is revoked
// at once (core.Passwords.RevokePassword).
func (h *Handler) handleSecretDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Passwords.RevokePassword(r.Context(), a, mux.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

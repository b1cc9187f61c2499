package panel

import (
	"errors"
	"net/http"

	"reviewd/app/core"
	"reviewd/app/web"
)

// passwordData is the set-password and reset-request page's data.
type passwordData struct {
	Step, Token string
	Done        bool
}

// handlePasswordPage serves GET /panel/password: the page a member's e-mail link
// opens (the link's token is in the fragment; the script copies it into the form,
// and without a script the member pastes it).
func (h *Handler) handlePasswordPage(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	v := h.view(r, nil, "password")
	v.Data = passwordData{Step: "set", Token: h.signInToken(w, r)}
	h.render(w, r, http.StatusOK, v)
	return nil
}

// handlePasswordSet serves POST /panel/password (access SetPasswordWithLink, as
// POST /admin/v1/session/password): then the member signs in with it.
func (h *Handler) handlePasswordSet(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := web.HoldRefusal(r.Context()); err != nil {
		return err
	}
	if err := h.checkSignInForm(r); err != nil {
		return err
	}
	err := h.Sessions.SetPasswordWithLink(r.Context(), requestActor(r), r.PostForm.Get("link_token"), r.PostForm.Get("password"))
	if err != nil {
		return h.passwordFailed(w, r, "set", err)
	}
	http.Redirect(w, r, "/panel/sign-in?notice=password_set", http.StatusSeeOther)
	return nil
}

// handlePasswordResetPage serves GET /panel/password-reset: the request form.
func (h *Handler) handlePasswordResetPage(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	v := h.view(r, nil, "password")
	v.Data = passwordData{Step: "reset", Token: h.signInToken(w, r)}
	h.render(w, r, http.StatusOK, v)
	return nil
}

// handlePasswordReset serves POST /panel/password-reset (access
// RequestPasswordReset, as POST /admin/v1/session/password-reset): the same answer
// whether or not the address belongs to a member; requests share the API's per-IP
// budget.
func (h *Handler) handlePasswordReset(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := h.checkSignInForm(r); err != nil {
		return err
	}
	if err := h.Auth.Limits.AllowPasswordReset(web.ClientIP(r.Context())); err != nil {
		return err
	}
	if err := h.Sessions.RequestPasswordReset(r.Context(), requestActor(r), r.PostForm.Get("email")); err != nil {
		return h.passwordFailed(w, r, "reset", err)
	}
	v := h.view(r, nil, "password")
	v.Data = passwordData{Step: "reset", Done: true}
	h.render(w, r, http.StatusOK, v)
	return nil
}

// passwordFailed shows a refused step on its page with the service's code.
func (h *Handler) passwordFailed(w http.ResponseWriter, r *http.Request, step string, err error) error {
	var ce *core.Error
	if !errors.As(err, &ce) {
		return err
	}
	v := h.view(r, nil, "password")
	v.Error = refusal(r, ce)
	v.Data = passwordData{Step: step, Token: h.signInToken(w, r)}
	h.render(w, r, ce.Status, v)
	return nil
}

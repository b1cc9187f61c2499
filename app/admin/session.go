package admin

import (
	"net/http"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/web"
	"reviewd/store"
)

// sessionBodyLimit is the largest body the session endpoints read.
const sessionBodyLimit = 16 << 10

// requestActor is the actor of a request that is not authenticated yet (sign-in).
func requestActor(r *http.Request) *core.Actor {
	return &core.Actor{Via: core.ViaSession, RequestID: web.RequestID(r.Context()), IP: web.ClientIP(r.Context()),
		UserAgent: r.UserAgent()}
}

// sessionCookie builds the session cookie; an empty value clears it.
func (h *Handler) sessionCookie(value string, maxAge int) *http.Cookie {
	if value == "" {
		maxAge = -1
	}
	return &http.Cookie{Name: access.SessionCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: strings.HasPrefix(strings.ToLower(h.PublicURL()), "https://")}
}

func cookieValue(r *http.Request) string {
	if c, err := r.Cookie(access.SessionCookie); err == nil {
		return c.Value
	}
	return ""
}

func userJSON(u store.User) map[string]any {
	return map[string]any{"id": u.ID, "username": u.Username, "email": u.Email, "role": u.Role, "second_step": u.TOTPOn}
}

// signedIn writes the answer of a completed sign-in (or of GET /admin/v1/session).
func signedIn(w http.ResponseWriter, csrf string, u store.User) error {
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, map[string]any{"authenticated": true, "csrf_token": csrf, "user": userJSON(u)})
}

// handleSessionCreate serves POST /admin/v1/session: the password step of sign-in.
func (h *Handler) handleSessionCreate(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := web.HoldRefusal(r.Context()); err != nil {
		return err
	}
	if err := h.checkSignInRequest(r); err != nil {
		return err
	}
	var in struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	s, err := h.Access.SignIn(r.Context(), requestActor(r), in.Username, in.Password, cookieValue(r))
	if err != nil {
		return err
	}
	if !s.Authenticated {
		http.SetCookie(w, h.sessionCookie(s.Token, int(access.SecondStepWindow.Seconds())))
		return web.JSON(w, http.StatusOK, map[string]any{"authenticated": false, "step": "second_step"})
	}
	http.SetCookie(w, h.sessionCookie(s.Token, int(access.SessionLifetime.Seconds())))
	return signedIn(w, s.CSRF, s.User)
}

// handleSessionPasscode serves POST /admin/v1/session/passcode: the second step of
// sign-in, with the cookie of the password step.
func (h *Handler) handleSessionPasscode(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := web.HoldRefusal(r.Context()); err != nil {
		return err
	}
	if err := h.checkSignInRequest(r); err != nil {
		return err
	}
	var in struct {
		Passcode string `json:"passcode"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	s, err := h.Access.SignInPasscode(r.Context(), requestActor(r), cookieValue(r), in.Passcode)
	if err != nil {
		return err
	}
	http.SetCookie(w, h.sessionCookie(s.Token, int(access.SessionLifetime.Seconds())))
	return signedIn(w, s.CSRF, s.User)
}

// handleSessionGet serves GET /admin/v1/session: the signed-in user.
func (h *Handler) handleSessionGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	u, err := h.Access.SessionUser(r.Context(), a)
	if err != nil {
		return err
	}
	return signedIn(w, a.CSRF, u)
}

// handleSessionDelete serves DELETE /admin/v1/session: sign out.
func (h *Handler) handleSessionDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Access.SignOut(r.Context(), a); err != nil {
		return err
	}
	http.SetCookie(w, h.sessionCookie("", 0))
	return web.NoContent(w)
}

// handleSecondStepGet serves GET /admin/v1/session/second-step.
func (h *Handler) handleSecondStepGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	on, pending, err := h.Access.SecondStepState(r.Context(), a)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"enabled": on, "pending": pending})
}

// handleSecondStepStart serves POST /admin/v1/session/second-step: a new secret to
// add to an authenticator app.
func (h *Handler) handleSecondStepStart(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	s, err := h.Access.StartSecondStep(r.Context(), a)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, map[string]any{"secret": s.Secret, "otpauth_url": s.OTPAuthURL})
}

// passcodeBody reads {"passcode"} of a second-step management call.
func passcodeBody(r *http.Request) (string, error) {
	var in struct {
		Passcode string `json:"passcode"`
	}
	err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in)
	return in.Passcode, err
}

// handleSecondStepConfirm serves POST /admin/v1/session/second-step/confirm.
func (h *Handler) handleSecondStepConfirm(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	code, err := passcodeBody(r)
	if err != nil {
		return err
	}
	if err := h.Access.ConfirmSecondStep(r.Context(), a, code); err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"enabled": true, "pending": false})
}

// handleSecondStepOff serves POST /admin/v1/session/second-step/off.
func (h *Handler) handleSecondStepOff(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	code, err := passcodeBody(r)
	if err != nil {
		return err
	}
	if err := h.Access.TurnOffSecondStep(r.Context(), a, code); err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"enabled": false, "pending": false})
}

// handleEmailChange serves POST /admin/v1/session/email-change: the caller's own email.
func (h *Handler) handleEmailChange(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Current string `json:"current"`
		Email   string `json:"email"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	u, err := h.Access.ChangeOwnEmail(r.Context(), a, in.Current, in.Email)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"user": userJSON(u)})
}

package panel

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/web"
)

// signInCookie carries the sign-in form's own CSRF token (double submit): a page
// of another site cannot read it, so it cannot post a sign-in in a victim's browser.
const signInCookie = "reviewd_panel_signin"

type signInData struct {
	Step, Next, Token, Username string
}

func (h *Handler) cookie(name, value string, maxAge int) *http.Cookie {
	if value == "" {
		maxAge = -1
	}
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: strings.HasPrefix(strings.ToLower(h.PublicURL), "https://")}
}

// localNext is the page to open after sign-in: a /panel/ path only.
func localNext(s string) string {
	if !strings.HasPrefix(s, "/panel/") || strings.HasPrefix(s, "//") || strings.ContainsAny(s, "\\\r\n") {
		return "/panel/"
	}
	return s
}

// handleSignInPage serves GET /panel/sign-in: the password form, or with
// step=passcode the passcode form of two-step sign-in.
func (h *Handler) handleSignInPage(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	v := h.view(r, nil, "sign-in")
	d := signInData{Next: localNext(r.URL.Query().Get("next")), Step: r.URL.Query().Get("step")}
	d.Token = h.signInToken(w, r)
	v.Data = d
	h.render(w, r, http.StatusOK, v)
	return nil
}

// signInToken is the caller's sign-in CSRF token, set when missing.
func (h *Handler) signInToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(signInCookie); err == nil && len(c.Value) >= 20 {
		return c.Value
	}
	tok := core.RandomToken(24)
	http.SetCookie(w, h.cookie(signInCookie, tok, 3600))
	return tok
}

// checkSignInForm refuses a sign-in form not posted from the panel's own page: the
// form token must match the sign-in cookie, and a browser's Sec-Fetch-Site must
// not name another site.
func (h *Handler) checkSignInForm(r *http.Request) error {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return core.Forbidden("cross_site_request")
	}
	r.Body = http.MaxBytesReader(nil, r.Body, formLimit)
	if err := r.ParseForm(); err != nil {
		return core.Invalid("form")
	}
	c, err := r.Cookie(signInCookie)
	if err != nil || c.Value == "" || !core.Equal(c.Value, r.PostForm.Get("csrf")) {
		return core.Forbidden("csrf_missing")
	}
	return nil
}

func requestActor(r *http.Request) *core.Actor {
	return &core.Actor{Via: core.ViaSession, RequestID: web.RequestID(r.Context()), IP: web.ClientIP(r.Context()),
		UserAgent: r.UserAgent()}
}

func sessionValue(r *http.Request) string {
	if c, err := r.Cookie(access.SessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// signInFailed shows the form again with the refusal (same status and code as
// the admin API gives).
func (h *Handler) signInFailed(w http.ResponseWriter, r *http.Request, step string, err error) error {
	var ce *core.Error
	if !errors.As(err, &ce) {
		return err
	}
	v := h.view(r, nil, "sign-in")
	v.Error = refusal(r, ce)
	v.Data = signInData{Step: step, Next: localNext(r.PostForm.Get("next")), Token: h.signInToken(w, r),
		Username: r.PostForm.Get("username")}
	h.render(w, r, ce.Status, v)
	return nil
}

// handleSignIn serves POST /panel/sign-in: the password step (core SignIn, as
// POST /admin/v1/session).
func (h *Handler) handleSignIn(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := web.HoldRefusal(r.Context()); err != nil {
		return err
	}
	if err := h.checkSignInForm(r); err != nil {
		return err
	}
	next := localNext(r.PostForm.Get("next"))
	s, err := h.Sessions.SignIn(r.Context(), requestActor(r), r.PostForm.Get("username"), r.PostForm.Get("password"),
		sessionValue(r))
	if err != nil {
		return h.signInFailed(w, r, "", err)
	}
	if !s.Authenticated {
		http.SetCookie(w, h.cookie(access.SessionCookie, s.Token, int(access.SecondStepWindow.Seconds())))
		http.Redirect(w, r, "/panel/sign-in?step=passcode&next="+url.QueryEscape(next), http.StatusSeeOther)
		return nil
	}
	http.SetCookie(w, h.cookie(access.SessionCookie, s.Token, int(access.SessionLifetime.Seconds())))
	http.Redirect(w, r, h.landing(r.Context(), next), http.StatusSeeOther)
	return nil
}

// handlePasscode serves POST /panel/sign-in/passcode: the second step (core
// SignInPasscode, as POST /admin/v1/session/passcode).
func (h *Handler) handlePasscode(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := web.HoldRefusal(r.Context()); err != nil {
		return err
	}
	if err := h.checkSignInForm(r); err != nil {
		return err
	}
	s, err := h.Sessions.SignInPasscode(r.Context(), requestActor(r), sessionValue(r), r.PostForm.Get("passcode"))
	if err != nil {
		return h.signInFailed(w, r, "passcode", err)
	}
	http.SetCookie(w, h.cookie(access.SessionCookie, s.Token, int(access.SessionLifetime.Seconds())))
	http.Redirect(w, r, h.landing(r.Context(), localNext(r.PostForm.Get("next"))), http.StatusSeeOther)
	return nil
}

// handleSignOut serves POST /panel/sign-out (core SignOut, as DELETE
// /admin/v1/session).
func (h *Handler) handleSignOut(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Sessions.SignOut(r.Context(), a); err != nil {
		return err
	}
	http.SetCookie(w, h.cookie(access.SessionCookie, "", 0))
	http.Redirect(w, r, "/panel/sign-in", http.StatusSeeOther)
	return nil
}

// handleLanguage serves POST /panel/language: the user's choice of tr or en, kept
// in a cookie for a year. It changes nothing on the server, so it needs no session.
func (h *Handler) handleLanguage(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	r.Body = http.MaxBytesReader(nil, r.Body, formLimit)
	if err := r.ParseForm(); err != nil {
		return core.Invalid("form")
	}
	lang := r.PostForm.Get("lang")
	if lang != "tr" && lang != "en" {
		return core.Invalid("lang")
	}
	http.SetCookie(w, h.cookie(langCookie, lang, 365*24*3600))
	return back(w, r, "/panel/", "")
}

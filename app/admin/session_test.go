package admin_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
)

const (
	panelUser     = "ayla"
	panelPassword = "Velvet-Harbor-42"
)

// browser is a small cookie-aware client: it keeps the session cookie the server
// sets and the csrf_token of the last sign-in answer.
type browser struct {
	t      *testing.T
	env    *apptest.Env
	cookie string
	csrf   string
	// set is the session cookie of the last answer that set one (nil if none).
	set *http.Cookie
}

func newBrowser(t *testing.T, env *apptest.Env) *browser { return &browser{t: t, env: env} }

// do sends a request with the session cookie; withCSRF adds X-Service-CSRF.
func (b *browser) do(method, path string, body any, withCSRF bool) apptest.Response {
	b.t.Helper()
	h := map[string]string{}
	if b.cookie != "" {
		h["Cookie"] = access.SessionCookie + "=" + b.cookie
	}
	if withCSRF {
		h["X-Service-CSRF"] = b.csrf
	}
	res := b.env.Do(method, path, body, h)
	b.set = nil
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == access.SessionCookie {
			b.set = c
			b.cookie = c.Value
			if c.MaxAge < 0 {
				b.cookie = ""
			}
		}
	}
	if tok, ok := res.JSON["csrf_token"].(string); ok {
		b.csrf = tok
	}
	return res
}

func (b *browser) signIn(username, password string) apptest.Response {
	b.t.Helper()
	return b.do("POST", "/admin/v1/session", map[string]string{"username": username, "password": password}, false)
}

func newPanelEnv(t *testing.T) *apptest.Env {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.User(access.NewUser{Username: panelUser,
		Email: "ayla@shop.example", Role: "moderator", Password: panelPassword})
	return env
}

func expect(t *testing.T, res apptest.Response, status int, code string) {
	t.Helper()
	if res.Status != status || (code != "" && res.Code() != code) {
		t.Fatalf("want %d %s, got %d %s for\n  %s", status, code, res.Status, res.Code(), res)
	}
}

func passcode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSessionSignIn(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env)

	res := b.signIn(panelUser, panelPassword)
	expect(t, res, 200, "")
	c := b.set
	if c == nil || c.Value == "" || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure ||
		c.MaxAge != 12*3600 {
		t.Fatalf("cookie = %+v", c)
	}
	user, _ := res.JSON["user"].(map[string]any)
	if res.JSON["authenticated"] != true || b.csrf == "" || user["username"] != panelUser || user["email"] != "ayla@shop.example" ||
		user["role"] != "moderator" || user["second_step"] != false || user["id"] == nil {
		t.Fatalf("answer = %s", res.Body)
	}

	// Safe methods need no CSRF token.
	who := b.do("GET", "/admin/v1/whoami", nil, false)
	expect(t, who, 200, "")
	if who.JSON["via"] != "session" || who.JSON["name"] != panelUser || who.JSON["role"] != "moderator" {
		t.Fatalf("whoami = %s", who.Body)
	}
	csrf := b.csrf
	me := b.do("GET", "/admin/v1/session", nil, false)
	expect(t, me, 200, "")
	if me.JSON["csrf_token"] != csrf || me.JSON["authenticated"] != true || me.JSON["user"].(map[string]any)["username"] != panelUser {
		t.Fatalf("session = %s", me.Body)
	}

	anon := newBrowser(t, env)
	expect(t, anon.do("GET", "/admin/v1/session", nil, false), 401, "refused / credentials_missing")
	for _, tt := range []struct{ name, username, password string }{
		{"wrong password", panelUser, "Velvet-Harbor-43"},
		{"unknown user", "nobody", panelPassword},
		{"empty", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := anon.signIn(tt.username, tt.password)
			expect(t, res, 401, "refused / credentials_invalid")
			if anon.set != nil {
				t.Fatal("cookie set on a refused sign-in")
			}
		})
	}
	expect(t, anon.do("POST", "/admin/v1/session", "{", false), 400, "invalid_json / invalid_json")
}

func TestSessionSecureCookie(t *testing.T) {
	env := newPanelEnv(t)
	env.App.SetPublicURL("https://reviews.example")
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 200, "")
	if b.set == nil || !b.set.Secure {
		t.Fatalf("cookie = %+v", b.set)
	}
}

func TestSessionCSRF(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 200, "")
	body := map[string]string{"current": panelPassword, "email": "ayla.k@shop.example"}

	expect(t, b.do("POST", "/admin/v1/session/email-change", body, false), 403, "forbidden / csrf_missing")
	good := b.csrf
	b.csrf = "not-the-token"
	expect(t, b.do("POST", "/admin/v1/session/email-change", body, true), 403, "forbidden / csrf_missing")
	expect(t, b.do("DELETE", "/admin/v1/session", nil, true), 403, "forbidden / csrf_missing")
	expect(t, b.do("POST", "/admin/v1/session/second-step", nil, false), 403, "forbidden / csrf_missing")
	b.csrf = good
	res := b.do("POST", "/admin/v1/session/email-change", body, true)
	expect(t, res, 200, "")
	if res.JSON["user"].(map[string]any)["email"] != "ayla.k@shop.example" {
		t.Fatalf("email change = %s", res.Body)
	}

	old := b.cookie
	expect(t, b.do("DELETE", "/admin/v1/session", nil, false), 403, "forbidden / csrf_missing")
	expect(t, b.do("DELETE", "/admin/v1/session", nil, true), 204, "")
	if b.set == nil || b.set.MaxAge >= 0 || b.set.Value != "" {
		t.Fatalf("cookie not cleared: %+v", b.set)
	}
	b.cookie = old // a signed-out cookie is worthless
	expect(t, b.do("GET", "/admin/v1/whoami", nil, false), 401, "refused / session_invalid")
}

func TestSessionEmailChangeErrors(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 200, "")
	tests := []struct {
		name string
		body any
		code string
	}{
		{"wrong current password", map[string]string{"current": "Velvet-Harbor-43", "email": "x@shop.example"}, "invalid / current_password"},
		{"no current password", map[string]string{"email": "x@shop.example"}, "invalid / current_password"},
		{"email missing", map[string]string{"current": panelPassword}, "invalid / email_required"},
		{"email invalid", map[string]string{"current": panelPassword, "email": "not an address"}, "invalid / email_invalid"},
		{"email with a name", map[string]string{"current": panelPassword, "email": "Ayla <x@shop.example>"}, "invalid / email_invalid"},
		{"wrong type", map[string]any{"current": panelPassword, "email": 5}, "invalid / email"},
		{"unreadable", "{", "invalid_json / invalid_json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, b.do("POST", "/admin/v1/session/email-change", tt.body, true), 400, tt.code)
		})
	}
	me := b.do("GET", "/admin/v1/session", nil, false)
	if me.JSON["user"].(map[string]any)["email"] != "ayla@shop.example" {
		t.Fatalf("email changed by a refused request: %s", me.Body)
	}
}

func TestSessionSecondStep(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 200, "")

	st := b.do("GET", "/admin/v1/session/second-step", nil, false)
	expect(t, st, 200, "")
	if st.JSON["enabled"] != false || st.JSON["pending"] != false {
		t.Fatalf("state = %s", st.Body)
	}
	expect(t, b.do("POST", "/admin/v1/session/second-step/confirm", map[string]string{"passcode": "123456"}, true),
		409, "invalid / second_step_not_started")
	setup := b.do("POST", "/admin/v1/session/second-step", nil, true)
	expect(t, setup, 200, "")
	secret, _ := setup.JSON["secret"].(string)
	if secret == "" || setup.JSON["otpauth_url"] == nil {
		t.Fatalf("setup = %s", setup.Body)
	}
	st = b.do("GET", "/admin/v1/session/second-step", nil, false)
	if st.JSON["enabled"] != false || st.JSON["pending"] != true {
		t.Fatalf("state = %s", st.Body)
	}
	expect(t, b.do("POST", "/admin/v1/session/second-step/confirm", map[string]string{"passcode": "12345"}, true),
		400, "invalid_passcode / invalid_passcode")
	expect(t, b.do("POST", "/admin/v1/session/second-step/confirm", map[string]string{"passcode": passcode(t, secret, env.Clock.T)}, true),
		200, "")
	st = b.do("GET", "/admin/v1/session/second-step", nil, false)
	if st.JSON["enabled"] != true || st.JSON["pending"] != false {
		t.Fatalf("state = %s", st.Body)
	}
	expect(t, b.do("POST", "/admin/v1/session/second-step", nil, true), 409, "invalid / second_step_on")
	expect(t, b.do("DELETE", "/admin/v1/session", nil, true), 204, "")

	// Password step.
	res := b.signIn(panelUser, panelPassword)
	expect(t, res, 200, "")
	if res.JSON["authenticated"] != false || res.JSON["step"] != "second_step" || res.JSON["csrf_token"] != nil || res.JSON["user"] != nil {
		t.Fatalf("password step = %s", res.Body)
	}
	if b.set == nil || !b.set.HttpOnly || b.set.SameSite != http.SameSiteStrictMode || b.set.MaxAge != 600 {
		t.Fatalf("pending cookie = %+v", b.set)
	}
	pending := b.cookie
	expect(t, b.do("GET", "/admin/v1/whoami", nil, false), 401, "refused / session_invalid")
	expect(t, b.do("GET", "/admin/v1/session", nil, false), 401, "refused / session_invalid")
	expect(t, b.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": "000000"}, false),
		400, "invalid_passcode / invalid_passcode")
	expect(t, b.do("POST", "/admin/v1/session/passcode", map[string]string{}, false), 400, "invalid_passcode / invalid_passcode")

	// Past the 10-minute window.
	env.Clock.Advance(11 * time.Minute)
	expect(t, b.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": passcode(t, secret, env.Clock.T)}, false),
		400, "second_step_expired / second_step_expired")
	anon := newBrowser(t, env)
	expect(t, anon.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": passcode(t, secret, env.Clock.T)}, false),
		400, "second_step_expired / second_step_expired")

	// Within the window: a new full session with a new cookie.
	expect(t, b.signIn(panelUser, panelPassword), 200, "")
	pending = b.cookie
	env.Clock.Advance(2 * time.Minute)
	code := passcode(t, secret, env.Clock.T)
	res = b.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": code}, false)
	expect(t, res, 200, "")
	if res.JSON["authenticated"] != true || res.JSON["csrf_token"] == "" || res.JSON["user"].(map[string]any)["second_step"] != true {
		t.Fatalf("second step = %s", res.Body)
	}
	if b.set == nil || b.cookie == "" || b.cookie == pending || b.set.MaxAge != 12*3600 || !b.set.HttpOnly {
		t.Fatalf("new cookie = %+v", b.set)
	}
	expect(t, b.do("GET", "/admin/v1/whoami", nil, false), 200, "")
	// The password-step cookie is spent.
	old := &browser{t: t, env: env, cookie: pending}
	expect(t, old.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": code}, false),
		400, "second_step_expired / second_step_expired")

	// The same passcode works once.
	other := newBrowser(t, env)
	expect(t, other.signIn(panelUser, panelPassword), 200, "")
	expect(t, other.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": code}, false),
		400, "invalid_passcode / invalid_passcode")

	// Turning off needs a fresh passcode.
	expect(t, b.do("POST", "/admin/v1/session/second-step/off", map[string]string{"passcode": code}, true),
		400, "invalid_passcode / invalid_passcode")
	env.Clock.Advance(time.Minute)
	expect(t, b.do("POST", "/admin/v1/session/second-step/off", map[string]string{"passcode": passcode(t, secret, env.Clock.T)}, true),
		200, "")
	expect(t, b.do("POST", "/admin/v1/session/second-step/off", map[string]string{"passcode": "123456"}, true),
		409, "invalid / second_step_off")
	res = newBrowser(t, env).signIn(panelUser, panelPassword)
	expect(t, res, 200, "")
	if res.JSON["authenticated"] != true {
		t.Fatalf("sign-in after off = %s", res.Body)
	}
}

func TestSessionKeyCallers(t *testing.T) {
	env := newPanelEnv(t)
	key := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read", "write")}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/admin/v1/session"},
		{"DELETE", "/admin/v1/session"},
		{"GET", "/admin/v1/session/second-step"},
		{"POST", "/admin/v1/session/second-step"},
		{"POST", "/admin/v1/session/second-step/confirm"},
		{"POST", "/admin/v1/session/second-step/off"},
		{"POST", "/admin/v1/session/email-change"},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			var body any
			if tt.method == "POST" {
				body = map[string]string{"passcode": "123456", "current": panelPassword, "email": "x@shop.example"}
			}
			expect(t, env.Do(tt.method, tt.path, body, key), 403, "forbidden / scope_missing")
		})
	}
}

// rawSignIn posts a sign-in without the test helpers (safe from goroutines).
func rawSignIn(url, username, password string) (int, error) {
	b, _ := json.Marshal(map[string]string{"username": username, "password": password})
	res, err := http.Post(url+"/admin/v1/session", "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}

func TestSessionRefusalLimit(t *testing.T) {
	env := newPanelEnv(t)
	// 60 failed sign-ins from one address, sent together so the bcrypt work runs in
	// parallel; each names another account, so only the per-IP limit is reached.
	var wg sync.WaitGroup
	statuses := make([]int, 60)
	errs := make([]error, 60)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], errs[i] = rawSignIn(env.URL, "ghost-"+strconv.Itoa(i), "Wrong-Password-99")
		}()
	}
	wg.Wait()
	for i := range statuses {
		if errs[i] != nil || statuses[i] != 401 {
			t.Fatalf("failed sign-in %d: %d %v", i, statuses[i], errs[i])
		}
	}
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 429, "rate_limited / rate_limited")
	if b.set != nil {
		t.Fatal("cookie set while rate limited")
	}
	env.Clock.Advance(5 * time.Minute)
	res := b.signIn(panelUser, panelPassword)
	expect(t, res, 200, "")
	if res.JSON["authenticated"] != true {
		t.Fatalf("sign-in = %s", res.Body)
	}
}

package panel_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/app/sendtest"
)

var reLinkToken = regexp.MustCompile(`/panel/password#token=([A-Za-z0-9_-]+)`)

// linkOf waits for the n-th e-mail and returns the token of its set-password link.
func linkOf(t *testing.T, smtp *sendtest.SMTPServer, n int) string {
	t.Helper()
	var text string
	apptest.Eventually(t, fmt.Sprintf("e-mail %d", n), 10*time.Second, func() (bool, string) {
		msgs := smtp.Messages()
		if len(msgs) < n {
			return false, fmt.Sprintf("%d e-mails", len(msgs))
		}
		text = msgs[n-1].Text
		return true, ""
	})
	m := reLinkToken.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("e-mail %d has no set-password link:\n%s", n, text)
	}
	return m[1]
}

// TestPasswordPages: a member asks for a reset link on the panel's page, opens the
// page the e-mail links to, sets a password there (a guessable one is refused on
// the page) and signs in with it; the link works once.
func TestPasswordPages(t *testing.T) {
	smtp := sendtest.StartSMTP(t)
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.SMTP = app.SMTP{Host: "127.0.0.1", Port: smtp.Port, Security: "none", From: "panel@reviewd.test"}
	})
	env.Channel("web", "GB", "en")
	env.User(access.NewUser{Username: "nora", Email: "nora@shop.example", Role: "moderator", Password: "Old-Lantern-Harbor-31"})
	b := newBrowser(t, env)

	if p := b.do("GET", "/panel/sign-in", nil, nil); !strings.Contains(p.body, `href="/panel/password-reset"`) {
		t.Fatalf("the sign-in page offers no reset link:\n%.600s", p.body)
	}
	form := b.do("GET", "/panel/password-reset", nil, nil)
	if res := b.do("POST", "/panel/password-reset", url.Values{"csrf": {"forged-token-0123456789"}, "email": {"nora@shop.example"}}, nil); res.status != http.StatusForbidden {
		t.Fatalf("forged reset request: %d", res.status)
	}
	for _, email := range []string{"someone@else.example", "nora@shop.example"} {
		res := b.do("POST", "/panel/password-reset", url.Values{"csrf": {form.csrf(t)}, "email": {email}}, nil)
		if res.status != http.StatusOK || !strings.Contains(res.body, "link valid for one hour") {
			t.Fatalf("reset request for %s: %d\n%.600s", email, res.status, res.body)
		}
	}
	token := linkOf(t, smtp, 1)
	if n := len(smtp.Messages()); n != 1 {
		t.Fatalf("%d e-mails; only the member's address gets one", n)
	}

	page := b.do("GET", "/panel/password", nil, nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, `name="link_token"`) {
		t.Fatalf("set-password page: %d\n%.600s", page.status, page.body)
	}
	res := b.do("POST", "/panel/password", url.Values{"csrf": {page.csrf(t)}, "link_token": {token}, "password": {"password123"}}, nil)
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, "password_guessable") || !strings.Contains(res.body, "too easy to guess") {
		t.Fatalf("guessable password: %d\n%.600s", res.status, res.body)
	}
	res = b.do("POST", "/panel/password", url.Values{"csrf": {page.csrf(t)}, "link_token": {token}, "password": {"New-Copper-Meadow-58"}}, nil)
	if res.status != http.StatusSeeOther || res.location != "/panel/sign-in?notice=password_set" {
		t.Fatalf("set password: %d %q\n%.600s", res.status, res.location, res.body)
	}
	if p := b.do("GET", res.location, nil, nil); !strings.Contains(p.body, "Your password is set") {
		t.Fatalf("no notice after setting the password:\n%.600s", p.body)
	}
	res = b.do("POST", "/panel/password", url.Values{"csrf": {page.csrf(t)}, "link_token": {token}, "password": {"Another-Quiet-River-77"}}, nil)
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, "token") {
		t.Fatalf("a used link: %d\n%.600s", res.status, res.body)
	}
	b.signIn("nora", "New-Copper-Meadow-58")
}

// TestPasswordResetFormLimited: the panel's reset form shares the management
// API's per-IP budget of reset requests: a flood from one address is answered 429
// rate_limited once the budget is spent, on the form and on the API.
func TestPasswordResetFormLimited(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	env.User(access.NewUser{Username: "nora", Email: "nora@shop.example", Role: "moderator", Password: "Old-Lantern-Harbor-31"})
	b := newBrowser(t, env)
	form := b.do("GET", "/panel/password-reset", nil, nil)
	accepted, limited := 0, 0
	for i := 0; i < 300 && limited == 0; i++ {
		res := b.do("POST", "/panel/password-reset", url.Values{"csrf": {form.csrf(t)}, "email": {"nora@shop.example"}}, nil)
		switch res.status {
		case http.StatusOK:
			accepted++
		case http.StatusTooManyRequests:
			limited++
			if !strings.Contains(res.body, "rate_limited") {
				t.Fatalf("429 page without its code:\n%.600s", res.body)
			}
		default:
			t.Fatalf("reset request %d: %d\n%.600s", i, res.status, res.body)
		}
	}
	if limited == 0 || accepted > 120 {
		t.Fatalf("%d reset requests accepted from one address, %d limited", accepted, limited)
	}
	res := env.Do("POST", "/admin/v1/session/password-reset", map[string]string{"email": "nora@shop.example"}, nil)
	apptest.Expect(t, res, http.StatusTooManyRequests, "rate_limited / rate_limited")
}

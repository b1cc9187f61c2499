package admin_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/app/sendtest"
	"reviewd/store"
)

const olgaPassword = "Quiet-Lantern-77"

// newMembersEnv starts an installation whose mail goes to an in-process SMTP
// server, with one channel (brand Acme) and an owner, olga, signed in.
func newMembersEnv(t *testing.T) (*apptest.Env, *sendtest.SMTPServer, *browser) {
	t.Helper()
	smtp := sendtest.StartSMTP(t)
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.SMTP = app.SMTP{Host: "127.0.0.1", Port: smtp.Port, Security: "none", From: "panel@reviewd.test"}
	})
	env.Channel("web-tr", "TR", "tr")
	env.User(access.NewUser{Username: "olga", Email: "olga@shop.example", Role: "owner", Password: olgaPassword})
	owner := newBrowser(t, env)
	expect(t, owner.signIn("olga", olgaPassword), 200, "")
	return env, smtp, owner
}

var reLinkToken = regexp.MustCompile(`/panel/password#token=([A-Za-z0-9_-]+)`)

// waitMail waits for the n-th message (1-based) and returns its link token.
func waitMail(t *testing.T, smtp *sendtest.SMTPServer, n int, to string) (sendtest.Mail, string) {
	t.Helper()
	var m sendtest.Mail
	apptest.Eventually(t, fmt.Sprintf("mail %d to %s", n, to), 10*time.Second, func() (bool, string) {
		msgs := smtp.Messages()
		if len(msgs) < n {
			return false, fmt.Sprintf("%d messages", len(msgs))
		}
		m = msgs[n-1]
		return true, ""
	})
	if len(m.To) != 1 || m.To[0] != to {
		t.Fatalf("mail %d went to %v, want %s", n, m.To, to)
	}
	tok := reLinkToken.FindStringSubmatch(m.Text)
	if tok == nil {
		t.Fatalf("mail %d has no set-password link:\n%s", n, m.Text)
	}
	return m, tok[1]
}

func activity(t *testing.T, env *apptest.Env, action string) []store.Activity {
	t.Helper()
	list, _, err := env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestMembersLifecycle(t *testing.T) {
	env, smtp, owner := newMembersEnv(t)

	// Add a member: 201 with the row and mailed true; the mail carries a 3-day link.
	res := owner.do("POST", "/admin/v1/users", map[string]string{"username": "mert", "email": "mert@shop.example", "role": "moderator"}, true)
	expect(t, res, 201, "")
	if res.JSON["mailed"] != true || res.JSON["username"] != "mert" || res.JSON["role"] != "moderator" || res.JSON["second_step"] != false {
		t.Fatalf("created row: %s", res)
	}
	mertID := int64(res.JSON["id"].(float64))
	m, welcome := waitMail(t, smtp, 1, "mert@shop.example")
	if !strings.Contains(m.Text, "3 days") {
		t.Errorf("welcome mail does not say how long the link lasts:\n%s", m.Text)
	}
	expect(t, owner.do("POST", "/admin/v1/users", map[string]string{"username": "mert", "email": "x@shop.example", "role": "viewer"}, true), 400, "invalid / username_taken")
	expect(t, owner.do("POST", "/admin/v1/users", map[string]string{"username": "nil", "role": "viewer"}, true), 400, "invalid / email_required")
	expect(t, owner.do("POST", "/admin/v1/users", map[string]string{"username": "kral", "email": "k@shop.example", "role": "king"}, true), 400, "invalid / role")

	// The list: shared list contract, no password fields, logged as users.listed.
	res = owner.do("GET", "/admin/v1/users?page_size=1&sort=oldest", nil, false)
	expect(t, res, 200, "")
	items := res.JSON["items"].([]any)
	if res.JSON["total"] != float64(2) || res.JSON["pages"] != float64(2) || len(items) != 1 || items[0].(map[string]any)["username"] != "olga" {
		t.Fatalf("list: %s", res)
	}
	if strings.Contains(string(res.Body), "password") || items[0].(map[string]any)["last_sign_in_at"] == nil {
		t.Fatalf("list row: %s", res)
	}
	res = owner.do("GET", "/admin/v1/users?q=mert", nil, false)
	if res.JSON["total"] != float64(1) || res.JSON["items"].([]any)[0].(map[string]any)["last_sign_in_at"] != nil {
		t.Fatalf("search: %s", res)
	}
	if got, _, _ := env.App.DB.Read().ListAccess(context.Background(), store.AccessFilter{Action: "users.listed"}); len(got) != 2 || got[0].Via != "session" {
		t.Fatalf("users.listed entries: %+v", got)
	}

	// Setting the password with the link: strength rules, then once only.
	set := func(token, pw string) apptest.Response {
		return env.Do("POST", "/admin/v1/session/password", map[string]string{"token": token, "password": pw}, nil)
	}
	expect(t, set(welcome, "password123"), 400, "invalid / password_guessable")
	expect(t, set(welcome, "Acme-forever-2026"), 400, "invalid / password_names_account")
	expect(t, set(welcome, "mert-is-here-99"), 400, "invalid / password_names_account")
	expect(t, set("not-a-token", "Granite-Meadow-31"), 400, "invalid / token")
	res = set(welcome, "Granite-Meadow-31")
	expect(t, res, 200, "")
	if res.JSON["changed"] != true {
		t.Fatalf("set: %s", res)
	}
	expect(t, set(welcome, "Another-Granite-32"), 400, "invalid / token")

	member := newBrowser(t, env)
	expect(t, member.signIn("mert", "Granite-Meadow-31"), 200, "")
	// A moderator manages no members.
	expect(t, member.do("GET", "/admin/v1/users", nil, false), 403, "forbidden / scope_missing")
	expect(t, member.do("POST", fmt.Sprintf("/admin/v1/users/%d/password-link", mertID), nil, true), 403, "forbidden / scope_missing")
	expect(t, member.do("PATCH", fmt.Sprintf("/admin/v1/users/%d", mertID), map[string]string{"role": "owner"}, true), 403, "forbidden / scope_missing")
	// E-mail: only one's own, with the current password (as POST
	// /admin/v1/session/email-change).
	own := fmt.Sprintf("/admin/v1/users/%d", mertID)
	expect(t, member.do("PATCH", own, map[string]string{"email": "mert@new.example"}, true), 400, "invalid / current_password")
	expect(t, member.do("PATCH", own, map[string]string{"email": "mert@new.example", "current_password": "Wrong-Granite-99"}, true), 400, "invalid / current_password")
	if u, _ := env.App.DB.Read().UserByID(context.Background(), mertID); u.Email != "mert@shop.example" {
		t.Fatalf("e-mail changed without the password: %s", u.Email)
	}
	res = member.do("PATCH", own, map[string]string{"email": "mert@new.example", "current_password": "Granite-Meadow-31"}, true)
	expect(t, res, 200, "")
	if res.JSON["email"] != "mert@new.example" {
		t.Fatalf("own e-mail: %s", res)
	}
	olgaID := int64(owner.do("GET", "/admin/v1/session", nil, false).JSON["user"].(map[string]any)["id"].(float64))
	expect(t, member.do("PATCH", fmt.Sprintf("/admin/v1/users/%d", olgaID), map[string]string{"email": "evil@x.example"}, true), 403, "email_change_own_only / email_change_own_only")
	expect(t, owner.do("PATCH", fmt.Sprintf("/admin/v1/users/%d", mertID), map[string]string{"email": "evil@x.example"}, true), 403, "email_change_own_only / email_change_own_only")

	// Roles: the owner changes them; the last owner stays.
	res = owner.do("PATCH", fmt.Sprintf("/admin/v1/users/%d", mertID), map[string]string{"role": "manager"}, true)
	expect(t, res, 200, "")
	if res.JSON["role"] != "manager" {
		t.Fatalf("role: %s", res)
	}
	if a := activity(t, env, "user.role_changed"); len(a) != 1 || a[0].ActorName != "olga" || a[0].TargetID != "mert" {
		t.Fatalf("role change history: %+v", a)
	}
	expect(t, owner.do("PATCH", fmt.Sprintf("/admin/v1/users/%d", olgaID), map[string]string{"role": "viewer"}, true), 409, "last_owner / last_owner")
	expect(t, owner.do("DELETE", fmt.Sprintf("/admin/v1/users/%d", olgaID), nil, true), 409, "last_owner / last_owner")
	expect(t, owner.do("PATCH", "/admin/v1/users/999", map[string]string{"role": "viewer"}, true), 404, "not_found / not_found")

	// A link sent by the owner: 202 mailed true, valid one hour.
	res = owner.do("POST", fmt.Sprintf("/admin/v1/users/%d/password-link", mertID), nil, true)
	expect(t, res, 202, "")
	if res.JSON["mailed"] != true {
		t.Fatalf("password link: %s", res)
	}
	m, link := waitMail(t, smtp, 2, "mert@new.example")
	if !strings.Contains(m.Text, "1 hour") {
		t.Errorf("link mail does not say how long it lasts:\n%s", m.Text)
	}
	env.Clock.Advance(61 * time.Minute)
	expect(t, set(link, "Copper-Valley-88"), 400, "invalid / token")

	// Removing a member ends their sessions.
	member2 := newBrowser(t, env)
	expect(t, member2.signIn("mert", "Granite-Meadow-31"), 200, "")
	expect(t, owner.do("DELETE", fmt.Sprintf("/admin/v1/users/%d", mertID), nil, true), 204, "")
	expect(t, member2.do("GET", "/admin/v1/session", nil, false), 401, "refused / session_invalid")
	expect(t, owner.do("DELETE", fmt.Sprintf("/admin/v1/users/%d", mertID), nil, true), 404, "not_found / not_found")

	// A new member's link lasts 3 days.
	for _, u := range []string{"deniz", "ece"} {
		expect(t, owner.do("POST", "/admin/v1/users", map[string]string{"username": u, "email": u + "@shop.example", "role": "viewer"}, true), 201, "")
	}
	_, deniz := waitMail(t, smtp, 3, "deniz@shop.example")
	_, ece := waitMail(t, smtp, 4, "ece@shop.example")
	env.Clock.Advance(71 * time.Hour)
	expect(t, set(deniz, "Harbour-Lantern-47"), 200, "")
	env.Clock.Advance(2 * time.Hour)
	expect(t, set(ece, "Harbour-Lantern-48"), 400, "invalid / token")
}

func TestPasswordResetAndChange(t *testing.T) {
	env, smtp, owner := newMembersEnv(t)
	reset := func(email string) apptest.Response {
		return env.Do("POST", "/admin/v1/session/password-reset", map[string]string{"email": email}, nil)
	}
	// The answer is the same for a stranger's address and a member's.
	for _, addr := range []string{"nobody@else.example", "not an address", "OLGA@shop.example"} {
		res := reset(addr)
		expect(t, res, 202, "")
		if res.JSON["requested"] != true || len(res.JSON) != 1 {
			t.Fatalf("reset %q: %s", addr, res)
		}
	}
	expect(t, reset(" "), 400, "invalid / email_required")
	m, token := waitMail(t, smtp, 1, "olga@shop.example")
	if !strings.Contains(m.Text, "1 hour") {
		t.Errorf("reset mail:\n%s", m.Text)
	}
	if n := len(smtp.Messages()); n != 1 {
		t.Fatalf("%d mails for one member's address", n)
	}

	// A reset ends every session of the member.
	expect(t, env.Do("POST", "/admin/v1/session/password", map[string]string{"token": token, "password": "Silver-Orchard-12"}, nil), 200, "")
	expect(t, owner.do("GET", "/admin/v1/session", nil, false), 401, "refused / session_invalid")
	expect(t, owner.signIn("olga", olgaPassword), 401, "refused / credentials_invalid")
	expect(t, owner.signIn("olga", "Silver-Orchard-12"), 200, "")

	// Changing one's password needs the current one.
	change := func(current, pw string) apptest.Response {
		return owner.do("POST", "/admin/v1/session/password-change", map[string]string{"current_password": current, "password": pw}, true)
	}
	expect(t, change("wrong-password-1", "Golden-Harbor-55"), 400, "invalid / current_password")
	expect(t, change("Silver-Orchard-12", "olga-password-9"), 400, "invalid / password_names_account")
	res := change("Silver-Orchard-12", "Golden-Harbor-55")
	expect(t, res, 200, "")
	if res.JSON["changed"] != true {
		t.Fatalf("change: %s", res)
	}
	// The caller's session stays.
	expect(t, owner.do("GET", "/admin/v1/session", nil, false), 200, "")
	if a := activity(t, env, "user.password_changed"); len(a) != 1 || a[0].ActorName != "olga" {
		t.Fatalf("history: %+v", a)
	}
}

// TestMembersWithoutMailServer: without an SMTP host the member is added and the
// answer says the e-mail was not sent.
func TestMembersWithoutMailServer(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	env.User(access.NewUser{Username: "olga", Email: "olga@shop.example", Role: "owner", Password: olgaPassword})
	owner := newBrowser(t, env)
	expect(t, owner.signIn("olga", olgaPassword), 200, "")
	res := owner.do("POST", "/admin/v1/users", map[string]string{"username": "mert", "email": "mert@shop.example", "role": "viewer"}, true)
	expect(t, res, 201, "")
	if res.JSON["mailed"] != false {
		t.Fatalf("mailed without a mail server: %s", res)
	}
}

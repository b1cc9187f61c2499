package admin_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
)

// TestSecretsOverHTTP: signing and mail-event passwords are made, listed and revoked
// in an owner's or manager's panel session; the password is in the creation answer
// only; a key, a moderator and a viewer are refused; every change is in the activity
// history; a revoked password is refused at once where it signed requests.
func TestSecretsOverHTTP(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.User(access.NewUser{Username: "olga", Email: "olga@shop.example", Role: "owner", Password: olgaPassword})
	env.User(access.NewUser{Username: "mira", Email: "mira@shop.example", Role: "manager", Password: olgaPassword})
	env.User(access.NewUser{Username: "moda", Email: "moda@shop.example", Role: "moderator", Password: olgaPassword})
	env.User(access.NewUser{Username: "vera", Email: "vera@shop.example", Role: "viewer", Password: olgaPassword})
	owner, manager := newBrowser(t, env), newBrowser(t, env)
	expect(t, owner.signIn("olga", olgaPassword), 200, "")
	expect(t, manager.signIn("mira", olgaPassword), 200, "")

	res := owner.do("POST", "/admin/v1/secrets", map[string]string{"purpose": "signing", "channel": "web-tr"}, true)
	expect(t, res, 201, "")
	signing, _ := res.JSON["password"].(string)
	signingID, _ := res.JSON["id"].(string)
	if signing == "" || !strings.HasPrefix(signingID, "pw_") || res.JSON["purpose"] != "signing" || res.JSON["channel"] != "web-tr" {
		t.Fatalf("signing password: %s", res)
	}
	res = manager.do("POST", "/admin/v1/secrets", map[string]string{"purpose": "mail_events"}, true)
	expect(t, res, 201, "")
	mail, _ := res.JSON["password"].(string)
	mailID, _ := res.JSON["id"].(string)
	if mail == "" || res.JSON["purpose"] != "mail_events" || res.JSON["channel"] != nil {
		t.Fatalf("mail-event password: %s", res)
	}
	for _, tc := range []struct {
		body any
		code string
	}{
		{map[string]string{}, "invalid / purpose_required"},
		{map[string]string{"purpose": "notification"}, "invalid / purpose"},
		{map[string]string{"purpose": "login"}, "invalid / purpose"},
		{map[string]string{"purpose": "signing"}, "invalid / channel_required"},
		{map[string]string{"purpose": "signing", "channel": "nope"}, "invalid / channel"},
	} {
		expect(t, owner.do("POST", "/admin/v1/secrets", tc.body, true), 400, tc.code)
	}

	// The list: both rows, never a password; the shared list contract.
	res = manager.do("GET", "/admin/v1/secrets", nil, false)
	expect(t, res, 200, "")
	if res.JSON["total"] != float64(2) || res.JSON["page"] != float64(1) || res.JSON["page_size"] != float64(25) ||
		strings.Contains(string(res.Body), signing) || strings.Contains(string(res.Body), mail) || strings.Contains(string(res.Body), "password") {
		t.Fatalf("secret list: %s", res)
	}
	res = owner.do("GET", "/admin/v1/secrets?q=signing", nil, false)
	if items := res.JSON["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != signingID {
		t.Fatalf("secret list q=signing: %s", res)
	}
	expect(t, owner.do("GET", "/admin/v1/secrets?sort=sideways", nil, false), 400, "invalid / sort")

	// Keys, moderators and viewers are refused.
	hk := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read", "moderate", "export", "write")}
	for _, c := range []struct{ method, path string }{
		{"GET", "/admin/v1/secrets"}, {"POST", "/admin/v1/secrets"}, {"DELETE", "/admin/v1/secrets/" + signingID},
	} {
		expect(t, env.Do(c.method, c.path, map[string]string{}, hk), 403, "forbidden / scope_missing")
	}
	for _, name := range []string{"moda", "vera"} {
		b := newBrowser(t, env)
		expect(t, b.signIn(name, olgaPassword), 200, "")
		expect(t, b.do("GET", "/admin/v1/secrets", nil, false), 403, "forbidden / scope_missing")
		expect(t, b.do("POST", "/admin/v1/secrets", map[string]string{"purpose": "mail_events"}, true), 403, "forbidden / scope_missing")
		expect(t, b.do("DELETE", "/admin/v1/secrets/"+mailID, nil, true), 403, "forbidden / scope_missing")
	}

	// Deleting a password in use: refused at once where it signed requests; the row
	// stays listed with revoked_at; a second delete is not found.
	mailEvent := func() apptest.Response {
		raw := `{"events":[]}`
		ts := env.Clock.T.Format(time.RFC3339)
		mac := hmac.New(sha256.New, []byte(mail))
		mac.Write([]byte(ts + "." + raw))
		return env.Do("POST", "/v1/mail-events/generic", raw, map[string]string{"X-Service-Secret": mailID,
			"X-Service-Timestamp": ts, "X-Service-Signature": hex.EncodeToString(mac.Sum(nil))})
	}
	if res := mailEvent(); strings.Contains(string(res.Body), "secret_unknown") || res.Status == 401 {
		t.Fatalf("mail event before revoking: %s", res)
	}
	expect(t, manager.do("DELETE", "/admin/v1/secrets/"+mailID, nil, true), 204, "")
	if res := mailEvent(); res.Status != 401 || !strings.Contains(string(res.Body), "secret_unknown") {
		t.Fatalf("mail event after revoking: %s", res)
	}
	expect(t, manager.do("DELETE", "/admin/v1/secrets/"+mailID, nil, true), 404, "not_found / not_found")
	res = owner.do("GET", "/admin/v1/secrets?q="+mailID, nil, false)
	if items := res.JSON["items"].([]any); len(items) != 1 || items[0].(map[string]any)["revoked_at"] == nil {
		t.Fatalf("revoked secret row: %s", res)
	}
	// The notification password is not managed here.
	notice, _ := env.Password("notification", "")
	expect(t, owner.do("DELETE", "/admin/v1/secrets/"+notice, nil, true), 404, "not_found / not_found")

	if a := activity(t, env, "password.created"); len(a) != 3 || a[2].ActorName != "olga" || a[2].TargetID != signingID || a[1].ActorName != "mira" {
		t.Fatalf("creation history: %+v", a)
	}
	if a := activity(t, env, "password.revoked"); len(a) != 1 || a[0].ActorName != "mira" || a[0].TargetID != mailID {
		t.Fatalf("revocation history: %+v", a)
	}
}

package admin_test

import (
	"context"
	"strings"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/store"
)

const ownerPassword = "Copper-Lantern-77"

// ownerEnv is an installation with a TR channel, a signed-in owner in a browser and
// API keys with write, read and export scopes.
type ownerEnv struct {
	env    *apptest.Env
	owner  *browser
	write  map[string]string // Authorization header of a write key
	read   map[string]string
	export map[string]string
}

func newOwnerEnv(t *testing.T) *ownerEnv {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.User(access.NewUser{Username: "omer",
		Email: "omer@shop.example", Role: "owner", Password: ownerPassword})
	b := newBrowser(t, env)
	expect(t, b.signIn("omer", ownerPassword), 200, "")
	key := func(scopes ...string) map[string]string {
		return map[string]string{"Authorization": "Api-Key " + env.Key("api", "", scopes...)}
	}
	return &ownerEnv{env: env, owner: b, write: key("write"), read: key("read"), export: key("export")}
}

func activityEntries(t *testing.T, env *apptest.Env, action string) []store.Activity {
	t.Helper()
	list, _, err := env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestSettingsDefaultsAndPartialUpdate: GET answers the defaults; POST changes
// only the fields sent and answers the full object.
func TestSettingsDefaultsAndPartialUpdate(t *testing.T) {
	o := newOwnerEnv(t)
	res := o.env.Do("GET", "/admin/v1/settings", nil, o.write)
	expect(t, res, 200, "")
	want := map[string]any{"time_zone": "Europe/Istanbul", "questions_enabled": false, "reply_tone": "formal",
		"ai_translation_enabled": false, "ai_summary_enabled": false, "syndication_enabled": false,
		"reminder_consent": "not_required", "invite_delivery": "email", "reminder_delivery": "email", "webhook_url": "",
		"support_url": "", "sender_address": "", "invite_delay_days": float64(2), "send_window": "09:00-21:00",
		"daily_limit": float64(1), "reminder_after_days": float64(7), "publishing_method": "hybrid", "has_webhook_secret": false}
	for k, v := range want {
		if res.JSON[k] != v {
			t.Errorf("%s = %v, want %v", k, res.JSON[k], v)
		}
	}
	if d, _ := res.JSON["deliveries"].([]any); len(d) != 2 || d[0] != "email" || d[1] != "webhook" {
		t.Errorf("deliveries = %v", res.JSON["deliveries"])
	}

	res = o.env.Do("POST", "/admin/v1/settings", map[string]any{"invite_delay_days": 3, "questions_enabled": true, "unknown": 1}, o.write)
	expect(t, res, 200, "")
	if res.JSON["invite_delay_days"] != float64(3) || res.JSON["questions_enabled"] != true || res.JSON["daily_limit"] != float64(1) {
		t.Fatalf("after update: %s", res.Body)
	}
	if got := o.env.Do("GET", "/admin/v1/settings", nil, o.write); got.JSON["invite_delay_days"] != float64(3) {
		t.Fatalf("not saved: %s", got.Body)
	}
	if n := len(activityEntries(t, o.env, "settings.changed")); n != 1 {
		t.Fatalf("settings.changed entries = %d, want 1", n)
	}
	// Read keys cannot see or change settings (write permission).
	expect(t, o.env.Do("GET", "/admin/v1/settings", nil, o.read), 403, "forbidden / scope_missing")
	expect(t, o.env.Do("POST", "/admin/v1/settings", map[string]any{"daily_limit": 2}, o.read), 403, "forbidden / scope_missing")
}

// TestSettingsErrors is the table of refusals of POST /admin/v1/settings.
func TestSettingsErrors(t *testing.T) {
	o := newOwnerEnv(t)
	long := "https://hooks.shop.example/" + strings.Repeat("a", 480)
	cases := []struct {
		name string
		body map[string]any
		code string
	}{
		{"delay over 60", map[string]any{"invite_delay_days": 61}, "invalid / invite_delay_days"},
		{"delay negative", map[string]any{"invite_delay_days": -1}, "invalid / invite_delay_days"},
		{"delay as text", map[string]any{"invite_delay_days": "3"}, "invalid / invite_delay_days"},
		{"daily limit 0", map[string]any{"daily_limit": 0}, "invalid / daily_limit"},
		{"reminder days", map[string]any{"reminder_after_days": 61}, "invalid / reminder_after_days"},
		{"window", map[string]any{"send_window": "9-21"}, "invalid / send_window"},
		{"time zone", map[string]any{"time_zone": "Mars/Olympus"}, "invalid / time_zone"},
		{"publishing", map[string]any{"publishing_method": "auto"}, "invalid / publishing_method"},
		{"tone", map[string]any{"reply_tone": "casual"}, "invalid / reply_tone"},
		{"consent", map[string]any{"reminder_consent": "maybe"}, "invalid / reminder_consent"},
		{"null", map[string]any{"daily_limit": nil}, "invalid / daily_limit"},
		{"messaging app", map[string]any{"invite_delivery": "whatsapp"}, "invalid / invite_delivery_unavailable"},
		{"reminder route", map[string]any{"reminder_delivery": "sms"}, "invalid / reminder_delivery_unavailable"},
		{"webhook without address", map[string]any{"invite_delivery": "webhook"}, "invalid / webhook_url_required"},
		{"webhook without password", map[string]any{"invite_delivery": "webhook", "webhook_url": "https://hooks.shop.example/r"}, "invalid / webhook_secret_missing"},
		{"address not https", map[string]any{"webhook_url": "http://hooks.shop.example/r"}, "invalid / url_invalid"},
		{"address unreadable", map[string]any{"webhook_url": "hooks"}, "invalid / url_invalid"},
		{"address too long", map[string]any{"webhook_url": long}, "invalid / url_invalid"},
		{"support not https", map[string]any{"support_url": "ftp://shop.example"}, "invalid / url_invalid"},
		{"sender unreadable", map[string]any{"sender_address": "not-an-address"}, "invalid / sender_address"},
		{"sender domain", map[string]any{"sender_address": "news@elsewhere.example"}, "invalid / sender_domain_unverified"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expect(t, o.owner.do("POST", "/admin/v1/settings", tc.body, true), 400, tc.code)
		})
	}
	expect(t, o.owner.do("POST", "/admin/v1/settings", "[1]", true), 400, "invalid_json / invalid_json")
	// Nothing was saved by any refused request.
	if n := len(activityEntries(t, o.env, "settings.changed")); n != 0 {
		t.Fatalf("settings.changed entries = %d", n)
	}
	expect(t, o.owner.do("POST", "/admin/v1/settings", map[string]any{"sender_address": "news@shop.example",
		"support_url": "https://shop.example/help"}, true), 200, "")
}

// TestSettingsRouteFieldsNeedPanel: route fields change only in a panel session
// (403 refused / panel_session_required with a key); the other settings in the
// same request are saved (spec 3, rule 3); unchanged route fields sent back by a
// key are fine; the webhook password is panel-only too.
func TestSettingsRouteFieldsNeedPanel(t *testing.T) {
	o := newOwnerEnv(t)
	for _, f := range []map[string]any{
		{"invite_delivery": "webhook", "webhook_url": "https://hooks.shop.example/r"},
		{"webhook_url": "https://hooks.shop.example/r"},
		{"reminder_delivery": "webhook"},
		{"support_url": "https://shop.example/help"},
		{"sender_address": "news@shop.example"},
	} {
		expect(t, o.env.Do("POST", "/admin/v1/settings", f, o.write), 403, "refused / panel_session_required")
	}
	if got := o.env.Do("GET", "/admin/v1/settings", nil, o.write); got.JSON["invite_delivery"] != "email" ||
		got.JSON["webhook_url"] != "" || got.JSON["support_url"] != "" || got.JSON["sender_address"] != "" {
		t.Fatalf("a refused request changed settings: %s", got.Body)
	}
	// The route fields are refused, the other setting in the request is saved.
	res := o.env.Do("POST", "/admin/v1/settings", map[string]any{"sender_address": "news@shop.example", "daily_limit": 2,
		"support_url": "https://shop.example/help"}, o.write)
	expect(t, res, 403, "refused / panel_session_required")
	if r, _ := res.JSON["refused_fields"].([]any); len(r) != 2 || r[0] != "support_url" || r[1] != "sender_address" {
		t.Fatalf("refused_fields: %s", res)
	}
	if s, _ := res.JSON["saved_fields"].([]any); len(s) != 1 || s[0] != "daily_limit" {
		t.Fatalf("saved_fields: %s", res)
	}
	if got := o.env.Do("GET", "/admin/v1/settings", nil, o.write); got.JSON["daily_limit"] != float64(2) ||
		got.JSON["sender_address"] != "" || got.JSON["support_url"] != "" {
		t.Fatalf("after a partly refused request: %s", got.Body)
	}
	expect(t, o.env.Do("POST", "/admin/v1/settings/webhook-secret", nil, o.write), 403, "refused / panel_session_required")

	// The panel creates the password (shown once) and turns own-system sending on.
	res = o.owner.do("POST", "/admin/v1/settings/webhook-secret", nil, true)
	expect(t, res, 201, "")
	if id, _ := res.JSON["id"].(string); !strings.HasPrefix(id, "pw_") || res.JSON["password"] == "" {
		t.Fatalf("webhook secret answer %s", res.Body)
	}
	res = o.owner.do("POST", "/admin/v1/settings", map[string]any{"invite_delivery": "webhook", "webhook_url": "https://hooks.shop.example/r"}, true)
	expect(t, res, 200, "")
	if res.JSON["invite_delivery"] != "webhook" || res.JSON["has_webhook_secret"] != true {
		t.Fatalf("after panel change: %s", res.Body)
	}

	// A key may send the whole object back with the route fields unchanged.
	full := o.env.Do("GET", "/admin/v1/settings", nil, o.write).JSON
	full["daily_limit"] = 3
	expect(t, o.env.Do("POST", "/admin/v1/settings", full, o.write), 200, "")
	a := activityEntries(t, o.env, "settings.changed")
	if len(a) != 3 || a[0].ActorType != core.ViaAPIKey || a[1].ActorType != core.ViaSession || a[2].ActorType != core.ViaAPIKey {
		t.Fatalf("activity = %+v", a)
	}
}

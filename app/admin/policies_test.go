package admin_test

import (
	"context"
	"testing"
	"time"

	"reviewd/app/core/access"
	"reviewd/app/core/brand"
)

// policyRows reads GET /admin/v1/policies and returns the rows by id.
func policyRows(t *testing.T, o *ownerEnv, query string) []map[string]any {
	t.Helper()
	res := o.env.Do("GET", "/admin/v1/policies"+query, nil, o.read)
	expect(t, res, 200, "")
	var out []map[string]any
	for _, r := range res.JSON["items"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

// TestPoliciesList: the service's rule of every shipped market with its limits;
// channel narrows to its market; unknown channel is invalid.
func TestPoliciesList(t *testing.T) {
	o := newOwnerEnv(t)
	rows := policyRows(t, o, "")
	if len(rows) != 4 {
		t.Fatalf("rows = %v", rows)
	}
	byMarket := map[string]map[string]any{}
	for _, r := range rows {
		byMarket[r["market"].(string)] = r
		if r["own"] != false || r["in_force"] != true || r["scheduled"] != false {
			t.Fatalf("service row = %v", r)
		}
	}
	tr := byMarket["TR"]
	lim := tr["limits"].(map[string]any)
	if tr["verification_required"] != true || tr["review_window_days"] != float64(180) || lim["verification_locked"] != true ||
		lim["review_window_days_min"] != float64(7) || lim["review_window_days_max"] != float64(365) ||
		len(lim["sort_options"].([]any)) != 1 || tr["version"] != "TR-2026-10" {
		t.Fatalf("TR row = %v", tr)
	}
	if rows := policyRows(t, o, "?channel=web-tr"); len(rows) != 1 || rows[0]["market"] != "TR" {
		t.Fatalf("channel filter = %v", rows)
	}
	expect(t, o.env.Do("GET", "/admin/v1/policies?channel=nope", nil, o.read), 400, "invalid / channel")
}

// TestPolicyCreateAccess: only a panel session with manage-market-rules opens a
// brand version.
func TestPolicyCreateAccess(t *testing.T) {
	o := newOwnerEnv(t)
	body := map[string]any{"market": "GB", "review_window_days": 90}
	expect(t, o.env.Do("POST", "/admin/v1/policies", body, o.write), 403, "forbidden / panel_session_required")
	expect(t, o.env.Do("POST", "/admin/v1/policies", body, o.read), 403, "forbidden / scope_missing")
	o.env.User(access.NewUser{Username: "mod",
		Email: "mod@shop.example", Role: "moderator", Password: "Quiet-Meadow-58"})
	mod := newBrowser(t, o.env)
	expect(t, mod.signIn("mod", "Quiet-Meadow-58"), 200, "")
	expect(t, mod.do("POST", "/admin/v1/policies", body, true), 403, "forbidden / scope_missing")
	expect(t, o.owner.do("POST", "/admin/v1/policies", body, false), 403, "forbidden / csrf_missing")
	res := o.owner.do("POST", "/admin/v1/policies", body, true)
	expect(t, res, 201, "")
	if res.JSON["own"] != true || res.JSON["in_force"] != true || res.JSON["review_window_days"] != float64(90) ||
		res.JSON["created_by"] != "omer" {
		t.Fatalf("created = %s", res.Body)
	}
}

// TestPolicyValidation: every refusal of POST /admin/v1/policies.
func TestPolicyValidation(t *testing.T) {
	o := newOwnerEnv(t)
	o.env.Channel("web-uk", "GB", "en")
	past := o.env.Clock.T.Add(-time.Minute).Format(time.RFC3339)
	cases := []struct {
		name string
		body map[string]any
		want string
	}{
		{"no market", map[string]any{"review_window_days": 30}, "invalid / market_required"},
		{"unknown market", map[string]any{"market": "FR"}, "invalid / market"},
		{"unknown channel", map[string]any{"channel": "nope"}, "invalid / channel"},
		{"channel of another market", map[string]any{"market": "TR", "channel": "web-uk"}, "invalid / channel_market_mismatch"},
		{"verification locked", map[string]any{"market": "TR", "verification_required": false}, "invalid / verification_locked"},
		{"verification not boolean", map[string]any{"market": "GB", "verification_required": "yes"}, "invalid / verification_required"},
		{"window 6", map[string]any{"market": "GB", "review_window_days": 6}, "invalid / review_window_days_out_of_range"},
		{"window 366", map[string]any{"market": "GB", "review_window_days": 366}, "invalid / review_window_days_out_of_range"},
		{"window fraction", map[string]any{"market": "GB", "review_window_days": 30.5}, "invalid / review_window_days"},
		{"sort not offered", map[string]any{"market": "TR", "allowed_sort_options": []string{"newest", "helpful"}}, "invalid / sort_not_offered: helpful"},
		{"unknown sort", map[string]any{"market": "GB", "allowed_sort_options": []string{"random"}}, "invalid / sort_not_offered: random"},
		{"no sorts", map[string]any{"market": "GB", "allowed_sort_options": []string{}}, "invalid / allowed_sort_options_required"},
		{"sorts not a list", map[string]any{"market": "GB", "allowed_sort_options": "newest"}, "invalid / allowed_sort_options"},
		{"default not among", map[string]any{"market": "GB", "allowed_sort_options": []string{"newest", "oldest"}, "default_sort_option": "helpful"}, "invalid / default_sort_not_allowed"},
		{"default alone not among", map[string]any{"market": "TR", "default_sort_option": "oldest"}, "invalid / default_sort_not_allowed"},
		{"valid_from past", map[string]any{"market": "GB", "valid_from": past}, "invalid / valid_from_past"},
		{"valid_from unreadable", map[string]any{"market": "GB", "valid_from": "tomorrow"}, "invalid / valid_from"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expect(t, o.owner.do("POST", "/admin/v1/policies", tc.body, true), 400, tc.want)
		})
	}
	if n := len(policyRows(t, o, "")); n != 4 {
		t.Fatalf("a refused request stored a version: %d rows", n)
	}
}

// TestPolicyValidFrom: a version with a future valid_from is scheduled and takes
// effect when its time comes; a channel version wins over the market's; RuleFor,
// the method statement and the review window follow.
func TestPolicyValidFrom(t *testing.T) {
	o := newOwnerEnv(t)
	o.env.Channel("web-uk", "GB", "en")
	o.env.Channel("web-uk2", "GB", "en")
	from := o.env.Clock.T.Add(24 * time.Hour)
	res := o.owner.do("POST", "/admin/v1/policies", map[string]any{"market": "GB", "verification_required": true,
		"review_window_days": 30, "allowed_sort_options": []string{"oldest", "newest"}, "valid_from": from.Format(time.RFC3339)}, true)
	expect(t, res, 201, "")
	if res.JSON["scheduled"] != true || res.JSON["in_force"] != false || res.JSON["default_sort_option"] != "newest" ||
		len(res.JSON["allowed_sort_options"].([]any)) != 2 || res.JSON["allowed_sort_options"].([]any)[0] != "newest" {
		t.Fatalf("scheduled version = %s", res.Body)
	}
	c := o.env.App
	rule := func(channel string) brand.MarketRule {
		t.Helper()
		ch, err := c.DB.Read().ChannelByCode(context.Background(), channel)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := o.env.App.Brand.RuleFor(context.Background(), c.DB.Read(), "GB", ch.ID, o.env.Clock.T)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := rule("web-uk"); r.Own || r.ReviewWindowDays != 365 {
		t.Fatalf("before valid_from: %+v", r)
	}
	o.env.Clock.T = from
	if r := rule("web-uk"); !r.Own || r.ReviewWindowDays != 30 || !r.VerificationRequired {
		t.Fatalf("at valid_from: %+v", r)
	}
	for _, r := range policyRows(t, o, "?channel=web-uk") {
		if r["own"] == true && (r["in_force"] != true || r["scheduled"] != false) {
			t.Fatalf("version row after valid_from = %v", r)
		}
		if r["own"] == false && r["in_force"] != false {
			t.Fatalf("service row after valid_from = %v", r)
		}
	}
	// A channel version applies to that channel only (a day later: a new sign-in).
	expect(t, o.owner.signIn("omer", ownerPassword), 200, "")
	expect(t, o.owner.do("POST", "/admin/v1/policies", map[string]any{"channel": "web-uk2", "review_window_days": 14}, true), 201, "")
	if r := rule("web-uk2"); r.ReviewWindowDays != 14 || !r.VerificationRequired {
		t.Fatalf("channel version (keeps the market version's other values): %+v", r)
	}
	if r := rule("web-uk"); r.ReviewWindowDays != 30 {
		t.Fatalf("other channel: %+v", r)
	}
	rows := policyRows(t, o, "")
	inForce := 0
	for _, r := range rows {
		if r["market"] == "GB" && r["in_force"] == true {
			inForce++
		}
	}
	if inForce != 2 {
		t.Fatalf("GB rows in force (market version and channel version) = %d: %v", inForce, rows)
	}
	// The statement reflects the rule.
	st := o.env.Do("GET", "/admin/v1/method-statement?channel=web-uk&lang=en", nil, o.read)
	if s := st.JSON["items"].([]any)[0].(map[string]any)["statement"].(map[string]any); s["review_window_days"] != float64(30) ||
		s["verification_required"] != true {
		t.Fatalf("statement = %v", s)
	}
}

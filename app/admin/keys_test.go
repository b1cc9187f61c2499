package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/store"
)

// TestKeysOverHTTP: site keys are made, listed and revoked in a panel session, server
// and API keys through POST /admin/v1/channels kind api_key; lists never show a
// server or API key's secret; every key is refused the key, user and channel
// endpoints.
func TestKeysOverHTTP(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.User(access.NewUser{Username: "olga", Email: "olga@shop.example", Role: "owner", Password: olgaPassword})
	env.User(access.NewUser{Username: "vera", Email: "vera@shop.example", Role: "viewer", Password: olgaPassword})
	owner := newBrowser(t, env)
	expect(t, owner.signIn("olga", olgaPassword), 200, "")

	// Site key: 201 with the key, listed with it (it is public).
	res := owner.do("POST", "/admin/v1/keys", map[string]string{"kind": "site", "channel": "web-tr", "label": "store pages"}, true)
	expect(t, res, 201, "")
	site, _ := res.JSON["key"].(string)
	siteID, _ := res.JSON["id"].(string)
	if !strings.HasPrefix(site, "rvd_site_") || res.JSON["kind"] != "site" || res.JSON["channel"] != "web-tr" || res.JSON["label"] != "store pages" {
		t.Fatalf("site key: %s", res)
	}
	expect(t, owner.do("POST", "/admin/v1/keys", map[string]string{"kind": "server", "channel": "web-tr"}, true), 400, "invalid / kind")
	expect(t, owner.do("POST", "/admin/v1/keys", map[string]string{"kind": "site", "channel": "nope"}, true), 400, "invalid / channel")

	// Rule 1: server key without scopes, API key with them.
	res = owner.do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "shop server", "channel": "web-tr"}, true)
	expect(t, res, 201, "")
	server, _ := res.JSON["key"].(string)
	if res.JSON["kind"] != "server" || strings.Join(toStrings(res.JSON["scopes"]), ",") != "orders,ssr" || res.JSON["channel"] != "web-tr" {
		t.Fatalf("server key: %s", res)
	}
	res = owner.do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "reporting", "scopes": []string{"read", "export"}}, true)
	expect(t, res, 201, "")
	api, _ := res.JSON["key"].(string)
	if res.JSON["kind"] != "api" || strings.Join(toStrings(res.JSON["scopes"]), ",") != "read,export" || res.JSON["channel"] != nil {
		t.Fatalf("api key: %s", res)
	}
	for _, tc := range []struct {
		body any
		code string
	}{
		{map[string]any{"kind": "api_key", "label": "x", "scopes": []string{}}, "invalid / scopes_required"},
		{map[string]any{"kind": "api_key", "label": "x", "scopes": []string{"read", "delete"}}, "invalid / unknown_scope: delete"},
		{map[string]any{"kind": "api_key", "label": "x", "scopes": []string{"write"}}, "invalid / scope_reserved: write"},
		{map[string]any{"kind": "api_key", "label": "x"}, "invalid / channel_required"},
	} {
		expect(t, owner.do("POST", "/admin/v1/channels", tc.body, true), 400, tc.code)
	}

	// The list: every key, secrets of server and API keys never.
	res = owner.do("GET", "/admin/v1/keys", nil, false)
	expect(t, res, 200, "")
	if res.JSON["total"] != float64(3) || strings.Contains(string(res.Body), server) || strings.Contains(string(res.Body), api) || !strings.Contains(string(res.Body), site) {
		t.Fatalf("key list: %s", res)
	}

	// The API key works where its scopes allow, and is refused every user, key and
	// channel endpoint.
	hk := map[string]string{"Authorization": "Api-Key " + api}
	expect(t, env.Do("GET", "/admin/v1/reviews", nil, hk), 200, "")
	for _, c := range []struct{ method, path string }{
		{"GET", "/admin/v1/users"}, {"POST", "/admin/v1/users"}, {"PATCH", "/admin/v1/users/1"}, {"DELETE", "/admin/v1/users/1"},
		{"POST", "/admin/v1/users/1/password-link"}, {"GET", "/admin/v1/keys"}, {"POST", "/admin/v1/keys"},
		{"DELETE", "/admin/v1/keys/" + siteID}, {"POST", "/admin/v1/channels"},
	} {
		expect(t, env.Do(c.method, c.path, map[string]string{}, hk), 403, "forbidden / scope_missing")
	}
	all := env.Key("api", "", "read", "moderate", "export", "write")
	expect(t, env.Do("GET", "/admin/v1/users", nil, map[string]string{"Authorization": "Api-Key " + all}), 403, "forbidden / scope_missing")

	// A viewer manages no keys.
	viewer := newBrowser(t, env)
	expect(t, viewer.signIn("vera", olgaPassword), 200, "")
	expect(t, viewer.do("GET", "/admin/v1/keys", nil, false), 403, "forbidden / scope_missing")

	// Revoking: the site key is then refused on the storefront.
	storeRead := func() apptest.Response {
		return env.Do("GET", "/v1/reviews/list?product=p1&key="+site, nil, map[string]string{"Origin": "https://shop.example"})
	}
	if res := storeRead(); res.Status != 200 {
		t.Fatalf("site key before revoking: %s", res)
	}
	expect(t, owner.do("DELETE", "/admin/v1/keys/"+siteID, nil, true), 204, "")
	expect(t, storeRead(), 403, "refused / revoked_site_key")
	expect(t, owner.do("DELETE", "/admin/v1/keys/"+siteID, nil, true), 404, "not_found / not_found")
	res = owner.do("GET", "/admin/v1/keys?q="+siteID, nil, false)
	if items := res.JSON["items"].([]any); len(items) != 1 || items[0].(map[string]any)["revoked_at"] == nil {
		t.Fatalf("revoked key row: %s", res)
	}
	if a := activity(t, env, "key.revoked"); len(a) != 1 || a[0].ActorName != "olga" || a[0].TargetID != siteID {
		t.Fatalf("revocation history: %+v", a)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestKeyChangesInHistory (spec 3, rule 5): a change made with a key is in the
// activity history under the key's name; a read that shows personal data is in the
// access log with the key as its actor.
func TestKeyChangesInHistory(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	k, err := env.App.Access.CreateKey(context.Background(), core.Console(), access.NewKey{Kind: access.KindAPI,
		Scopes: []string{"read", "write"}, Label: "erp sync", AllowWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	hk := map[string]string{"Authorization": "Api-Key " + k.Secret}
	expect(t, env.Do("POST", "/admin/v1/settings", map[string]any{"questions_enabled": true}, hk), 200, "")
	a := activity(t, env, "settings.changed")
	if len(a) != 1 || a[0].ActorName != "erp sync" || a[0].ActorType != core.ViaAPIKey || a[0].ActorID != k.PublicID {
		t.Fatalf("settings change with a key: %+v", a)
	}
	expect(t, env.Do("GET", "/admin/v1/reviews?q=someone@mail.example", nil, hk), 200, "")
	got, _, err := env.App.DB.Read().ListAccess(context.Background(), store.AccessFilter{Action: "reviews.searched"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ActorID != k.PublicID || got[0].Via != "api_key" {
		t.Fatalf("search with a key in the access log: %+v", got)
	}
}

// TestKeyLastUsed: the key list shows when each key last authenticated (server key
// on ingest, site key on the storefront, API key on the management API). It is
// written at most once a minute per key, outside the request, and does not move the
// read generation the storefront's caches hang on.
func TestKeyLastUsed(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.User(access.NewUser{Username: "olga", Email: "olga@shop.example", Role: "owner", Password: olgaPassword})
	owner := newBrowser(t, env)
	expect(t, owner.signIn("olga", olgaPassword), 200, "")
	server, site, api := env.Key("server", "web-tr"), env.Key("site", "web-tr"), env.Key("api", "", "read")
	lastUsed := func() map[string]any {
		t.Helper()
		res := owner.do("GET", "/admin/v1/keys", nil, false)
		expect(t, res, 200, "")
		out := map[string]any{}
		for _, it := range res.JSON["items"].([]any) {
			row := it.(map[string]any)
			out[row["kind"].(string)] = row["last_used_at"]
		}
		return out
	}
	for kind, v := range lastUsed() {
		if v != nil {
			t.Fatalf("unused %s key: last_used_at %v", kind, v)
		}
	}
	generation := func() int64 {
		n, _, err := env.App.DB.Read().ReadState(context.Background(), "variant", "p1")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	gen := generation()
	use := func() {
		t.Helper()
		expect(t, env.Do("POST", "/v1/ingest/orders", map[string]any{"channel": "web-tr", "orders": []any{}},
			map[string]string{"Authorization": "Bearer " + server}), 400, "")
		expect(t, env.Do("GET", "/v1/reviews/list?product=p1&key="+site, nil, map[string]string{"Origin": "https://shop.example"}), 200, "")
		expect(t, env.Do("GET", "/admin/v1/reviews", nil, map[string]string{"Authorization": "Api-Key " + api}), 200, "")
	}
	all := func(want string) {
		t.Helper()
		apptest.Eventually(t, "last_used_at "+want, 5*time.Second, func() (bool, string) {
			got := lastUsed()
			return got["server"] == want && got["site"] == want && got["api"] == want, fmt.Sprint(got)
		})
	}
	first := env.Clock.T.Format(time.RFC3339)
	use()
	all(first)
	// Used again within the minute: not written (else the use 20 seconds later,
	// 70 after the first, would be within the minute of it and the list would
	// keep showing the second).
	env.Clock.T = env.Clock.T.Add(50 * time.Second)
	use()
	env.Clock.T = env.Clock.T.Add(20 * time.Second)
	later := env.Clock.T.Format(time.RFC3339)
	use()
	all(later)
	if g := generation(); g != gen {
		t.Fatalf("key uses moved the read generation from %d to %d", gen, g)
	}
}

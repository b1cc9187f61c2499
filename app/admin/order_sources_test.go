package admin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/app/core/orders"
	"reviewd/app/platform/platformtest"
	"reviewd/store"
)

// sourcePanel is an installation with channels web-tr and web-gb and a signed-in
// manager (change-settings).
type sourcePanel struct {
	env *apptest.Env
	b   *browser
}

func newSourcePanel(t *testing.T) *sourcePanel {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.Channel("web-gb", "GB", "en")
	env.User(access.NewUser{Username: "mert",
		Email: "mert@shop.example", Role: "manager", Password: "Copper-Lantern-58"})
	b := newBrowser(t, env)
	expect(t, b.signIn("mert", "Copper-Lantern-58"), 200, "")
	return &sourcePanel{env: env, b: b}
}

func (p *sourcePanel) do(method, path string, body any) apptest.Response {
	return p.b.do(method, path, body, method != "GET")
}

func shopifyBody(s *platformtest.Shopify, channel string) map[string]any {
	return map[string]any{"platform": "shopify", "channel": channel, "base_url": platformtest.ShopifyHost,
		"client_id": s.ClientID, "client_secret": s.ClientSecret}
}

// TestOrderSourceAccess: connections are managed only in a panel session with the
// change-settings permission.
func TestOrderSourceAccess(t *testing.T) {
	p := newSourcePanel(t)
	res := p.do("POST", "/admin/v1/order-sources", map[string]any{"platform": "woocommerce", "channel": "web-tr",
		"base_url": "woo.shop.example", "consumer_key": "ck_1", "consumer_secret": "cs_1"})
	expect(t, res, 201, "")
	id := res.JSON["id"].(string)
	writeKey := p.env.Key("api", "", "read", "write")
	readKey := p.env.Key("api", "", "read", "export")
	moderator := newBrowser(t, p.env)
	p.env.User(access.NewUser{Username: "deniz",
		Email: "deniz@shop.example", Role: "moderator", Password: "Walnut-Harbor-91"})
	expect(t, moderator.signIn("deniz", "Walnut-Harbor-91"), 200, "")
	routes := [][2]string{{"GET", "/admin/v1/order-sources"}, {"POST", "/admin/v1/order-sources"},
		{"POST", "/admin/v1/order-sources/check"}, {"GET", "/admin/v1/order-sources/" + id},
		{"PATCH", "/admin/v1/order-sources/" + id}, {"DELETE", "/admin/v1/order-sources/" + id},
		{"POST", "/admin/v1/order-sources/" + id + "/check"}, {"POST", "/admin/v1/order-sources/" + id + "/run"}}
	for _, rt := range routes {
		body := map[string]any{"enabled": true}
		expect(t, p.env.Do(rt[0], rt[1], body, map[string]string{"Authorization": "Api-Key " + writeKey}), 403, "forbidden / panel_session_required")
		expect(t, p.env.Do(rt[0], rt[1], body, map[string]string{"Authorization": "Api-Key " + readKey}), 403, "forbidden / scope_missing")
		expect(t, moderator.do(rt[0], rt[1], body, true), 403, "forbidden / scope_missing")
		expect(t, p.env.Do(rt[0], rt[1], body, nil), 401, "")
	}
	// The connection is still there.
	expect(t, p.do("GET", "/admin/v1/order-sources/"+id, nil), 200, "")
}

// TestOrderSourceRecords: set-up, listing, change and removal, one connection per
// platform per channel, credentials never returned, every change in the activity
// history.
func TestOrderSourceRecords(t *testing.T) {
	p := newSourcePanel(t)
	res := p.do("GET", "/admin/v1/order-sources", nil)
	expect(t, res, 200, "")
	if items := res.JSON["items"].([]any); len(items) != 0 {
		t.Fatalf("items = %v", items)
	}
	var codes []string
	for _, pl := range res.JSON["platforms"].([]any) {
		m := pl.(map[string]any)
		var fields []string
		for _, f := range m["fields"].([]any) {
			fields = append(fields, f.(map[string]any)["name"].(string))
		}
		codes = append(codes, m["code"].(string)+":"+strings.Join(fields, ","))
	}
	if got := strings.Join(codes, " "); got != "shopify:base_url,client_id,client_secret woocommerce:base_url,consumer_key,consumer_secret "+
		"magento:base_url,remote_channel,username,password" {
		t.Fatalf("platforms = %s", got)
	}

	res = p.do("POST", "/admin/v1/order-sources", map[string]any{"platform": "shopify", "channel": "web-tr",
		"base_url": "Acme.myshopify.com/", "client_secret": "shpat_0123456789abcdef", "interval_minutes": 30})
	expect(t, res, 201, "")
	j := res.JSON
	want := map[string]any{"platform": "shopify", "channel": "web-tr", "base_url": "https://acme.myshopify.com",
		"backfill_days": 30.0, "interval_minutes": 30.0, "enabled": true, "has_credentials": true, "channel_active": true,
		"last_run_at": nil, "last_error": nil, "last_report": nil}
	for k, v := range want {
		if j[k] != v {
			t.Errorf("%s = %v, want %v", k, j[k], v)
		}
	}
	if _, ok := j["remote_channel"]; ok || strings.Contains(string(res.Body), "shpat_0123456789abcdef") ||
		strings.Contains(string(res.Body), "client_secret\"") {
		t.Fatalf("answer shows credentials or foreign fields: %s", res.Body)
	}
	shop := j["id"].(string)

	expect(t, p.do("POST", "/admin/v1/order-sources", map[string]any{"platform": "shopify", "channel": "web-tr",
		"base_url": "other.myshopify.com", "client_secret": "shpat_other"}), 409, "source_exists / source_exists")
	expect(t, p.do("POST", "/admin/v1/order-sources", map[string]any{"platform": "shopify", "channel": "web-gb",
		"base_url": "acme-uk.myshopify.com", "client_secret": "shpat_uk"}), 201, "")
	res = p.do("POST", "/admin/v1/order-sources", map[string]any{"platform": "magento", "channel": "web-tr",
		"base_url": "https://magento.shop.example/", "remote_channel": "3", "username": "api", "password": "pw"})
	expect(t, res, 201, "")
	if res.JSON["remote_channel"] != "3" || res.JSON["base_url"] != "https://magento.shop.example" {
		t.Fatalf("magento = %v", res.JSON)
	}
	mag := res.JSON["id"].(string)
	res = p.do("POST", "/admin/v1/order-sources", map[string]any{"platform": "woocommerce", "channel": "web-tr",
		"base_url": "https://woo.shop.example/shop/", "enabled": false, "backfill_days": 365, "consumer_key": "ck_0", "consumer_secret": "cs_0"})
	expect(t, res, 201, "")
	if res.JSON["has_credentials"] != true || res.JSON["enabled"] != false || res.JSON["next_run_at"] != nil {
		t.Fatalf("woocommerce = %v", res.JSON)
	}
	woo := res.JSON["id"].(string)
	res = p.do("GET", "/admin/v1/order-sources", nil)
	if n := len(res.JSON["items"].([]any)); n != 4 {
		t.Fatalf("items = %d", n)
	}

	// Changes: credentials only when sent; another address needs them again.
	res = p.do("PATCH", "/admin/v1/order-sources/"+woo, map[string]any{"consumer_key": "ck_1", "consumer_secret": "cs_1",
		"enabled": true, "backfill_days": 10})
	expect(t, res, 200, "")
	if res.JSON["has_credentials"] != true || res.JSON["enabled"] != true || res.JSON["backfill_days"] != 10.0 {
		t.Fatalf("patched = %v", res.JSON)
	}
	expect(t, p.do("PATCH", "/admin/v1/order-sources/"+woo, map[string]any{"base_url": "https://evil.example/shop"}),
		400, "invalid / address_needs_credentials")
	expect(t, p.do("PATCH", "/admin/v1/order-sources/"+woo, map[string]any{"base_url": "https://evil.example/shop",
		"consumer_key": "ck_2"}), 400, "invalid / address_needs_credentials")
	res = p.do("PATCH", "/admin/v1/order-sources/"+woo, map[string]any{"base_url": "woo.shop.example/shop"}) // the same address
	expect(t, res, 200, "")
	res = p.do("PATCH", "/admin/v1/order-sources/"+woo, map[string]any{"base_url": "https://shop2.example",
		"consumer_key": "ck_2", "consumer_secret": "cs_2"})
	expect(t, res, 200, "")
	if res.JSON["base_url"] != "https://shop2.example" {
		t.Fatalf("base_url = %v", res.JSON["base_url"])
	}
	expect(t, p.do("PATCH", "/admin/v1/order-sources/"+mag, map[string]any{"remote_channel": "x"}), 400, "invalid / remote_channel")
	expect(t, p.do("PATCH", "/admin/v1/order-sources/"+mag, map[string]any{"platform": "shopify"}), 400, "invalid / platform")
	expect(t, p.do("PATCH", "/admin/v1/order-sources/"+mag, map[string]any{"channel": "web-gb"}), 400, "invalid / channel")
	expect(t, p.do("PATCH", "/admin/v1/order-sources/conn_999", map[string]any{"enabled": false}), 404, "")

	expect(t, p.do("DELETE", "/admin/v1/order-sources/"+shop, nil), 204, "")
	expect(t, p.do("GET", "/admin/v1/order-sources/"+shop, nil), 404, "")
	expect(t, p.do("DELETE", "/admin/v1/order-sources/"+shop, nil), 404, "")

	acts, _, err := p.env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{TargetType: "order_source", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, a := range acts {
		count[a.Action]++
		if a.ActorName != "mert" || strings.Contains(a.Detail, "cs_2") || strings.Contains(a.Detail, "shpat_") {
			t.Fatalf("activity %+v", a)
		}
	}
	if count[orders.ActOrderSourceCreated] != 4 || count[orders.ActOrderSourceUpdated] != 3 || count[orders.ActOrderSourceRemoved] != 1 {
		t.Fatalf("activity = %v", count)
	}
}

// TestOrderSourceValidation: every field rule of a set-up body.
func TestOrderSourceValidation(t *testing.T) {
	p := newSourcePanel(t)
	shop := func(mod map[string]any) map[string]any {
		b := map[string]any{"platform": "shopify", "channel": "web-tr", "base_url": "acme.myshopify.com", "client_secret": "x"}
		for k, v := range mod {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	tests := []struct {
		name string
		body any
		want string
	}{
		{"platform missing", shop(map[string]any{"platform": nil}), "invalid / platform_required"},
		{"platform unknown", shop(map[string]any{"platform": "bigcommerce"}), "invalid / platform"},
		{"platform not a string", shop(map[string]any{"platform": 3}), "invalid / platform"},
		{"channel missing", shop(map[string]any{"channel": nil}), "invalid / channel_required"},
		{"channel unknown", shop(map[string]any{"channel": "web-xx"}), "invalid / channel"},
		{"base_url missing", shop(map[string]any{"base_url": nil}), "invalid / base_url_required"},
		{"base_url empty", shop(map[string]any{"base_url": " "}), "invalid / base_url_required"},
		{"http", shop(map[string]any{"base_url": "http://acme.myshopify.com"}), "invalid / base_url"},
		{"user details", shop(map[string]any{"base_url": "https://admin:pw@acme.myshopify.com"}), "invalid / base_url"},
		{"query string", shop(map[string]any{"base_url": "https://acme.myshopify.com/?x=1"}), "invalid / base_url"},
		{"fragment", shop(map[string]any{"base_url": "https://acme.myshopify.com/#top"}), "invalid / base_url"},
		{"other port", shop(map[string]any{"base_url": "https://acme.myshopify.com:8443"}), "invalid / base_url"},
		{"no host", shop(map[string]any{"base_url": "https:///path"}), "invalid / base_url"},
		{"single label", shop(map[string]any{"base_url": "localhost"}), "invalid / base_url"},
		{"backfill 0", shop(map[string]any{"backfill_days": 0}), "invalid / backfill_days"},
		{"backfill 366", shop(map[string]any{"backfill_days": 366}), "invalid / backfill_days"},
		{"backfill fraction", shop(map[string]any{"backfill_days": 1.5}), "invalid / backfill_days"},
		{"interval 4", shop(map[string]any{"interval_minutes": 4}), "invalid / interval_minutes"},
		{"interval 1441", shop(map[string]any{"interval_minutes": 1441}), "invalid / interval_minutes"},
		{"enabled not boolean", shop(map[string]any{"enabled": "yes"}), "invalid / enabled"},
		{"secret not a string", shop(map[string]any{"client_secret": 12}), "invalid / client_secret"},
		{"magento without store", map[string]any{"platform": "magento", "channel": "web-tr", "base_url": "m.shop.example"}, "invalid / remote_channel_required"},
		// Every required platform field at set-up (spec 3: <field>_required).
		{"shopify without secret", shop(map[string]any{"client_secret": nil}), "invalid / client_secret_required"},
		{"shopify empty secret", shop(map[string]any{"client_secret": ""}), "invalid / client_secret_required"},
		{"woocommerce without key", map[string]any{"platform": "woocommerce", "channel": "web-tr", "base_url": "woo.shop.example",
			"consumer_secret": "cs"}, "invalid / consumer_key_required"},
		{"woocommerce without secret", map[string]any{"platform": "woocommerce", "channel": "web-tr", "base_url": "woo.shop.example",
			"consumer_key": "ck"}, "invalid / consumer_secret_required"},
		{"magento without username", map[string]any{"platform": "magento", "channel": "web-tr", "base_url": "m.shop.example",
			"remote_channel": 1, "password": "pw"}, "invalid / username_required"},
		{"magento without password", map[string]any{"platform": "magento", "channel": "web-tr", "base_url": "m.shop.example",
			"remote_channel": 1, "username": "api"}, "invalid / password_required"},
		// The hosted store's own domain only: a custom domain or the admin host is
		// refused before any request.
		{"shopify custom domain", shop(map[string]any{"base_url": "https://shop.example"}), "invalid / base_url"},
		{"shopify admin host", shop(map[string]any{"base_url": "https://admin.shopify.com/store/acme"}), "invalid / base_url"},
		{"magento store not a number", map[string]any{"platform": "magento", "channel": "web-tr", "base_url": "m.shop.example",
			"remote_channel": "default"}, "invalid / remote_channel"},
		{"not JSON", "{platform", "invalid_json / invalid_json"},
		{"not an object", []any{1}, "invalid_json / invalid_json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, p.do("POST", "/admin/v1/order-sources", tt.body), 400, tt.want)
		})
	}
	// Edge values are accepted; 443 is the https port.
	res := p.do("POST", "/admin/v1/order-sources", shop(map[string]any{"backfill_days": 365, "interval_minutes": 5,
		"base_url": "https://acme.myshopify.com:443/"}))
	expect(t, res, 201, "")
	if res.JSON["base_url"] != "https://acme.myshopify.com" {
		t.Fatalf("base_url = %v", res.JSON["base_url"])
	}
}

// TestOrderSourceTries: the dry run of an unsaved and a saved connection against the
// Shopify fake, its failures as 400 platform_refused / <code>, and the store
// address rule (no request sent).
func TestOrderSourceTries(t *testing.T) {
	p := newSourcePanel(t)
	s := platformtest.StartShopify(t)
	p.env.App.SetOutbound(s.Client)
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))

	body := shopifyBody(s, "")
	delete(body, "channel")
	res := p.do("POST", "/admin/v1/order-sources/check", body)
	expect(t, res, 200, "")
	if res.JSON["orders"] != 12.0 || res.JSON["complete"] != true || len(res.JSON["sample"].([]any)) != 5 {
		t.Fatalf("check = %s", res.Body)
	}
	sample := res.JSON["sample"].([]any)[0].(map[string]any)
	for _, k := range []string{"external_id", "placed_at", "payment_state", "lines", "states", "has_email"} {
		if _, ok := sample[k]; !ok {
			t.Fatalf("sample lacks %s: %v", k, sample)
		}
	}
	skipped := res.JSON["skipped"].(map[string]any)
	if skipped["order_incomplete"] != 2.0 || skipped["lines_truncated"] != 1.0 {
		t.Fatalf("skipped = %v", skipped)
	}
	if strings.Contains(string(res.Body), "@") {
		t.Fatalf("an address in the dry run: %s", res.Body)
	}

	// The store's own domain only, before any request.
	s.Reset()
	custom := shopifyBody(s, "web-tr")
	custom["base_url"] = "https://shop.example"
	expect(t, p.do("POST", "/admin/v1/order-sources/check", custom), 400, "invalid / base_url")
	expect(t, p.do("POST", "/admin/v1/order-sources", custom), 400, "invalid / base_url")
	custom["base_url"] = "https://admin.shopify.com/store/acme"
	expect(t, p.do("POST", "/admin/v1/order-sources/check", custom), 400, "invalid / base_url")
	expect(t, p.do("POST", "/admin/v1/order-sources", custom), 400, "invalid / base_url")
	noSecret := shopifyBody(s, "web-tr")
	delete(noSecret, "client_secret")
	expect(t, p.do("POST", "/admin/v1/order-sources/check", noSecret), 400, "platform_refused / api_credentials_missing")
	expect(t, p.do("POST", "/admin/v1/order-sources/check", map[string]any{"platform": "magento", "base_url": "m.shop.example",
		"remote_channel": 1}), 400, "platform_refused / credentials_missing")
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("requests sent: %d", n)
	}
	wrong := shopifyBody(s, "web-tr")
	wrong["client_secret"] = "wrong"
	expect(t, p.do("POST", "/admin/v1/order-sources/check", wrong), 400, "platform_refused / api_credentials_refused")
	s.Scope = "read_products"
	expect(t, p.do("POST", "/admin/v1/order-sources/check", shopifyBody(s, "web-tr")), 400, "platform_refused / api_scope_missing")
	s.Scope = "read_orders"
	s.Reset()
	s.Faults[1] = platformtest.Fault{Status: 423, Body: `{"errors":"Locked"}`}
	expect(t, p.do("POST", "/admin/v1/order-sources/check", shopifyBody(s, "web-tr")), 400, "platform_refused / http_status: 423")

	// A saved connection.
	res = p.do("POST", "/admin/v1/order-sources", shopifyBody(s, "web-tr"))
	expect(t, res, 201, "")
	id := res.JSON["id"].(string)
	s.Reset()
	res = p.do("POST", "/admin/v1/order-sources/"+id+"/check", nil)
	expect(t, res, 200, "")
	if res.JSON["orders"] != 12.0 {
		t.Fatalf("saved check = %s", res.Body)
	}
	var n int
	if err := p.env.App.DB.Read().QueryRowForTest(context.Background(), `SELECT count(*) FROM orders`, &n); err != nil || n != 0 {
		t.Fatalf("orders after dry runs = %d (%v)", n, err)
	}
	if v := p.do("GET", "/admin/v1/order-sources/"+id, nil); v.JSON["last_run_at"] != nil {
		t.Fatalf("a dry run moved the connection: %v", v.JSON)
	}
	// A connection to a custom domain saved before set-up refused one is refused
	// at its check too, before any request (and is not a try).
	ctx := context.Background()
	var old store.OrderSource
	err := p.env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := tx.ChannelByCode(ctx, "web-gb")
		if err != nil {
			return err
		}
		old, err = tx.CreateOrderSource(ctx, store.OrderSource{Platform: "shopify", ChannelID: ch.ID, BaseURL: "https://shop.example",
			BackfillDays: 30, IntervalMinutes: 60, Enabled: true, NextRunAt: tx.Now})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Reset()
	expect(t, p.do("POST", "/admin/v1/order-sources/"+orders.OrderSourcePublicID(old.ID)+"/check", nil), 400, "invalid / base_url")
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("requests sent for a custom domain: %d", n)
	}
	acts, total, _ := p.env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{Action: orders.ActOrderSourceTried, Limit: 50})
	if total != 7 || acts[0].TargetID != id {
		t.Fatalf("tries in the activity history = %d", total)
	}
}

// TestOrderSourceRun: a manual read answers 202, reads in the background and
// shows in the connection log; paused or with the channel off it is refused.
func TestOrderSourceRun(t *testing.T) {
	p := newSourcePanel(t)
	s := platformtest.StartShopify(t)
	p.env.App.SetOutbound(s.Client)
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	res := p.do("POST", "/admin/v1/order-sources", shopifyBody(s, "web-tr"))
	expect(t, res, 201, "")
	id := res.JSON["id"].(string)

	res = p.do("POST", "/admin/v1/order-sources/"+id+"/run", nil)
	expect(t, res, 202, "")
	if res.JSON["id"] != id {
		t.Fatalf("run answer = %s", res.Body)
	}
	// The background read has no other signal than the connection's last run.
	var v apptest.Response
	apptest.Eventually(t, "the manual read to finish (last_run_at set)", 30*time.Second, func() (bool, string) {
		v = p.do("GET", "/admin/v1/order-sources/"+id, nil)
		return v.JSON["last_run_at"] != nil, v.String()
	})
	if v.JSON["last_run_at"] != "2026-06-01T10:00:00Z" || v.JSON["last_error"] != nil {
		t.Fatalf("after the manual read: %s", v.Body)
	}
	if rep := v.JSON["last_report"].(map[string]any); rep["orders"] != 12.0 {
		t.Fatalf("report = %v", rep)
	}

	key := p.env.Key("api", "", "read")
	res = p.env.Do("GET", "/admin/v1/diagnostics", nil, map[string]string{"Authorization": "Api-Key " + key})
	expect(t, res, 200, "")
	items := res.JSON["items"].([]any)
	if len(items) != 1 || res.JSON["total"] != 1.0 {
		t.Fatalf("diagnostics = %s", res.Body)
	}
	row := items[0].(map[string]any)
	if row["connection"] != id || row["trigger"] != "manual" || row["outcome"] != "ok" || row["orders"] != 12.0 || row["platform"] != "shopify" {
		t.Fatalf("log row = %v", row)
	}
	if c := res.JSON["connections"].([]any); len(c) != 1 {
		t.Fatalf("connections = %v", c)
	}
	res = p.env.Do("GET", "/admin/v1/diagnostics?outcome=failed", nil, map[string]string{"Authorization": "Api-Key " + key})
	if res.JSON["total"] != 0.0 {
		t.Fatalf("failed reads = %s", res.Body)
	}
	expect(t, p.env.Do("GET", "/admin/v1/diagnostics?outcome=maybe", nil, map[string]string{"Authorization": "Api-Key " + key}), 400, "invalid / outcome")
	expect(t, p.env.Do("GET", "/admin/v1/diagnostics?connection=7", nil, map[string]string{"Authorization": "Api-Key " + key}), 400, "invalid / connection")

	expect(t, p.do("PATCH", "/admin/v1/order-sources/"+id, map[string]any{"enabled": false}), 200, "")
	expect(t, p.do("POST", "/admin/v1/order-sources/"+id+"/run", nil), 409, "source_inactive / source_inactive")
	expect(t, p.do("PATCH", "/admin/v1/order-sources/"+id, map[string]any{"enabled": true}), 200, "")
	ch, _ := p.env.App.DB.Read().ChannelByCode(context.Background(), "web-tr")
	if err := p.env.App.DB.WithTx(context.Background(), func(tx *store.Tx) error { return tx.SetChannelActive(context.Background(), ch.ID, false) }); err != nil {
		t.Fatal(err)
	}
	expect(t, p.do("POST", "/admin/v1/order-sources/"+id+"/run", nil), 409, "channel_inactive / channel_inactive")
	expect(t, p.do("POST", "/admin/v1/order-sources/conn_404/run", nil), 404, "")
	acts, _, _ := p.env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{Action: orders.ActOrderSourceRunNeeded})
	if len(acts) != 1 {
		t.Fatalf("manual reads in the activity history = %d", len(acts))
	}
}

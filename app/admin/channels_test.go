package admin_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/platform/platformtest"
	"reviewd/store"
)

// channelPanel is an installation with channel web (verified domain shop.example,
// landing https://shop.example/review), a signed-in owner, a DNS server the
// installation asks (dns.server) and an https server answering for files.example
// and www.files.example (outbound.resolve).
type channelPanel struct {
	env  *apptest.Env
	b    *browser
	dns  *dnsServer
	mu   sync.Mutex
	file map[string]fileAnswer // by host
}

type fileAnswer struct {
	status int
	body   string
}

func newChannelPanel(t *testing.T) *channelPanel {
	t.Helper()
	p := &channelPanel{dns: startDNS(t), file: map[string]fileAnswer{}}
	files := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		a, ok := p.file[r.Host]
		p.mu.Unlock()
		if !ok || r.URL.Path != "/.well-known/service-verification.txt" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}), "files.example", "www.files.example")
	p.env = apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.DNS.Server = p.dns.Addr
		c.Outbound.Resolve = []string{"files.example:443=127.0.0.1:" + files.Port, "www.files.example:443=127.0.0.1:" + files.Port}
		c.Outbound.CAFile = files.CAFile
	})
	p.env.Channel("web", "TR", "tr")
	p.env.User(access.NewUser{Username: panelUser, Email: "ayla@shop.example", Role: "owner", Password: panelPassword})
	p.b = newBrowser(t, p.env)
	expect(t, p.b.signIn(panelUser, panelPassword), 200, "")
	return p
}

func (p *channelPanel) serveFile(host string, status int, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.file[host] = fileAnswer{status, body}
}

func (p *channelPanel) do(method, path string, body any) apptest.Response {
	return p.b.do(method, path, body, method != "GET")
}

// channelRow finds a channel in the list.
func (p *channelPanel) channelRow(t *testing.T, code string) map[string]any {
	t.Helper()
	res := p.do("GET", "/admin/v1/channels", nil)
	expect(t, res, 200, "")
	for _, it := range res.JSON["items"].([]any) {
		if row := it.(map[string]any); row["code"] == code {
			return row
		}
	}
	return nil
}

// TestChannelAccess: channel endpoints take a panel session only; every key gets
// 403 forbidden / scope_missing, whatever its scopes, and changes need the
// change-settings permission.
func TestChannelAccess(t *testing.T) {
	p := newChannelPanel(t)
	writeKey := p.env.Key("api", "", "read", "write")
	readKey := p.env.Key("api", "", "read", "export")
	serverKey := p.env.Key("server", "web")
	p.env.User(access.NewUser{Username: "deniz", Email: "deniz@shop.example", Role: "moderator", Password: "Walnut-Harbor-91"})
	moderator := newBrowser(t, p.env)
	expect(t, moderator.signIn("deniz", "Walnut-Harbor-91"), 200, "")
	routes := [][2]string{{"GET", "/admin/v1/channels"}, {"POST", "/admin/v1/channels"}, {"PATCH", "/admin/v1/channels/web"},
		{"DELETE", "/admin/v1/channels/web"}, {"POST", "/admin/v1/channels/web/domains"},
		{"POST", "/admin/v1/channels/web/domains/shop.example/verify"}, {"DELETE", "/admin/v1/channels/web/domains/shop.example"},
		{"POST", "/admin/v1/channel-requests"}}
	body := map[string]any{"kind": "api_key", "label": "x", "scopes": []string{"read"}, "active": false, "domain": "a.example",
		"market": "DE", "method": "dns"}
	for _, rt := range routes {
		for _, k := range []string{writeKey, readKey, serverKey} {
			expect(t, p.env.Do(rt[0], rt[1], body, map[string]string{"Authorization": "Api-Key " + k}), 403, "forbidden / scope_missing")
		}
		expect(t, p.env.Do(rt[0], rt[1], body, nil), 401, "")
		if rt[0] != "GET" {
			expect(t, moderator.do(rt[0], rt[1], body, true), 403, "forbidden / scope_missing")
		}
	}
	// A moderator reads the list; nothing was changed by the refused calls.
	res := moderator.do("GET", "/admin/v1/channels", nil, false)
	expect(t, res, 200, "")
	if res.JSON["total"] != 1.0 {
		t.Fatalf("want the one channel, got %s", res)
	}
	row := p.channelRow(t, "web")
	if row["active"] != true || len(row["domains"].([]any)) != 1 {
		t.Fatalf("channel changed by refused calls: %v", row)
	}
}

// TestChannelRecords: create, list with the quota, change, turn off and on, delete
// (refused while the channel has data), channel requests.
func TestChannelRecords(t *testing.T) {
	p := newChannelPanel(t)
	res := p.do("GET", "/admin/v1/channels", nil)
	expect(t, res, 200, "")
	q := res.JSON["quota"].(map[string]any)
	if q["limit"] != 3.0 || q["open"] != 2.0 || q["request"] != nil || res.JSON["page"] != 1.0 || res.JSON["page_size"] != 25.0 ||
		res.JSON["pages"] != 1.0 {
		t.Fatalf("list envelope: %s", res)
	}
	row := res.JSON["items"].([]any)[0].(map[string]any)
	for _, f := range []string{"code", "label", "market", "language", "brand_name", "sender_address", "support_url", "privacy_url",
		"landing_url", "active", "domains"} {
		if _, ok := row[f]; !ok {
			t.Fatalf("row lacks %s: %v", f, row)
		}
	}
	if d := row["domains"].([]any)[0].(map[string]any); d["domain"] != "shop.example" || d["verified"] != true {
		t.Fatalf("domains: %v", row["domains"])
	}

	good := map[string]any{"code": "web-de", "label": "Germany", "market": "de", "language": "en", "brand_name": "Acme",
		"support_url": "https://shop.example/help", "privacy_url": "https://shop.example/privacy", "sender_address": "care@shop.example"}
	for field, bad := range map[string]any{"code": "bad code", "market": "DEU", "language": "de", "label": "",
		"brand_name": " ", "landing_url": "ftp://x", "support_url": "http://shop.example/help"} {
		b := clone(good)
		b[field] = bad
		expect(t, p.do("POST", "/admin/v1/channels", b), 400, "invalid / "+field)
	}
	b := clone(good)
	b["privacy_url"] = "http://shop.example/privacy"
	expect(t, p.do("POST", "/admin/v1/channels", b), 400, "invalid / privacy_url_not_https")
	b["privacy_url"] = "https://shop.example/" + strings.Repeat("p", 500)
	expect(t, p.do("POST", "/admin/v1/channels", b), 400, "invalid / privacy_url_too_long")
	b = clone(good)
	b["sender_address"] = "care@elsewhere.example"
	expect(t, p.do("POST", "/admin/v1/channels", b), 400, "invalid / sender_domain_unverified")
	expect(t, p.do("POST", "/admin/v1/channels", map[string]any{"kind": "shop"}), 400, "invalid / kind")

	res = p.do("POST", "/admin/v1/channels", good)
	expect(t, res, 201, "")
	if res.JSON["code"] != "web-de" || res.JSON["market"] != "DE" || res.JSON["active"] != true ||
		res.JSON["sender_address"] != "care@shop.example" || len(res.JSON["domains"].([]any)) != 0 {
		t.Fatalf("created row: %s", res)
	}
	b = clone(good)
	expect(t, p.do("POST", "/admin/v1/channels", b), 409, "channel_exists / channel_exists")
	b["code"] = "web-fr"
	expect(t, p.do("POST", "/admin/v1/channels", b), 201, "")
	// The allowance (3) is full.
	b["code"] = "web-nl"
	expect(t, p.do("POST", "/admin/v1/channels", b), 409, "channel_quota / channel_quota")

	// A request for another channel; one at a time.
	expect(t, p.do("POST", "/admin/v1/channel-requests", map[string]any{"market": "Netherlands", "label": "NL"}), 400, "invalid / market")
	expect(t, p.do("POST", "/admin/v1/channel-requests", map[string]any{"market": "NL"}), 400, "invalid / label")
	res = p.do("POST", "/admin/v1/channel-requests", map[string]any{"market": "nl", "label": "Netherlands", "note": "spring launch"})
	expect(t, res, 201, "")
	reqID, _ := res.JSON["id"].(string)
	if res.JSON["state"] != "open" || reqID == "" {
		t.Fatalf("request: %s", res)
	}
	expect(t, p.do("POST", "/admin/v1/channel-requests", map[string]any{"market": "BE", "label": "Belgium"}), 409,
		"channel_request_open / channel_request_open")
	res = p.do("GET", "/admin/v1/channels", nil)
	q = res.JSON["quota"].(map[string]any)
	if q["limit"] != 3.0 || q["open"] != 0.0 || q["request"].(map[string]any)["id"] != reqID {
		t.Fatalf("quota with a request: %v", q)
	}
	// The operator grants it: the allowance grows by one.
	if err := p.env.App.Domain.Channels.GrantRequest(context.Background(), core.Console(), reqID); err != nil {
		t.Fatal(err)
	}
	expect(t, p.do("POST", "/admin/v1/channels", b), 201, "")
	res = p.do("GET", "/admin/v1/channels?page_size=2&page=2", nil)
	q = res.JSON["quota"].(map[string]any)
	if q["limit"] != 4.0 || q["open"] != 0.0 || q["request"] != nil || res.JSON["total"] != 4.0 || res.JSON["pages"] != 2.0 ||
		len(res.JSON["items"].([]any)) != 2 {
		t.Fatalf("after the grant: %s", res)
	}
	if res = p.do("GET", "/admin/v1/channels?q=WEB-D", nil); res.JSON["total"] != 1.0 {
		t.Fatalf("q: %s", res)
	}

	// Change, turn off and on.
	res = p.do("PATCH", "/admin/v1/channels/web-de", map[string]any{"label": "Deutschland", "brand_name": "Acme DE",
		"support_url": "https://shop.example/hilfe", "landing_url": "https://shop.example/de", "sender_address": ""})
	expect(t, res, 200, "")
	if res.JSON["label"] != "Deutschland" || res.JSON["brand_name"] != "Acme DE" || res.JSON["sender_address"] != "" ||
		res.JSON["landing_url"] != "https://shop.example/de" || res.JSON["market"] != "DE" {
		t.Fatalf("changed row: %s", res)
	}
	expect(t, p.do("PATCH", "/admin/v1/channels/web-de", map[string]any{"label": ""}), 400, "invalid / label")
	expect(t, p.do("PATCH", "/admin/v1/channels/web-de", map[string]any{"active": "no"}), 400, "invalid / active")
	expect(t, p.do("PATCH", "/admin/v1/channels/nope", map[string]any{"label": "x"}), 404, "not_found / not_found")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"active": false}), 200, "")
	if p.channelRow(t, "web")["active"] != false {
		t.Fatal("channel not turned off")
	}
	// A server key of a channel that is off is refused by ingest as before; on again.
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"active": true}), 200, "")
	if p.channelRow(t, "web")["active"] != true {
		t.Fatal("channel not turned on")
	}

	// Delete: refused while the channel has an order connection; a channel without
	// data goes, with its keys.
	expect(t, p.do("POST", "/admin/v1/order-sources", map[string]any{"platform": "woocommerce", "channel": "web",
		"base_url": "https://woo.shop.example", "consumer_key": "ck_1", "consumer_secret": "cs_1"}), 201, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web", nil), 409, "channel_in_use / channel_in_use")
	p.env.Key("site", "web-fr")
	expect(t, p.do("DELETE", "/admin/v1/channels/web-fr", nil), 204, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web-fr", nil), 404, "not_found / not_found")
	if p.channelRow(t, "web-fr") != nil || p.channelRow(t, "web") == nil {
		t.Fatal("delete removed the wrong channel")
	}
	// Every change is in the activity history under the member's name.
	assertActivity(t, p.env, panelUser, "channel.created", "channel.changed", "channel.turned_off", "channel.turned_on",
		"channel.deleted", "channel_request.opened")
}

func clone(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// assertActivity fails unless the activity history has each action by actor.
func assertActivity(t *testing.T, env *apptest.Env, actor string, actions ...string) {
	t.Helper()
	got := map[string]bool{}
	rows, _, err := env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ActorName == actor {
			got[r.Action] = true
		}
	}
	for _, a := range actions {
		if !got[a] {
			t.Errorf("activity history lacks %s by %s (has %v)", a, actor, got)
		}
	}
}

// TestChannelLook: PATCH review_style and review_theme change the channel's page
// component at once (GET /v1/ssr and the list answer in the new layout and theme,
// a new ETag); unknown values are refused; the rows show both; the change is in
// the activity history.
func TestChannelLook(t *testing.T) {
	p := newChannelPanel(t)
	server := map[string]string{"Authorization": "Bearer " + p.env.Key("server", "web")}
	p.env.Key("site", "web")
	ssr := func() apptest.Response {
		t.Helper()
		res := p.env.Do("GET", "/v1/ssr?channel=web&product=SKU-1", nil, server)
		expect(t, res, 200, "")
		return res
	}
	before := ssr()
	if html, _ := before.JSON["html"].(string); !strings.Contains(html, "rvw--cards rvw-theme-warm") {
		t.Fatalf("default look: %.300s", html)
	}
	if row := p.channelRow(t, "web"); row["review_style"] != "cards" || row["review_theme"] != "warm" {
		t.Fatalf("row before: %v", row)
	}

	res := p.do("PATCH", "/admin/v1/channels/web", map[string]any{"review_style": "sidebar", "review_theme": "night"})
	expect(t, res, 200, "")
	if res.JSON["review_style"] != "sidebar" || res.JSON["review_theme"] != "night" {
		t.Fatalf("changed row: %s", res)
	}
	if row := p.channelRow(t, "web"); row["review_style"] != "sidebar" || row["review_theme"] != "night" {
		t.Fatalf("listed row: %v", row)
	}
	after := ssr()
	if html, _ := after.JSON["html"].(string); !strings.Contains(html, "rvw--sidebar rvw-theme-night") {
		t.Fatalf("look after the change: %.300s", html)
	}
	if e := after.Header.Get("ETag"); e == "" || e == before.Header.Get("ETag") {
		t.Fatalf("ETag %q after the change, %q before", e, before.Header.Get("ETag"))
	}
	res = p.env.Do("GET", "/v1/ssr?channel=web&product=SKU-1", nil,
		map[string]string{"Authorization": server["Authorization"], "If-None-Match": before.Header.Get("ETag")})
	expect(t, res, 200, "")
	list := p.env.Do("GET", "/v1/reviews/list?channel=web&product=SKU-1", nil, server)
	if list.JSON["style"] != "sidebar" || list.JSON["theme"] != "night" {
		t.Fatalf("list answer: %.300s", list.Body)
	}

	// Unknown values: nothing changes.
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"review_style": "grid"}), 400, "invalid / review_style")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"label": "Renamed", "review_theme": "Night"}), 400,
		"invalid / review_theme")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"review_theme": 3}), 400, "invalid / review_theme")
	if row := p.channelRow(t, "web"); row["review_style"] != "sidebar" || row["review_theme"] != "night" || row["label"] == "Renamed" {
		t.Fatalf("row after refused changes: %v", row)
	}
	assertActivity(t, p.env, panelUser, "channel.changed")
}

package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/channels"
	"reviewd/app/web"
	"reviewd/store"
	"reviewd/store/storetest"
)

// kernel is the database and recorder the rig's services share.
type kernel struct {
	DB *store.DB
	*core.Recorder
}

// rig is a router with test routes behind the real middleware over a real database.
type rig struct {
	t      *testing.T
	core   *kernel
	acc    *access.Service
	auth   *web.Auth
	clock  *storetest.Clock
	ts     *httptest.Server
	limits *web.Limits
}

func newRig(t *testing.T, proxies ...string) *rig {
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	db := storetest.Open(t, clock)
	keys, _ := core.NewKeyring(make([]byte, 32))
	c := &kernel{DB: db, Recorder: core.NewRecorder(keys)}
	limits := web.NewLimits(clock.Now)
	acc := access.New(db, keys, nil, "http://reviewd.test", nil)
	rg := &rig{t: t, core: c, acc: acc, clock: clock, limits: limits, auth: &web.Auth{Access: acc, Limits: limits}}
	r := mux.NewRouter()
	r.NotFoundHandler = web.NotFound()
	r.MethodNotAllowedHandler = web.MethodNotAllowed(r)
	r.Handle("/site", web.H(func(w http.ResponseWriter, r *http.Request) error {
		if _, acc, err := rg.auth.SiteKey(r, true); err != nil {
			return err
		} else {
			return web.JSON(w, 200, map[string]any{"channel": acc.Channel.Code})
		}
	})).Methods("GET", "POST")
	r.Handle("/server", web.H(func(w http.ResponseWriter, r *http.Request) error {
		if _, err := rg.auth.ServerKey(r, http.StatusForbidden, core.PermSSR); err != nil {
			return err
		}
		return web.JSON(w, 200, map[string]any{"ok": true})
	})).Methods("GET")
	r.Handle("/store", web.H(func(w http.ResponseWriter, r *http.Request) error {
		_, ch, err := rg.auth.Storefront(r)
		if err != nil {
			return err
		}
		return web.JSON(w, 200, map[string]any{"channel": ch.Code})
	})).Methods("GET")
	r.Handle("/viewer", web.H(func(w http.ResponseWriter, r *http.Request) error {
		_, ch, err := rg.auth.ServerOnly(r)
		if err != nil {
			return err
		}
		return web.JSON(w, 200, map[string]any{"channel": ch.Code})
	})).Methods("GET")
	r.Handle("/admin/{perm}", web.H(func(w http.ResponseWriter, r *http.Request) error {
		a, err := rg.auth.Admin(r, mux.Vars(r)["perm"])
		if err != nil {
			return err
		}
		return web.JSON(w, 200, map[string]any{"id": a.ID})
	})).Methods("GET", "POST")
	r.Handle("/ingest", web.H(func(w http.ResponseWriter, r *http.Request) error {
		a, body, err := rg.auth.Ingest(r, 1<<20)
		if err != nil {
			return err
		}
		var v map[string]any
		if err := web.ParseJSON(body, web.ModeIngest, &v); err != nil {
			return err
		}
		return web.JSON(w, 200, map[string]any{"via": a.Via})
	})).Methods("POST")
	r.Handle("/tx-panic", web.H(func(w http.ResponseWriter, r *http.Request) error {
		return c.DB.WithTx(r.Context(), func(tx *store.Tx) error {
			if _, err := tx.CreateChannel(r.Context(), store.Channel{Code: "ghost", Market: "TR", Language: "tr", Label: "g", BrandName: "g", Style: "cards", Theme: "warm", Active: true}); err != nil {
				return err
			}
			panic("boom")
		})
	})).Methods("POST")
	r.Handle("/query", web.H(func(w http.ResponseWriter, r *http.Request) error {
		if err := web.CheckQuery(r); err != nil {
			return err
		}
		return web.JSON(w, 200, map[string]any{"ip": web.ClientIP(r.Context())})
	})).Methods("GET")
	rg.ts = httptest.NewServer(web.Base(r, web.ParseProxies(proxies), limits))
	t.Cleanup(rg.ts.Close)
	_, err := channels.New(c.DB, c, nil, nil).CreateChannel(context.Background(), core.Console(), channels.NewChannel{Code: "tr", Market: "TR", Language: "tr", Label: "TR", BrandName: "Acme", Domains: []string{"shop.example"}})
	if err != nil {
		t.Fatal(err)
	}
	return rg
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func (a answer) code() string { return a.body["error"].(string) + " / " + a.body["detail"].(string) }

func (rg *rig) do(method, path, body string, headers map[string]string) answer {
	rg.t.Helper()
	req, _ := http.NewRequest(method, rg.ts.URL+path, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		rg.t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(raw, &m); err != nil {
		rg.t.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
	}
	return answer{res.StatusCode, res.Header, m}
}

func (rg *rig) key(kind string, scopes ...string) string {
	ch := ""
	if kind != access.KindAPI {
		ch = "tr"
	}
	k, err := rg.acc.CreateKey(context.Background(), core.Console(), access.NewKey{Kind: kind, ChannelCode: ch, Scopes: scopes, AllowWrite: true})
	if err != nil {
		rg.t.Fatal(err)
	}
	return k.Secret
}

func TestHeadersOnEveryResponse(t *testing.T) {
	rg := newRig(t)
	for _, path := range []string{"/nowhere", "/server", "/query?x=1"} {
		a := rg.do("GET", path, "", nil)
		for _, h := range []string{"X-Request-Id", "Content-Security-Policy", "Permissions-Policy"} {
			if a.header.Get(h) == "" {
				t.Errorf("%s: no %s header", path, h)
			}
		}
		if !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: content type %q", path, a.header.Get("Content-Type"))
		}
	}
	if a := rg.do("GET", "/nowhere", "", nil); a.status != 404 || a.code() != "not_found / not_found" {
		t.Fatalf("404: %d %v", a.status, a.body)
	}
	a := rg.do("DELETE", "/site", "", nil)
	if a.status != 405 || a.code() != "method_not_allowed / method_not_allowed" {
		t.Fatalf("405: %d %v", a.status, a.body)
	}
	if allow := a.header.Get("Allow"); allow != "GET, POST" {
		t.Fatalf("Allow = %q", allow)
	}
}

func TestPanicRollsBackAndAnswersJSON(t *testing.T) {
	rg := newRig(t)
	a := rg.do("POST", "/tx-panic", "", nil)
	if a.status != 500 || a.code() != "internal / internal" {
		t.Fatalf("panic answer: %d %v", a.status, a.body)
	}
	if _, err := rg.core.DB.Read().ChannelByCode(context.Background(), "ghost"); err != store.ErrNotFound {
		t.Fatalf("the panicking request's write was kept: %v", err)
	}
}

func TestQueryUnstorable(t *testing.T) {
	rg := newRig(t)
	if a := rg.do("GET", "/query?q=a%00b", "", nil); a.status != 400 || a.code() != "invalid / invalid" {
		t.Fatalf("NUL in query: %d %v", a.status, a.body)
	}
	if a := rg.do("GET", "/query?q=%ff", "", nil); a.status != 400 || a.code() != "invalid / invalid" {
		t.Fatalf("bad UTF-8 in query: %d %v", a.status, a.body)
	}
}

func TestSiteKey(t *testing.T) {
	rg := newRig(t)
	site := rg.key(access.KindSite)
	server := rg.key(access.KindServer)
	revoked := rg.key(access.KindSite)
	keys, _ := rg.core.DB.Read().ListKeys(context.Background())
	for _, k := range keys {
		if k.Kind == access.KindSite && string(k.Hash) == string(core.HashToken(revoked)) {
			_ = rg.acc.RevokeKey(context.Background(), core.Console(), k.PublicID)
		}
	}
	origin := map[string]string{"Origin": "https://shop.example"}
	cases := []struct {
		name, path string
		headers    map[string]string
		status     int
		want       string
	}{
		{"ok by origin", "/site?key=" + site, origin, 200, ""},
		{"ok by referer", "/site?key=" + site, map[string]string{"Referer": "https://www.shop.example/p/1"}, 200, ""},
		{"missing origin", "/site?key=" + site, nil, 403, "refused / origin_missing"},
		{"unverified", "/site?key=" + site, map[string]string{"Origin": "https://evil.example"}, 403, "refused / origin_unverified: evil.example"},
		{"look-alike", "/site?key=" + site, map[string]string{"Origin": "https://notshop.example"}, 403, "refused / origin_unverified: notshop.example"},
		{"unknown", "/site?key=rvd_site_" + strings.Repeat("A", 43), origin, 403, "refused / unknown_site_key"},
		{"malformed", "/site?key=nope", origin, 403, "refused / unknown_site_key"},
		{"server key as site key", "/site?key=" + server, origin, 403, "refused / unknown_site_key"},
		{"revoked", "/site?key=" + revoked, origin, 403, "refused / revoked_site_key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := rg.do("GET", c.path, "", c.headers)
			if a.status != c.status || (c.want != "" && a.code() != c.want) {
				t.Fatalf("got %d %v, want %d %s", a.status, a.body, c.status, c.want)
			}
		})
	}
	// Writes carry the key in X-Service-Site-Key.
	a := rg.do("POST", "/site", "{}", map[string]string{"X-Service-Site-Key": site, "Origin": "https://shop.example"})
	if a.status != 200 {
		t.Fatalf("header key: %d %v", a.status, a.body)
	}
	// A channel that is off refuses its keys.
	ch, _ := rg.core.DB.Read().ChannelByCode(context.Background(), "tr")
	_ = rg.core.DB.WithTx(context.Background(), func(tx *store.Tx) error { return tx.SetChannelActive(context.Background(), ch.ID, false) })
	if a := rg.do("GET", "/site?key="+site, "", origin); a.code() != "refused / channel_inactive" {
		t.Fatalf("inactive channel: %v", a.body)
	}
}

func TestServerAndAdminKeys(t *testing.T) {
	rg := newRig(t)
	server := rg.key(access.KindServer)
	read := rg.key(access.KindAPI, "read")
	mod := rg.key(access.KindAPI, "moderate")
	cases := []struct {
		name, path string
		headers    map[string]string
		status     int
		want       string
	}{
		{"server ok", "/server", map[string]string{"Authorization": "Bearer " + server}, 200, ""},
		{"server malformed", "/server", map[string]string{"Authorization": "Bearer abc"}, 403, "refused / malformed_key"},
		{"server unknown", "/server", map[string]string{"Authorization": "Bearer rvd_srv_" + strings.Repeat("x", 43)}, 403, "refused / unknown_key"},
		{"api key as server key", "/server", map[string]string{"Authorization": "Bearer " + read}, 403, "refused / scope_missing"},
		{"admin read ok", "/admin/read", map[string]string{"Authorization": "Api-Key " + read}, 200, ""},
		{"moderate includes read", "/admin/read", map[string]string{"Authorization": "Api-Key " + mod}, 200, ""},
		{"read lacks moderate", "/admin/moderate", map[string]string{"Authorization": "Api-Key " + read}, 403, "forbidden / scope_missing"},
		{"server key on admin", "/admin/read", map[string]string{"Authorization": "Api-Key " + server}, 403, "forbidden / scope_missing"},
		{"admin unknown", "/admin/read", map[string]string{"Authorization": "Api-Key rvd_api_" + strings.Repeat("y", 43)}, 401, "refused / unknown_key"},
		{"admin malformed", "/admin/read", map[string]string{"Authorization": "Api-Key zzz"}, 401, "refused / malformed_key"},
		{"admin none", "/admin/read", nil, 401, "refused / credentials_missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := rg.do("GET", c.path, "", c.headers)
			if a.status != c.status || (c.want != "" && a.code() != c.want) {
				t.Fatalf("got %d %v, want %d %s", a.status, a.body, c.status, c.want)
			}
		})
	}
	keys, _ := rg.core.DB.Read().ListKeys(context.Background())
	for _, k := range keys {
		if string(k.Hash) == string(core.HashToken(read)) {
			_ = rg.acc.RevokeKey(context.Background(), core.Console(), k.PublicID)
		}
	}
	if a := rg.do("GET", "/admin/read", "", map[string]string{"Authorization": "Api-Key " + read}); a.status != 401 || a.code() != "refused / revoked_key" {
		t.Fatalf("revoked: %d %v", a.status, a.body)
	}
}

func TestKeyRateLimit(t *testing.T) {
	rg := newRig(t)
	read := rg.key(access.KindAPI, "read")
	h := map[string]string{"Authorization": "Api-Key " + read}
	for i := 0; i < 600; i++ {
		if a := rg.do("GET", "/admin/read", "", h); a.status != 200 {
			t.Fatalf("request %d: %d %v", i+1, a.status, a.body)
		}
	}
	if a := rg.do("GET", "/admin/read", "", h); a.status != 429 || a.code() != "rate_limited / rate_limited" {
		t.Fatalf("601st request: %d %v", a.status, a.body)
	}
	rg.clock.Advance(5 * time.Minute)
	if a := rg.do("GET", "/admin/read", "", h); a.status != 200 {
		t.Fatalf("after 5 minutes: %d %v", a.status, a.body)
	}
}

func TestRefusalLimitPerIP(t *testing.T) {
	rg := newRig(t)
	read := rg.key(access.KindAPI, "read")
	bad := map[string]string{"Authorization": "Api-Key rvd_api_" + strings.Repeat("z", 43)}
	for i := 0; i < 60; i++ {
		if a := rg.do("GET", "/admin/read", "", bad); a.status != 401 {
			t.Fatalf("refusal %d: %d", i+1, a.status)
		}
	}
	// The IP is now blocked, even with a good key.
	if a := rg.do("GET", "/admin/read", "", map[string]string{"Authorization": "Api-Key " + read}); a.status != 429 {
		t.Fatalf("after 60 refusals: %d %v", a.status, a.body)
	}
	rg.clock.Advance(5 * time.Minute)
	if a := rg.do("GET", "/admin/read", "", map[string]string{"Authorization": "Api-Key " + read}); a.status != 200 {
		t.Fatalf("after the window: %d %v", a.status, a.body)
	}
	// Unreadable bodies count too.
	for i := 0; i < 60; i++ {
		rg.do("POST", "/ingest", "{", nil)
	}
	if a := rg.do("GET", "/admin/read", "", map[string]string{"Authorization": "Api-Key " + read}); a.status != 429 {
		t.Fatalf("after 60 unreadable bodies: %d", a.status)
	}
}

func TestForwardedForOnlyBehindTrustedProxy(t *testing.T) {
	untrusted := newRig(t)
	if a := untrusted.do("GET", "/query", "", map[string]string{"X-Forwarded-For": "203.0.113.9"}); a.body["ip"] != "127.0.0.1" {
		t.Fatalf("X-Forwarded-For believed from an untrusted peer: %v", a.body)
	}
	trusted := newRig(t, "127.0.0.0/8")
	if a := trusted.do("GET", "/query", "", map[string]string{"X-Forwarded-For": "198.51.100.7, 127.0.0.5"}); a.body["ip"] != "198.51.100.7" {
		t.Fatalf("client IP behind a trusted proxy: %v", a.body)
	}
}

func TestStorefrontCallers(t *testing.T) {
	rg := newRig(t)
	site := rg.key(access.KindSite)
	server := rg.key(access.KindServer)
	revokedServer := rg.key(access.KindServer)
	keys, _ := rg.core.DB.Read().ListKeys(context.Background())
	for _, k := range keys {
		if string(k.Hash) == string(core.HashToken(revokedServer)) {
			_ = rg.acc.RevokeKey(context.Background(), core.Console(), k.PublicID)
		}
	}
	bearer := func(k string) map[string]string { return map[string]string{"Authorization": "Bearer " + k} }
	origin := map[string]string{"Origin": "https://shop.example"}
	cases := []struct {
		name, path string
		headers    map[string]string
		status     int
		want       string
	}{
		{"site key", "/store?key=" + site, origin, 200, ""},
		{"server key", "/store?channel=tr", bearer(server), 200, ""},
		{"server key, no channel", "/store", bearer(server), 403, "refused / unknown_channel"},
		{"server key, unknown channel", "/store?channel=xx", bearer(server), 403, "refused / unknown_channel"},
		{"server key revoked", "/store?channel=tr", bearer(revokedServer), 403, "refused / revoked_key"},
		{"server key malformed", "/store?channel=tr", bearer("rvd_srv_short"), 403, "refused / malformed_key"},
		{"viewer with server key", "/viewer?channel=tr", bearer(server), 200, ""},
		{"viewer with site key", "/viewer?key=" + site + "&channel=tr", origin, 403, "refused / server_only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := rg.do("GET", c.path, "", c.headers)
			if a.status != c.status || (c.want != "" && a.code() != c.want) {
				t.Fatalf("got %d %v, want %d %s", a.status, a.body, c.status, c.want)
			}
		})
	}
}

// TestSiteKeyHasNoPerKeyLimit: every visitor of a store shares its site key, so the
// 600-per-5-minutes key budget does not apply to it.
func TestSiteKeyHasNoPerKeyLimit(t *testing.T) {
	rg := newRig(t)
	site := rg.key(access.KindSite)
	origin := map[string]string{"Origin": "https://shop.example"}
	for i := 0; i < 650; i++ {
		if a := rg.do("GET", "/site?key="+site, "", origin); a.status != 200 {
			t.Fatalf("request %d: %d %v", i+1, a.status, a.body)
		}
	}
}

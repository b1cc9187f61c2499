package admin_test

import (
	"context"
	"testing"

	"reviewd/app/apptest"
	"reviewd/store"
)

// TestChannelKeys: POST /admin/v1/channels with kind api_key (spec 3, rule 1):
// without scopes a server key of a channel (orders, ssr) that cannot call the
// admin API; with scopes an admin API key with those permissions; write is
// reserved for the operator.
func TestChannelKeys(t *testing.T) {
	p := newChannelPanel(t)
	res := p.do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "Shop server", "channel": "web"})
	expect(t, res, 201, "")
	server, _ := res.JSON["key"].(string)
	if res.JSON["kind"] != "server" || res.JSON["channel"] != "web" || res.JSON["label"] != "Shop server" ||
		len(server) < 40 || res.JSON["id"] == "" {
		t.Fatalf("server key: %s", res)
	}
	if s := res.JSON["scopes"].([]any); len(s) != 2 || s[0] != "orders" || s[1] != "ssr" {
		t.Fatalf("server key scopes: %v", s)
	}
	// The server key posts orders and cannot call the admin API.
	expect(t, p.env.Do("GET", "/admin/v1/reviews", nil, map[string]string{"Authorization": "Api-Key " + server}), 403, "forbidden / scope_missing")
	// Ingest takes the key and goes on to the request signature.
	expect(t, p.env.Do("POST", "/v1/ingest/orders", map[string]any{}, map[string]string{"Authorization": "Api-Key " + server}), 401,
		"signature_refused / secret_unknown")

	res = p.do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "Reports", "scopes": []string{"read", "export"}})
	expect(t, res, 201, "")
	api, _ := res.JSON["key"].(string)
	if res.JSON["kind"] != "api" || res.JSON["channel"] != nil {
		t.Fatalf("api key: %s", res)
	}
	hdr := map[string]string{"Authorization": "Api-Key " + api}
	expect(t, p.env.Do("GET", "/admin/v1/reviews", nil, hdr), 200, "")
	expect(t, p.env.Do("POST", "/admin/v1/moderation/bulk", map[string]any{"action": "approve", "ids": []string{}}, hdr), 403, "forbidden / scope_missing")
	expect(t, p.env.Do("GET", "/admin/v1/channels", nil, hdr), 403, "forbidden / scope_missing")

	for _, c := range []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"kind": "api_key", "label": "x", "scopes": []string{}}, "invalid / scopes_required"},
		{map[string]any{"kind": "api_key", "label": "x", "scopes": []string{"read", "admin"}}, "invalid / unknown_scope: admin"},
		{map[string]any{"kind": "api_key", "label": "x", "scopes": []string{"read", "write"}}, "invalid / scope_reserved: write"},
		{map[string]any{"kind": "api_key", "label": "x", "scopes": []string{"orders"}}, "invalid / unknown_scope: orders"},
		{map[string]any{"kind": "api_key", "label": "x"}, "invalid / channel_required"},
		{map[string]any{"kind": "api_key", "label": "x", "channel": "nope"}, "invalid / channel"},
		{map[string]any{"kind": "api_key", "channel": "web"}, "invalid / label"},
	} {
		expect(t, p.do("POST", "/admin/v1/channels", c.body), 400, c.code)
	}
	keys, err := p.env.App.DB.Read().ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 {
		t.Fatalf("refused key requests left keys behind: %d keys", len(keys))
	}
	assertActivity(t, p.env, panelUser, "key.created")
}

// TestDomainProofByDNS: a domain is proved by a TXT record at
// _service-verification.<domain>; missing, wrong and unreachable records are
// refused with their detail and the proof instructions.
func TestDomainProofByDNS(t *testing.T) {
	p := newChannelPanel(t)
	res := p.do("POST", "/admin/v1/channels/web/domains", map[string]any{"domain": "Shop-Two.example"})
	expect(t, res, 201, "")
	token, _ := res.JSON["token"].(string)
	if res.JSON["domain"] != "shop-two.example" || res.JSON["verified"] != false || token == "" ||
		res.JSON["path"] != "/.well-known/service-verification.txt" || res.JSON["dns_name"] != "_service-verification.shop-two.example" {
		t.Fatalf("added domain: %s", res)
	}
	// Adding it again answers the same token.
	if again := p.do("POST", "/admin/v1/channels/web/domains", map[string]any{"domain": "shop-two.example"}); again.JSON["token"] != token {
		t.Fatalf("second add: %s", again)
	}
	expect(t, p.do("POST", "/admin/v1/channels/web/domains", map[string]any{"domain": "not a domain"}), 400, "invalid / domain")
	expect(t, p.do("POST", "/admin/v1/channels/nope/domains", map[string]any{"domain": "x.example"}), 404, "not_found / not_found")

	verify := func() apptest.Response {
		return p.do("POST", "/admin/v1/channels/web/domains/shop-two.example/verify", map[string]any{"method": "dns"})
	}
	refused := func(detail string) {
		t.Helper()
		res := verify()
		expect(t, res, 400, "proof_refused / "+detail)
		if res.JSON["token"] != token || res.JSON["dns_name"] != "_service-verification.shop-two.example" ||
			res.JSON["path"] != "/.well-known/service-verification.txt" {
			t.Fatalf("refusal lacks the proof instructions: %s", res)
		}
	}
	refused("proof_not_found") // no record at all
	p.dns.TXT("_service-verification.shop-two.example", "v=spf1 -all", "reviewd-verification=0000")
	refused("dns_value_mismatch")
	p.dns.Fail("shop-two.example")
	refused("dns_unreachable")
	if row := p.channelRow(t, "web"); len(row["domains"].([]any)) != 2 || row["domains"].([]any)[0].(map[string]any)["verified"] != false {
		t.Fatalf("domain verified by a refused proof: %v", row["domains"])
	}
	p.dns.mu.Lock()
	delete(p.dns.fail, "shop-two.example.")
	p.dns.mu.Unlock()
	p.dns.TXT("_service-verification.shop-two.example", "v=spf1 -all", token)
	res = verify()
	expect(t, res, 200, "")
	if res.JSON["domain"] != "shop-two.example" || res.JSON["verified"] != true {
		t.Fatalf("verified: %s", res)
	}
	if d := p.channelRow(t, "web")["domains"].([]any)[0].(map[string]any); d["domain"] != "shop-two.example" || d["verified"] != true {
		t.Fatalf("list after proof: %v", d)
	}
	expect(t, p.do("POST", "/admin/v1/channels/web/domains/shop-two.example/verify", map[string]any{"method": "mail"}), 400, "invalid / method")
	expect(t, p.do("POST", "/admin/v1/channels/web/domains/other.example/verify", map[string]any{"method": "dns"}), 404, "not_found / not_found")
	assertActivity(t, p.env, panelUser, "domain.added", "domain.verified")
}

// TestDomainProofByFile: a domain is proved by a file at
// https://<domain>/.well-known/service-verification.txt holding the token, fetched
// over the SSRF-safe client.
func TestDomainProofByFile(t *testing.T) {
	p := newChannelPanel(t)
	res := p.do("POST", "/admin/v1/channels/web/domains", map[string]any{"domain": "files.example"})
	expect(t, res, 201, "")
	token := res.JSON["token"].(string)
	verify := func() apptest.Response {
		return p.do("POST", "/admin/v1/channels/web/domains/files.example/verify", map[string]any{"method": "file"})
	}
	expect(t, verify(), 400, "proof_refused / proof_not_found") // 404
	p.serveFile("files.example", 500, token)
	expect(t, verify(), 400, "proof_refused / proof_not_found")
	p.serveFile("files.example", 200, "reviewd-verification=somebody-else")
	res = verify()
	expect(t, res, 400, "proof_refused / token_mismatch")
	if res.JSON["token"] != token || res.JSON["path"] != "/.well-known/service-verification.txt" {
		t.Fatalf("refusal lacks the proof instructions: %s", res)
	}
	p.serveFile("files.example", 200, "# reviewd\n"+token+"\n")
	expect(t, verify(), 200, "")
	if d := p.channelRow(t, "web")["domains"].([]any)[0].(map[string]any); d["domain"] != "files.example" || d["verified"] != true {
		t.Fatalf("list after proof: %v", d)
	}
}

// TestDomainRemoval: a domain carrying a method statement address, a landing
// address or a sender address stays; a free one goes.
func TestDomainRemoval(t *testing.T) {
	p := newChannelPanel(t)
	ctx := context.Background()
	// A second verified domain on web, proved by DNS.
	token := p.do("POST", "/admin/v1/channels/web/domains", map[string]any{"domain": "brand.example"}).JSON["token"].(string)
	p.dns.TXT("_service-verification.brand.example", token)
	expect(t, p.do("POST", "/admin/v1/channels/web/domains/brand.example/verify", map[string]any{"method": "dns"}), 200, "")

	ch, err := p.env.App.DB.Read().ChannelByCode(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	err = p.env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		return tx.SetMethodStatementURL(ctx, ch.ID, "tr", "https://www.brand.example/how-we-collect")
	})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/brand.example", nil), 409, "domain_in_statement / web/tr")
	err = p.env.App.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.SetMethodStatementURL(ctx, ch.ID, "tr", "") })
	if err != nil {
		t.Fatal(err)
	}

	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"landing_url": "https://brand.example/review"}), 200, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/brand.example", nil), 409, "domain_in_use / channels: web")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"landing_url": "https://shop.example/review",
		"sender_address": "hello@brand.example"}), 200, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/brand.example", nil), 409, "sender_domain_refused / sender_domain_in_use")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"sender_address": "hello@shop.example"}), 200, "")

	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/brand.example", nil), 204, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/brand.example", nil), 404, "not_found / not_found")
	if ds := p.channelRow(t, "web")["domains"].([]any); len(ds) != 1 {
		t.Fatalf("domains after removal: %v", ds)
	}
	// The settings' sender address holds a domain too.
	expect(t, p.do("POST", "/admin/v1/settings", map[string]any{"sender_address": "news@shop.example"}), 200, "")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"sender_address": ""}), 200, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/shop.example", nil), 409, "domain_in_use / channels: web")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"landing_url": ""}), 200, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/shop.example", nil), 409, "sender_domain_refused / sender_domain_in_use")
	assertActivity(t, p.env, panelUser, "domain.removed")
}

// TestChannelSenderAddress: a channel's sender address must be on a verified
// domain; a subdomain of one must be set up for mail in DNS; DNS failure is 502.
func TestChannelSenderAddress(t *testing.T) {
	p := newChannelPanel(t)
	set := func(addr string) apptest.Response {
		return p.do("PATCH", "/admin/v1/channels/web", map[string]any{"sender_address": addr})
	}
	expect(t, set("not an address"), 400, "invalid / sender_address")
	expect(t, set("care@elsewhere.example"), 400, "invalid / sender_domain_unverified")
	expect(t, set("care@mail.shop.example"), 400, "invalid / sender_domain_unverified") // no records
	p.dns.Fail("broken.shop.example")
	expect(t, set("care@broken.shop.example"), 502, "sender_domain_check_failed / dns_unreachable")
	p.dns.MX("mail.shop.example", "mx.shop.example")
	res := set("care@mail.shop.example")
	expect(t, res, 200, "")
	if res.JSON["sender_address"] != "care@mail.shop.example" {
		t.Fatalf("sender: %s", res)
	}
	p.dns.TXT("news.shop.example", "v=spf1 include:_spf.shop.example -all")
	expect(t, set("care@news.shop.example"), 200, "")
	expect(t, set("care@shop.example"), 200, "")
	if row := p.channelRow(t, "web"); row["sender_address"] != "care@shop.example" {
		t.Fatalf("row: %v", row)
	}
}

// TestSettingsSenderAddress: the settings' sender address follows the channels'
// sender rule, asked of the local DNS server: a verified domain passes, a subdomain
// needs an MX or TXT record, DNS failure is 502, and nothing is saved on a refusal
// (the other fields of the request included). A domain that carries it cannot be
// removed.
func TestSettingsSenderAddress(t *testing.T) {
	p := newChannelPanel(t)
	set := func(addr string) apptest.Response {
		return p.do("POST", "/admin/v1/settings", map[string]any{"sender_address": addr, "daily_limit": 3})
	}
	saved := func() map[string]any {
		t.Helper()
		res := p.do("GET", "/admin/v1/settings", nil)
		expect(t, res, 200, "")
		return res.JSON
	}
	expect(t, set("not an address"), 400, "invalid / sender_address")
	expect(t, set("news@elsewhere.example"), 400, "invalid / sender_domain_unverified")
	expect(t, set("news@mail.shop.example"), 400, "invalid / sender_domain_unverified") // no records
	p.dns.Fail("broken.shop.example")
	expect(t, set("news@broken.shop.example"), 502, "sender_domain_check_failed / dns_unreachable")
	if s := saved(); s["sender_address"] != "" || s["daily_limit"] != float64(1) {
		t.Fatalf("a refused request saved: %v", s)
	}
	p.dns.MX("mail.shop.example", "mx.shop.example")
	res := set("news@mail.shop.example")
	expect(t, res, 200, "")
	if res.JSON["sender_address"] != "news@mail.shop.example" || res.JSON["daily_limit"] != float64(3) {
		t.Fatalf("settings: %s", res)
	}
	p.dns.TXT("news.shop.example", "v=spf1 include:_spf.shop.example -all")
	expect(t, set("hello@news.shop.example"), 200, "")
	expect(t, set("hello@shop.example"), 200, "")
	if s := saved(); s["sender_address"] != "hello@shop.example" {
		t.Fatalf("saved: %v", s)
	}
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"landing_url": ""}), 200, "")
	expect(t, p.do("DELETE", "/admin/v1/channels/web/domains/shop.example", nil), 409, "sender_domain_refused / sender_domain_in_use")
}

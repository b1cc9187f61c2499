package ingest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/access"
)

// TestAuthErrors covers the key and signature rows of spec 1 "Errors (transfer)".
func TestAuthErrors(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	body := jsonBytes(order("A-1"))

	revoked, err := f.App.Access.CreateKey(ctx, core.Console(), access.NewKey{Kind: access.KindServer, ChannelCode: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.App.Access.RevokeKey(ctx, core.Console(), revoked.PublicID); err != nil {
		t.Fatal(err)
	}
	noScope, err := f.App.Access.CreateKey(ctx, core.Console(), access.NewKey{Kind: access.KindServer, ChannelCode: "web"})
	if err != nil {
		t.Fatal(err)
	}
	f.exec(`UPDATE api_keys SET scopes = 'ssr' WHERE public_id = ?`, noScope.PublicID)
	apiKey := f.Key("api", "", "read")
	siteKey := f.Key("site", "web")

	pwID, pw := f.Password(core.PurposeSigning, "web")
	revokedID, revokedPw := f.Password(core.PurposeSigning, "web")
	f.exec(`UPDATE passwords SET revoked_at = 1 WHERE id = ?`, revokedID)
	mailID, mailPw := f.Password(core.PurposeMailEvents, "")

	good := f.signed(pwID, pw, body)
	with := func(h map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for a, b := range h {
			out[a] = b
		}
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	old := f.Clock.T.Add(-6 * time.Minute).Format(time.RFC3339)
	cases := []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"unknown key", bearer("rvd_srv_" + strings.Repeat("A", 43)), 401, "refused / unknown_key"},
		{"admin api key lacks orders", bearer(apiKey), 403, "refused / scope_missing"},
		{"site key lacks orders", bearer(siteKey), 403, "refused / scope_missing"},
		{"malformed key", bearer("not-a-key"), 401, "refused / malformed_key"},
		{"revoked key", bearer(revoked.Secret), 401, "refused / revoked_key"},
		{"key without orders scope", bearer(noScope.Secret), 403, "refused / scope_missing"},
		{"signature missing", with(good, "X-Service-Signature", ""), 401, "signature_refused / signature_missing"},
		{"timestamp missing", with(good, "X-Service-Timestamp", ""), 401, "signature_refused / timestamp_missing"},
		{"timestamp without zone", with(good, "X-Service-Timestamp", "2026-06-01T10:00:00"), 401, "signature_refused / timestamp_invalid"},
		{"timestamp unreadable", with(good, "X-Service-Timestamp", "yesterday"), 401, "signature_refused / timestamp_invalid"},
		{"timestamp outside window", f.signedAt(pwID, pw, body, old), 401, "signature_refused / timestamp_outside_window"},
		{"signature wrong", with(good, "X-Service-Signature", strings.Repeat("0", 64)), 401, "signature_refused / signature_mismatch"},
		{"signature over other bytes", f.signed(pwID, pw, append(body, ' ')), 401, "signature_refused / signature_mismatch"},
		{"password unknown", with(good, "X-Service-Secret", "pw_0000000000000000"), 401, "signature_refused / secret_unknown"},
		{"password revoked", f.signed(revokedID, revokedPw, body), 401, "signature_refused / secret_unknown"},
		{"mail events password", f.signed(mailID, mailPw, body), 401, "signature_refused / secret_unknown"},
		{"no bearer and no signature", nil, 401, "signature_refused / secret_unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/v1/ingest/orders", "/v1/ingest/deliveries"} {
				expect(t, f.Do("POST", path, body, c.headers), c.status, c.code)
			}
		})
	}
	if _, ok := f.storedOrder("A-1"); ok {
		t.Fatal("a refused request saved its order")
	}
	// The right signature is accepted.
	r := f.Do("POST", "/v1/ingest/orders", body, good)
	expect(t, r, 200, "")
}

func (f *fixture) signedAt(id, secret string, body []byte, ts string) map[string]string {
	return map[string]string{"X-Service-Secret": id, "X-Service-Timestamp": ts, "X-Service-Signature": core.Sign([]byte(secret), ts, body)}
}

// TestBodyAndFieldErrors covers the body and field rows of spec 1 "Errors
// (transfer)" with their exact details.
func TestBodyAndFieldErrors(t *testing.T) {
	f := newFixture(t)
	f.Channel("fr", "FR", "en")
	f.Channel("off", "TR", "tr")
	off, _ := f.App.DB.Read().ChannelByCode(context.Background(), "off")
	f.exec(`UPDATE channels SET active = 0 WHERE id = ?`, off.ID)

	long := func(n int) string { return strings.Repeat("x", n) }
	many := make([]any, 101)
	for i := range many {
		many[i] = order("B-" + string(rune('a'+i%26)) + long(i%5))
	}
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	items := func(l map[string]any) map[string]any { return map[string]any{"items": []any{l}} }
	cases := []struct {
		name string
		body any
		code string
	}{
		{"bad json", `{"external_id": "A-1",`, "invalid / body_invalid"},
		{"too deep", `{"orders": ` + deep + `}`, "invalid / body_invalid"},
		{"not an object", `[1, 2]`, "invalid / body_invalid"},
		{"empty body", "", "invalid / body_empty"},
		{"blank body", "  \n ", "invalid / body_empty"},
		{"101 orders", map[string]any{"channel": "web", "orders": many}, "invalid / batch_too_large: 100"},
		{"empty orders", map[string]any{"channel": "web", "orders": []any{}}, "invalid / field_missing: orders"},
		{"null orders", map[string]any{"channel": "web", "orders": nil}, "invalid / field_missing: orders"},
		{"orders not a list", map[string]any{"channel": "web", "orders": map[string]any{}}, "invalid / field_invalid: orders"},
		{"external_id missing", order("", map[string]any{"external_id": nil}), "invalid / field_missing: external_id"},
		{"external_id blank", order("  "), "invalid / field_missing: external_id"},
		{"payment_state missing", order("A", map[string]any{"payment_state": nil}), "invalid / field_missing: payment_state"},
		{"placed_at missing", order("A", map[string]any{"placed_at": nil}), "invalid / field_missing: placed_at"},
		{"items missing", order("A", map[string]any{"items": nil}), "invalid / field_missing: items"},
		{"items empty", order("A", map[string]any{"items": []any{}}), "invalid / field_missing: items"},
		{"line_reference missing", order("A", items(line("1", map[string]any{"line_reference": nil}))), "invalid / field_missing: line_reference"},
		{"variant_key missing", order("A", items(line("1", map[string]any{"variant_key": nil}))), "invalid / field_missing: variant_key"},
		{"channel missing with market", order("A", map[string]any{"channel": nil, "market": "TR"}), "invalid / field_missing: channel"},
		{"NUL in email", `{"channel":"web","external_id":"A","payment_state":"paid","placed_at":"2026-05-20T09:00:00Z","customer_email":"a\u0000@example.com","items":[{"line_reference":"1","variant_key":"S"}]}`, "invalid / field_invalid: customer_email"},
		{"unpaired surrogate in email", `{"channel":"web","external_id":"A","payment_state":"paid","placed_at":"2026-05-20T09:00:00Z","customer_email":"a\ud800@example.com","items":[{"line_reference":"1","variant_key":"S"}]}`, "invalid / field_invalid: customer_email"},
		{"email without domain", order("A", map[string]any{"customer_email": "ayse@"}), "invalid / field_invalid: customer_email"},
		{"email with space", order("A", map[string]any{"customer_email": "ay se@example.com"}), "invalid / field_invalid: customer_email"},
		{"placed_at without zone", order("A", map[string]any{"placed_at": "2026-05-20T09:00:00"}), "invalid / field_invalid: placed_at"},
		{"delivered_at unreadable", order("A", items(line("1", map[string]any{"delivered_at": "20 May"}))), "invalid / field_invalid: delivered_at"},
		{"language", order("A", map[string]any{"language": "de"}), "invalid / field_invalid: language"},
		{"market format", order("A", map[string]any{"market": "T1"}), "invalid / field_invalid: market"},
		{"quantity text", order("A", items(line("1", map[string]any{"quantity": "2"}))), "invalid / field_invalid: quantity"},
		{"quantity negative", order("A", items(line("1", map[string]any{"quantity": -1}))), "invalid / field_invalid: quantity"},
		{"external_id number", order("A", map[string]any{"external_id": 42}), "invalid / field_invalid: external_id"},
		{"items not a list", order("A", map[string]any{"items": map[string]any{}}), "invalid / field_invalid: items"},
		{"line twice", order("A", map[string]any{"items": []any{line("1"), line("1")}}), "invalid / field_invalid: line_reference"},
		{"control character", order("A\n1"), "invalid / field_invalid: external_id"},
		{"external_id too long", order(long(129)), "invalid / field_too_long: external_id"},
		{"channel too long", order("A", map[string]any{"channel": long(33)}), "invalid / field_too_long: channel"},
		{"top channel too long", map[string]any{"channel": long(33), "orders": []any{order("A")}}, "invalid / field_too_long: channel"},
		{"email too long", order("A", map[string]any{"customer_email": long(243) + "@example.com"}), "invalid / field_too_long: customer_email"},
		{"customer_key too long", order("A", map[string]any{"customer_key": long(129)}), "invalid / field_too_long: customer_key"},
		{"customer_phone too long", order("A", map[string]any{"customer_phone": "+90" + strings.Repeat("5", 30)}), "invalid / field_too_long: customer_phone"},
		{"line_reference too long", order("A", items(line(long(129)))), "invalid / field_too_long: line_reference"},
		{"variant_key too long", order("A", items(line("1", map[string]any{"variant_key": long(129)}))), "invalid / field_too_long: variant_key"},
		{"group_key too long", order("A", items(line("1", map[string]any{"group_key": long(129)}))), "invalid / field_too_long: group_key"},
		{"catalog_id too long", order("A", items(line("1", map[string]any{"catalog_id": long(129)}))), "invalid / field_too_long: catalog_id"},
		{"title too long", order("A", items(line("1", map[string]any{"title": long(301)}))), "invalid / field_too_long: title"},
		{"market required", order("A", map[string]any{"channel": nil}), "invalid / market_required"},
		{"market without policy", order("A", map[string]any{"channel": "fr"}), "invalid / market_without_policy: FR"},
		{"channel unknown", order("A", map[string]any{"channel": "nope"}), "invalid / channel_unknown"},
		{"channel off", order("A", map[string]any{"channel": "off"}), "invalid / channel_unknown"},
		{"market mismatch", order("A", map[string]any{"market": "DE"}), "invalid / market_channel_mismatch: DE"},
		{"payment state unknown", order("A", map[string]any{"payment_state": "PAID"}), "invalid / status_unmapped: payment_state/PAID"},
		{"fulfilment state unknown", order("A", items(line("1", map[string]any{"fulfilment_state": "lost"}))), "invalid / status_unmapped: items[0].fulfilment_state/lost"},
		{"fulfilment state unknown in batch", map[string]any{"orders": []any{order("A"), order("B", map[string]any{"items": []any{line("1"), line("2", map[string]any{"fulfilment_state": "Delivered"})}})}},
			"invalid / status_unmapped: orders[1].items[1].fulfilment_state/Delivered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expect(t, f.orders(c.body), 400, c.code)
		})
	}
	// Exactly at the limits is fine.
	ok := order(long(128), map[string]any{"channel": "web", "customer_key": long(128), "customer_phone": strings.Repeat("5", 32),
		"customer_email": long(64) + "@" + long(60) + "." + long(60) + "." + long(60) + ".com",
		"items":          []any{line(long(128), map[string]any{"variant_key": long(128), "group_key": long(128), "catalog_id": long(128), "title": long(300)})}})
	expect(t, f.orders(ok), 200, "")
	if n := f.count(`SELECT count(*) FROM orders`); n != 1 {
		t.Fatalf("%d orders stored, want only the valid one", n)
	}
}

// TestDeliveryFieldErrors covers the field rules of delivery records.
func TestDeliveryFieldErrors(t *testing.T) {
	f := newFixture(t)
	d := func(mods map[string]any) map[string]any {
		v := map[string]any{"external_id": "A", "line_reference": "1", "state": "delivered", "observed_at": "2026-05-30T12:00:00Z"}
		for k, x := range mods {
			if x == nil {
				delete(v, k)
			} else {
				v[k] = x
			}
		}
		return v
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = d(nil)
	}
	cases := []struct {
		name string
		body any
		code string
	}{
		{"101 deliveries", map[string]any{"deliveries": many}, "invalid / batch_too_large: 100"},
		{"empty list", map[string]any{"deliveries": []any{}}, "invalid / field_missing: deliveries"},
		{"external_id missing", d(map[string]any{"external_id": nil}), "invalid / field_missing: external_id"},
		{"line missing", d(map[string]any{"line_reference": nil}), "invalid / field_missing: line_reference"},
		{"state missing", d(map[string]any{"state": nil}), "invalid / field_missing: state"},
		{"observed_at missing", d(map[string]any{"observed_at": nil}), "invalid / field_missing: observed_at"},
		{"observed_at without zone", d(map[string]any{"observed_at": "2026-05-30T12:00:00"}), "invalid / field_invalid: observed_at"},
		{"source unknown", d(map[string]any{"source": "drone"}), "invalid / field_invalid: source"},
		{"confidence unknown", d(map[string]any{"confidence": "sure"}), "invalid / field_invalid: confidence"},
		{"external_id too long", d(map[string]any{"external_id": strings.Repeat("x", 129)}), "invalid / field_too_long: external_id"},
		{"state unknown", d(map[string]any{"state": "lost"}), "invalid / status_unmapped: state/lost"},
		{"state unknown in list", map[string]any{"deliveries": []any{d(nil), d(map[string]any{"state": "gone"})}}, "invalid / status_unmapped: deliveries[1].state/gone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expect(t, f.deliveries(c.body), 400, c.code)
		})
	}
}

// TestKeyRateLimit: the 601st request within 5 minutes with one key gets 429.
func TestKeyRateLimit(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 600; i++ {
		r := f.orders(map[string]any{}) // refused for a field, not counted as a refusal by IP
		if r.Status != 400 {
			t.Fatalf("request %d: %d %s", i+1, r.Status, r.Code())
		}
	}
	expect(t, f.orders(order("A")), 429, "rate_limited / rate_limited")
	// Another key is not affected.
	expect(t, f.Do("POST", "/v1/ingest/orders", order("A"), bearer(f.Key("server", "web"))), 200, "")
	f.Clock.Advance(5 * time.Minute)
	expect(t, f.orders(order("B")), 200, "")
}

// TestRefusalRateLimit: after 60 refused credentials from one address every request
// of that address gets 429 until the budget refills.
func TestRefusalRateLimit(t *testing.T) {
	f := newFixture(t)
	bad := bearer("rvd_srv_" + strings.Repeat("B", 43))
	for i := 0; i < 60; i++ {
		expect(t, f.Do("POST", "/v1/ingest/orders", order("A"), bad), 401, "refused / unknown_key")
	}
	expect(t, f.Do("POST", "/v1/ingest/orders", order("A"), bad), 429, "rate_limited / rate_limited")
	expect(t, f.orders(order("A")), 429, "rate_limited / rate_limited")
	f.Clock.Advance(5 * time.Minute)
	expect(t, f.orders(order("A")), 200, "")
}

// TestBodyTooLarge: bodies over the limit are refused before reading them whole.
func TestBodyTooLarge(t *testing.T) {
	f := newFixture(t)
	big := `{"external_id": "` + strings.Repeat("x", 5<<20) + `"}`
	expect(t, f.orders(big), 413, "invalid / body_too_large")
}

package ingest_test

import (
	"testing"
	"time"
)

func (f *fixture) admin() map[string]string {
	return map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "read")}
}

// TestDryRun: the check answers what a real transfer would, and saves nothing.
func TestDryRun(t *testing.T) {
	f := newFixture(t)
	h := f.admin()
	check := func(kind string, body any) map[string]any {
		t.Helper()
		r := f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": kind, "body": body}, h)
		expect(t, r, 200, "")
		return r.JSON
	}
	batch := map[string]any{"channel": "web", "orders": []any{order("Y-1"), order("Y-2")}}
	if a := check("order", batch); a["accepted"] != true || a["records"] != float64(2) || a["error"] != nil {
		t.Fatalf("%v", a)
	}
	if _, ok := f.storedOrder("Y-1"); ok {
		t.Fatal("the dry run saved an order")
	}
	a := check("order", order("Y-1", map[string]any{"market": "DE"}))
	e, _ := a["error"].(map[string]any)
	if a["accepted"] != false || a["records"] != float64(0) || e["status"] != float64(400) || e["error"] != "invalid" || e["detail"] != "market_channel_mismatch: DE" {
		t.Fatalf("%v", a)
	}
	// The body may be given as text, to try unreadable bodies.
	a = check("order", `{"external_id": `)
	if e, _ := a["error"].(map[string]any); e["detail"] != "body_invalid" {
		t.Fatalf("%v", a)
	}
	a = check("delivery", "")
	if e, _ := a["error"].(map[string]any); e["detail"] != "body_empty" {
		t.Fatalf("%v", a)
	}
	expect(t, f.orders(order("Y-3", map[string]any{"items": []any{line("1", map[string]any{"fulfilment_state": "shipped"})}})), 200, "")
	a = check("delivery", map[string]any{"deliveries": []any{
		delivery("Y-3", "1", "delivered", "2026-05-30T12:00:00Z"), delivery("Y-9", "1", "delivered", "2026-05-30T12:00:00Z")}})
	if a["accepted"] != true || a["records"] != float64(1) || len(a["unknown"].([]any)) != 1 {
		t.Fatalf("%v", a)
	}
	if l := f.line("Y-3", "1"); l.FulfilmentState != "shipped" {
		t.Fatalf("the dry run moved a line: %+v", l)
	}
	if n := f.count(`SELECT count(*) FROM deliveries`); n != 0 {
		t.Fatalf("the dry run stored %d deliveries", n)
	}
	// Without credentials the answer does not tell which order lines exist.
	anon := f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "delivery", "body": map[string]any{"deliveries": []any{
		delivery("Y-3", "1", "delivered", "2026-05-30T12:00:00Z"), delivery("Y-9", "1", "delivered", "2026-05-30T12:00:00Z")}}}, nil)
	expect(t, anon, 200, "")
	if anon.JSON["accepted"] != true || anon.JSON["records"] != float64(2) || anon.JSON["unknown"] != nil {
		t.Fatalf("anonymous delivery dry run: %v", anon.JSON)
	}
	if n := f.count(`SELECT count(*) FROM ingest_requests`); n != 1 {
		t.Fatalf("%d transfer rows; dry runs are not transfers", n)
	}
	// Wrong input of the check itself.
	expect(t, f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "invoice", "body": order("Y")}, h), 400, "invalid / kind")
	expect(t, f.Do("POST", "/admin/v1/ingest/check", `{"kind": "order",`, h), 400, "invalid_json / invalid_json")
	// No key is needed (spec 1, rule 5): an anonymous dry run answers and saves nothing.
	anon = f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "order", "body": order("Y")}, nil)
	expect(t, anon, 200, "")
	if anon.JSON["accepted"] != true || anon.JSON["records"] != float64(1) {
		t.Fatalf("anonymous dry run: %v", anon.JSON)
	}
	if n := f.count(`SELECT count(*) FROM orders WHERE external_id = 'Y'`); n != 0 {
		t.Fatalf("the anonymous dry run saved the order")
	}
}

func TestDryRunRateLimit(t *testing.T) {
	f := newFixture(t)
	h := f.admin()
	for i := 0; i < 120; i++ {
		expect(t, f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "order", "body": order("Z")}, h), 200, "")
	}
	expect(t, f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "order", "body": order("Z")}, h), 429, "rate_limited / rate_limited")
}

// TestStats: orders received per channel, 7 days of request figures, recent
// requests across channels (refused ones included).
func TestStats(t *testing.T) {
	f := newFixture(t)
	f.Channel("app", "TR", "en")
	h := f.admin()
	f.Clock.Advance(-2 * 24 * time.Hour)
	expect(t, f.orders(order("S-1")), 200, "")
	expect(t, f.orders(order("S-2", map[string]any{"market": "US"})), 400, "")
	f.Clock.Advance(2 * 24 * time.Hour)
	expect(t, f.orders(map[string]any{"channel": "app", "orders": []any{order("S-3", map[string]any{"channel": nil}), order("S-4", map[string]any{"channel": nil})}}), 200, "")
	expect(t, f.orders(order("S-1", map[string]any{"payment_state": "refunded"})), 200, "")
	expect(t, f.Do("POST", "/v1/ingest/orders", order("S-5"), bearer("bad")), 401, "")
	expect(t, f.deliveries(delivery("S-1", "1", "delivered", "2026-05-31T12:00:00Z")), 200, "")

	r := f.Do("GET", "/admin/v1/ingest/stats?channel=web", nil, h)
	expect(t, r, 200, "")
	if r.JSON["orders_received"] != float64(1) {
		t.Fatalf("%s", r.Body)
	}
	daily := r.JSON["daily"].([]any)
	if len(daily) != 7 {
		t.Fatalf("%d days", len(daily))
	}
	last, twoAgo := daily[6].(map[string]any), daily[4].(map[string]any)
	if last["date"] != "2026-06-01" || last["requests"] != float64(2) || last["refused"] != float64(0) ||
		twoAgo["date"] != "2026-05-30" || twoAgo["requests"] != float64(2) || twoAgo["refused"] != float64(1) {
		t.Fatalf("daily %v", daily)
	}
	recent := r.JSON["recent"].([]any)
	if len(recent) != 6 {
		t.Fatalf("recent %v", recent)
	}
	newest := recent[0].(map[string]any)
	if newest["kind"] != "delivery" || newest["channel"] != "web" || newest["status"] != float64(200) || newest["records"] != float64(1) {
		t.Fatalf("newest %v", newest)
	}
	refused := recent[1].(map[string]any)
	if refused["status"] != float64(401) || refused["channel"] != "" || refused["error"] != "refused / malformed_key" {
		t.Fatalf("refused %v", refused)
	}
	if app := recent[3].(map[string]any); app["channel"] != "app" || app["records"] != float64(2) {
		t.Fatalf("batch %v", app)
	}

	all := f.Do("GET", "/admin/v1/ingest/stats", nil, h)
	if all.JSON["orders_received"] != float64(3) {
		t.Fatalf("%s", all.Body)
	}
	if d := all.JSON["daily"].([]any)[6].(map[string]any); d["requests"] != float64(4) || d["refused"] != float64(1) {
		t.Fatalf("%v", d)
	}
	expect(t, f.Do("GET", "/admin/v1/ingest/stats?channel=nope", nil, h), 400, "invalid / channel")
	expect(t, f.Do("GET", "/admin/v1/ingest/stats", nil, nil), 401, "")
}

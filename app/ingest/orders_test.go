package ingest_test

import (
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
)

func TestOrderAccepted(t *testing.T) {
	f := newFixture(t)
	r := f.orders(order("A-1", map[string]any{"customer_phone": "+90 555 000 00 00", "customer_key": "c-9",
		"items": []any{line("1", map[string]any{"group_key": "G", "catalog_id": "77", "title": "Mug\nblue", "quantity": 2}), line("2")}}))
	expect(t, r, 200, "")
	o := f.mustOrder("A-1")
	if r.JSON["accepted"] != float64(1) {
		t.Fatalf("answer %s", r.Body)
	}
	got := r.JSON["orders"].([]any)[0].(map[string]any)
	if got["external_id"] != "A-1" || got["id"] != core.OrderPublicID(o.ID) {
		t.Fatalf("answer %s", r.Body)
	}
	if o.Market != "TR" || o.Language != "tr" || o.PaymentState != "paid" || o.CustomerEmail != "ayse@example.com" ||
		o.CustomerKey != "c-9" || !o.PlacedAt.Equal(time.Date(2026, 5, 20, 6, 0, 0, 0, time.UTC)) {
		t.Fatalf("stored %+v", o)
	}
	l := f.line("A-1", "1")
	if l.GroupKey != "G" || l.CatalogID != "77" || l.Title != "Mug blue" || l.Quantity != 2 || l.FulfilmentState != "placed" {
		t.Fatalf("line %+v", l)
	}
	if l2 := f.line("A-1", "2"); l2.Quantity != 1 || l2.VariantKey != "SKU-2" {
		t.Fatalf("line 2 %+v", l2)
	}
	if n := f.count(`SELECT count(*) FROM orders WHERE customer_email LIKE '%555%' OR customer_key LIKE '%555%'`); n != 0 {
		t.Fatal("the phone number was stored")
	}
}

func TestSignedBatchAccepted(t *testing.T) {
	f := newFixture(t)
	id, secret := f.Password(core.PurposeSigning, "web")
	body := jsonBytes(map[string]any{"channel": "web", "orders": []any{order("S-1", map[string]any{"channel": nil}), order("S-2", map[string]any{"channel": nil})}})
	r := f.Do("POST", "/v1/ingest/orders", body, f.signed(id, secret, body))
	expect(t, r, 200, "")
	if r.JSON["accepted"] != float64(2) || len(r.JSON["orders"].([]any)) != 2 {
		t.Fatalf("answer %s", r.Body)
	}
	f.mustOrder("S-1")
	f.mustOrder("S-2")
}

// TestBatchAllOrNothing: one refused order refuses the whole request.
func TestBatchAllOrNothing(t *testing.T) {
	f := newFixture(t)
	r := f.orders(map[string]any{"channel": "web", "orders": []any{order("B-1"), order("B-2"), order("B-3", map[string]any{"channel": "nope"})}})
	expect(t, r, 400, "invalid / channel_unknown")
	for _, ext := range []string{"B-1", "B-2", "B-3"} {
		if _, ok := f.storedOrder(ext); ok {
			t.Fatalf("%s was saved from a refused request", ext)
		}
	}
	// An order already stored is not changed by a refused request either.
	expect(t, f.orders(order("B-1")), 200, "")
	r = f.orders(map[string]any{"orders": []any{order("B-1", map[string]any{"payment_state": "refunded"}), order("B-2", map[string]any{"items": nil})}})
	expect(t, r, 400, "invalid / field_missing: items")
	if o := f.mustOrder("B-1"); o.PaymentState != "paid" {
		t.Fatalf("refused request changed the order: %+v", o)
	}
}

// TestResendUpdates: the same order number updates the same record; missing lines
// and omitted optional fields are kept.
func TestResendUpdates(t *testing.T) {
	f := newFixture(t)
	r1 := f.orders(order("R-1", map[string]any{"customer_key": "k1", "items": []any{line("1", map[string]any{"title": "Mug"}), line("2")}}))
	expect(t, r1, 200, "")
	first := f.mustOrder("R-1")
	f.Clock.Advance(time.Hour)
	r2 := f.orders(order("R-1", map[string]any{"payment_state": "partially_refunded", "customer_email": nil, "channel": nil,
		"items": []any{line("1", map[string]any{"quantity": 3, "fulfilment_state": "shipped"})}}))
	expect(t, r2, 200, "")
	if r1.JSON["orders"].([]any)[0].(map[string]any)["id"] != r2.JSON["orders"].([]any)[0].(map[string]any)["id"] {
		t.Fatalf("ids differ: %s / %s", r1.Body, r2.Body)
	}
	o := f.mustOrder("R-1")
	if o.ID != first.ID || o.PaymentState != "partially_refunded" || o.CustomerEmail != "ayse@example.com" || o.CustomerKey != "k1" ||
		o.ChannelID != first.ChannelID || !o.PaymentChangedAt.Equal(f.Clock.T) || !o.CreatedAt.Equal(first.CreatedAt) {
		t.Fatalf("re-sent order %+v (first %+v)", o, first)
	}
	if l := f.line("R-1", "1"); l.Quantity != 3 || l.Title != "Mug" || l.FulfilmentState != "shipped" {
		t.Fatalf("line 1 %+v", l)
	}
	f.line("R-1", "2") // kept
	if n := f.count(`SELECT count(*) FROM orders`); n != 1 {
		t.Fatalf("%d orders", n)
	}
	// The same number twice in one request: the later wins, one record.
	r := f.orders(map[string]any{"channel": "web", "orders": []any{order("R-2"), order("R-2", map[string]any{"payment_state": "voided"})}})
	expect(t, r, 200, "")
	if o := f.mustOrder("R-2"); o.PaymentState != "voided" {
		t.Fatalf("%+v", o)
	}
	if n := f.count(`SELECT count(*) FROM orders`); n != 2 {
		t.Fatalf("%d orders", n)
	}
}

// TestChannelPrecedence: the order's channel beats the top-level one; without
// either the stored order's channel is kept.
func TestChannelPrecedence(t *testing.T) {
	f := newFixture(t)
	f.Channel("shop2", "TR", "en")
	r := f.orders(map[string]any{"channel": "web", "orders": []any{order("C-1", map[string]any{"channel": "shop2"}), order("C-2", map[string]any{"channel": nil})}})
	expect(t, r, 200, "")
	c1, c2 := f.mustOrder("C-1"), f.mustOrder("C-2")
	if c1.ChannelID == c2.ChannelID || c1.Language != "en" || c2.Language != "tr" {
		t.Fatalf("c1 %+v c2 %+v", c1, c2)
	}
	expect(t, f.orders(order("C-1", map[string]any{"channel": nil})), 200, "")
	if o := f.mustOrder("C-1"); o.ChannelID != c1.ChannelID {
		t.Fatalf("channel not kept: %+v", o)
	}
	// A stored order on a channel that was turned off is refused like the channel.
	f.exec(`UPDATE channels SET active = 0 WHERE code = 'shop2'`)
	expect(t, f.orders(order("C-1", map[string]any{"channel": nil})), 400, "invalid / channel_unknown")
}

// TestErasedOrderResend: pseudonymised customer fields are never written back.
func TestErasedOrderResend(t *testing.T) {
	f := newFixture(t)
	expect(t, f.orders(order("E-1", map[string]any{"customer_key": "k"})), 200, "")
	f.exec(`UPDATE orders SET customer_email = 'pseudo1', customer_key = 'pseudo2', erased_at = 1 WHERE external_id = 'E-1'`)
	expect(t, f.orders(order("E-1", map[string]any{"customer_key": "k", "payment_state": "refunded"})), 200, "")
	o := f.mustOrder("E-1")
	if o.CustomerEmail != "pseudo1" || o.CustomerKey != "pseudo2" || !o.Erased() || o.PaymentState != "refunded" {
		t.Fatalf("%+v", o)
	}
}

// TestOrderDataDeliveries: delivered, returned and cancelled lines in order data make
// their own delivery record, once.
func TestOrderDataDeliveries(t *testing.T) {
	f := newFixture(t)
	at := "2026-05-28T15:00:00+03:00"
	body := order("D-1", map[string]any{"items": []any{
		line("1", map[string]any{"fulfilment_state": "delivered", "delivered_at": at}),
		line("2", map[string]any{"fulfilment_state": "delivered"}),
		line("3", map[string]any{"fulfilment_state": "cancelled"}),
		line("4", map[string]any{"fulfilment_state": "shipped"}),
	}})
	expect(t, f.orders(body), 200, "")
	ds := f.lineDeliveries("D-1", "1")
	if len(ds) != 1 || ds[0].State != "delivered" || ds[0].Source != "platform" || ds[0].Confidence != "verified" ||
		!ds[0].ObservedAt.Equal(time.Date(2026, 5, 28, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("deliveries of line 1: %+v", ds)
	}
	if l := f.line("D-1", "1"); !l.DeliveredAt.Equal(ds[0].ObservedAt) {
		t.Fatalf("line 1 %+v", l)
	}
	if ds := f.lineDeliveries("D-1", "2"); len(ds) != 1 || !ds[0].ObservedAt.Equal(f.Clock.T) {
		t.Fatalf("deliveries of line 2: %+v", ds)
	}
	if ds := f.lineDeliveries("D-1", "3"); len(ds) != 1 || ds[0].State != "cancelled" {
		t.Fatalf("deliveries of line 3: %+v", ds)
	}
	if ds := f.lineDeliveries("D-1", "4"); len(ds) != 0 {
		t.Fatalf("shipped line got a delivery record: %+v", ds)
	}
	// Sending the same order again stores nothing twice.
	f.Clock.Advance(time.Hour)
	expect(t, f.orders(body), 200, "")
	if n := f.count(`SELECT count(*) FROM deliveries`); n != 3 {
		t.Fatalf("%d delivery records after a re-send, want 3", n)
	}
}

// TestReturnedLineIgnoresDelivered: order data with delivered and no delivered_at
// leaves a returned or cancelled line unchanged; with a later delivered_at it is
// delivered again.
func TestReturnedLineIgnoresDelivered(t *testing.T) {
	f := newFixture(t)
	send := func(state, deliveredAt string) {
		t.Helper()
		l := line("1", map[string]any{"fulfilment_state": state})
		if deliveredAt != "" {
			l["delivered_at"] = deliveredAt
		}
		expect(t, f.orders(order("T-1", map[string]any{"items": []any{l}})), 200, "")
	}
	send("delivered", "2026-05-25T10:00:00Z")
	f.Clock.Advance(time.Hour)
	send("returned", "")
	if l := f.line("T-1", "1"); l.FulfilmentState != "returned" {
		t.Fatalf("%+v", l)
	}
	f.Clock.Advance(time.Hour)
	send("delivered", "")
	if l := f.line("T-1", "1"); l.FulfilmentState != "returned" {
		t.Fatalf("delivered without delivered_at moved a returned line: %+v", l)
	}
	send("delivered", "2026-05-25T10:00:00Z") // the old delivery, before the return
	if l := f.line("T-1", "1"); l.FulfilmentState != "returned" {
		t.Fatalf("an old delivered_at moved a returned line: %+v", l)
	}
	send("delivered", f.Clock.T.Format(time.RFC3339))
	if l := f.line("T-1", "1"); l.FulfilmentState != "delivered" || !l.DeliveredAt.Equal(f.Clock.T) {
		t.Fatalf("delivered again with delivered_at: %+v", l)
	}
	// Older pre-delivery states (or the default) never take a delivered line back.
	send("shipped", "")
	expect(t, f.orders(order("T-1")), 200, "")
	if l := f.line("T-1", "1"); l.FulfilmentState != "delivered" {
		t.Fatalf("a stale state took the line back: %+v", l)
	}
}

// TestStateEffects: refunds and returns are written to the activity history.
func TestStateEffects(t *testing.T) {
	f := newFixture(t)
	expect(t, f.orders(order("X-1", map[string]any{"items": []any{line("1", map[string]any{"fulfilment_state": "delivered"})}})), 200, "")
	expect(t, f.orders(order("X-1", map[string]any{"payment_state": "refunded", "items": []any{line("1", map[string]any{"fulfilment_state": "returned"})}})), 200, "")
	for _, action := range []string{"order.refunded", "line.returned", "orders.received"} {
		if n := f.count(`SELECT count(*) FROM activity_log WHERE action = ?`, action); n == 0 {
			t.Errorf("no %s activity", action)
		}
	}
	if n := f.count(`SELECT count(*) FROM activity_log WHERE detail LIKE '%ayse%'`); n != 0 {
		t.Error("activity detail holds the customer address")
	}
}

// TestUnicodeLengths: limits count characters, not bytes.
func TestUnicodeLengths(t *testing.T) {
	f := newFixture(t)
	expect(t, f.orders(order(strings.Repeat("ş", 128))), 200, "")
	expect(t, f.orders(order(strings.Repeat("ş", 129))), 400, "invalid / field_too_long: external_id")
}

// TestOrderLineIncentive: a line sent with "incentive": true is stored marked; a
// re-send without the field keeps the mark; false clears it; a line and an order
// without the field are stored exactly as before (unmarked, same answer); a value
// that is not a boolean is refused.
func TestOrderLineIncentive(t *testing.T) {
	f := newFixture(t)
	plain := f.orders(order("I-0", map[string]any{"items": []any{line("1")}}))
	expect(t, plain, 200, "")
	r := f.orders(order("I-1", map[string]any{"items": []any{line("1", map[string]any{"incentive": true}), line("2")}}))
	expect(t, r, 200, "")
	if !f.line("I-1", "1").Incentive || f.line("I-1", "2").Incentive || f.line("I-0", "1").Incentive {
		t.Fatal("incentive marks not stored as sent")
	}
	if strings.Contains(string(plain.Body), "incentive") || strings.Contains(string(r.Body), "incentive") {
		t.Fatalf("the answer changed: %s", r.Body)
	}
	expect(t, f.orders(order("I-1", map[string]any{"items": []any{line("1", map[string]any{"quantity": 2})}})), 200, "")
	if l := f.line("I-1", "1"); !l.Incentive || l.Quantity != 2 {
		t.Fatalf("re-send without the field: %+v", l)
	}
	expect(t, f.orders(order("I-1", map[string]any{"items": []any{line("1", map[string]any{"incentive": false})}})), 200, "")
	if f.line("I-1", "1").Incentive {
		t.Fatal("incentive false did not clear the mark")
	}
	expect(t, f.orders(order("I-2", map[string]any{"items": []any{line("1", map[string]any{"incentive": "yes"})}})), 400, "invalid / field_invalid: incentive")
}

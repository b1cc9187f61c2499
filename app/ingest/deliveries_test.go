package ingest_test

import (
	"testing"
	"time"
)

func delivery(ext, ref, state, at string, mods ...map[string]any) map[string]any {
	d := map[string]any{"external_id": ext, "line_reference": ref, "state": state, "observed_at": at,
		"detail": map[string]any{"carrier": "X", "tracking": "123"}}
	for _, m := range mods {
		for k, v := range m {
			d[k] = v
		}
	}
	return d
}

// fixtureWithOrder stores order O-1 with lines 1 and 2 in state shipped.
func fixtureWithOrder(t *testing.T) *fixture {
	f := newFixture(t)
	expect(t, f.orders(order("O-1", map[string]any{"items": []any{
		line("1", map[string]any{"fulfilment_state": "shipped"}), line("2", map[string]any{"fulfilment_state": "shipped"})}})), 200, "")
	return f
}

func TestDeliveryMovesLine(t *testing.T) {
	f := fixtureWithOrder(t)
	r := f.deliveries(delivery("O-1", "1", "delivered", "2026-05-30T12:00:00+02:00", map[string]any{"source": "carrier"}))
	expect(t, r, 200, "")
	if r.JSON["accepted"] != float64(1) || len(r.JSON["unknown"].([]any)) != 0 {
		t.Fatalf("answer %s", r.Body)
	}
	l := f.line("O-1", "1")
	if l.FulfilmentState != "delivered" || !l.DeliveredAt.Equal(time.Date(2026, 5, 30, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("%+v", l)
	}
	// An earlier verified report of the same delivery moves the delivery time back.
	expect(t, f.deliveries(delivery("O-1", "1", "delivered", "2026-05-30T08:00:00Z", map[string]any{"source": "manual"})), 200, "")
	if l := f.line("O-1", "1"); !l.DeliveredAt.Equal(time.Date(2026, 5, 30, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("%+v", l)
	}
	// A verified return, then a verified delivery observed later: delivered again.
	expect(t, f.deliveries(delivery("O-1", "1", "returned", "2026-05-31T08:00:00Z")), 200, "")
	if l := f.line("O-1", "1"); l.FulfilmentState != "returned" {
		t.Fatalf("%+v", l)
	}
	expect(t, f.deliveries(delivery("O-1", "1", "delivered", "2026-05-30T09:00:00Z")), 200, "")
	if l := f.line("O-1", "1"); l.FulfilmentState != "returned" {
		t.Fatalf("a delivery observed before the return moved the line: %+v", l)
	}
	expect(t, f.deliveries(delivery("O-1", "1", "delivered", "2026-06-01T09:00:00Z")), 200, "")
	if l := f.line("O-1", "1"); l.FulfilmentState != "delivered" {
		t.Fatalf("%+v", l)
	}
}

func TestDeliveryUnknownPairs(t *testing.T) {
	f := fixtureWithOrder(t)
	r := f.deliveries(map[string]any{"deliveries": []any{
		delivery("O-1", "1", "delivered", "2026-05-30T12:00:00Z"),
		delivery("O-1", "9", "delivered", "2026-05-30T12:00:00Z"),
		delivery("NOPE", "1", "delivered", "2026-05-30T12:00:00Z"),
		delivery("NOPE", "1", "returned", "2026-05-30T13:00:00Z"),
	}})
	expect(t, r, 200, "")
	unknown := r.JSON["unknown"].([]any)
	if r.JSON["accepted"] != float64(1) || len(unknown) != 2 {
		t.Fatalf("answer %s", r.Body)
	}
	u0 := unknown[0].(map[string]any)
	if u0["external_id"] != "O-1" || u0["line"] != "9" {
		t.Fatalf("unknown %v", unknown)
	}
	if l := f.line("O-1", "1"); l.FulfilmentState != "delivered" {
		t.Fatalf("%+v", l)
	}
}

func TestDeliveryUnknownStateRollsBack(t *testing.T) {
	f := fixtureWithOrder(t)
	r := f.deliveries(map[string]any{"deliveries": []any{
		delivery("O-1", "1", "delivered", "2026-05-30T12:00:00Z"),
		delivery("O-1", "2", "lost", "2026-05-30T12:00:00Z"),
	}})
	expect(t, r, 400, "invalid / status_unmapped: deliveries[1].state/lost")
	if l := f.line("O-1", "1"); l.FulfilmentState != "shipped" {
		t.Fatalf("%+v", l)
	}
	if n := f.count(`SELECT count(*) FROM deliveries`); n != 0 {
		t.Fatalf("%d records stored", n)
	}
}

func TestDeliveryNotStoredTwice(t *testing.T) {
	f := fixtureWithOrder(t)
	d := delivery("O-1", "1", "in_transit", "2026-05-30T12:00:00Z", map[string]any{"source": "carrier"})
	expect(t, f.deliveries(map[string]any{"deliveries": []any{d, d}}), 200, "")
	r := f.deliveries(d)
	expect(t, r, 200, "")
	if r.JSON["accepted"] != float64(1) {
		t.Fatalf("answer %s", r.Body)
	}
	if n := f.count(`SELECT count(*) FROM deliveries`); n != 1 {
		t.Fatalf("%d records stored, want 1", n)
	}
	// Same line, state and time from another source is another record.
	expect(t, f.deliveries(delivery("O-1", "1", "in_transit", "2026-05-30T12:00:00Z", map[string]any{"source": "manual"})), 200, "")
	if n := f.count(`SELECT count(*) FROM deliveries`); n != 2 {
		t.Fatalf("%d records stored, want 2", n)
	}
}

func TestEstimatedDeliveryRecordedOnly(t *testing.T) {
	f := fixtureWithOrder(t)
	expect(t, f.deliveries(map[string]any{"deliveries": []any{
		delivery("O-1", "1", "delivered", "2026-05-30T12:00:00Z", map[string]any{"source": "estimated"}),
		delivery("O-1", "2", "delivered", "2026-05-30T12:00:00Z", map[string]any{"source": "carrier", "confidence": "estimated"}),
	}}), 200, "")
	for _, ref := range []string{"1", "2"} {
		if l := f.line("O-1", ref); l.FulfilmentState != "shipped" || !l.DeliveredAt.IsZero() {
			t.Fatalf("estimated record moved line %s: %+v", ref, l)
		}
		if ds := f.lineDeliveries("O-1", ref); len(ds) != 1 {
			t.Fatalf("line %s records %+v", ref, ds)
		}
	}
	// Confirmed information that comes later is not hidden by the estimate.
	expect(t, f.deliveries(delivery("O-1", "1", "delivered", "2026-05-31T12:00:00Z", map[string]any{"source": "carrier"})), 200, "")
	// ... nor is an estimate able to move a delivered line.
	expect(t, f.deliveries(delivery("O-1", "1", "returned", "2026-06-01T08:00:00Z", map[string]any{"confidence": "estimated"})), 200, "")
	if l := f.line("O-1", "1"); l.FulfilmentState != "delivered" || !l.DeliveredAt.Equal(time.Date(2026, 5, 31, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("%+v", l)
	}
}

// TestDeliveryReportedReturned: a returned report moves a delivered line and runs
// the return effects.
func TestDeliveryReportedReturned(t *testing.T) {
	f := fixtureWithOrder(t)
	expect(t, f.deliveries(delivery("O-1", "2", "delivered", "2026-05-30T12:00:00Z")), 200, "")
	expect(t, f.deliveries(delivery("O-1", "2", "returned", "2026-05-31T12:00:00Z", map[string]any{"source": "carrier"})), 200, "")
	if l := f.line("O-1", "2"); l.FulfilmentState != "returned" {
		t.Fatalf("%+v", l)
	}
	if n := f.count(`SELECT count(*) FROM activity_log WHERE action = 'line.returned'`); n != 1 {
		t.Fatalf("%d line.returned entries", n)
	}
}

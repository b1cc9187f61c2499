package core_test

import (
	"context"
	"reviewd/app"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/channels"
	"reviewd/app/core/orders"
	"reviewd/store"
	"reviewd/store/storetest"
)

var day = 24 * time.Hour

// TestLineReviewable is the table of the one reviewability rule.
func TestLineReviewable(t *testing.T) {
	delivered := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tr, _ := brand.BuiltinRule("TR") // 180 days
	end := delivered.Add(180 * day)
	line := func(state string, at time.Time) store.OrderLine {
		return store.OrderLine{ID: 1, OrderID: 7, FulfilmentState: state, DeliveredAt: at}
	}
	order := func(pay string) store.Order { return store.Order{ID: 7, Market: "TR", PaymentState: pay} }
	erased := order("paid")
	erased.ErasedAt = delivered
	cases := []struct {
		name   string
		o      store.Order
		l      store.OrderLine
		rule   brand.MarketRule
		now    time.Time
		ok     bool
		reason string
	}{
		{"paid and delivered", order("paid"), line("delivered", delivered), tr, delivered.Add(day), true, ""},
		{"partially refunded", order("partially_refunded"), line("delivered", delivered), tr, delivered.Add(day), true, ""},
		{"pending", order("pending"), line("delivered", delivered), tr, delivered.Add(day), false, buyer.NotPaid},
		{"refunded", order("refunded"), line("delivered", delivered), tr, delivered.Add(day), false, buyer.NotPaid},
		{"voided", order("voided"), line("delivered", delivered), tr, delivered.Add(day), false, buyer.NotPaid},
		{"placed", order("paid"), line("placed", time.Time{}), tr, delivered, false, buyer.NotDelivered},
		{"in transit", order("paid"), line("in_transit", time.Time{}), tr, delivered, false, buyer.NotDelivered},
		{"returned after delivery", order("paid"), line("returned", delivered), tr, delivered.Add(day), false, buyer.NotDelivered},
		{"cancelled", order("paid"), line("cancelled", time.Time{}), tr, delivered, false, buyer.NotDelivered},
		{"delivered without a time", order("paid"), line("delivered", time.Time{}), tr, delivered, false, buyer.NotDelivered},
		{"erased", erased, line("delivered", delivered), tr, delivered.Add(day), false, buyer.OrderErased},
		{"no market rule", order("paid"), line("delivered", delivered), brand.MarketRule{}, delivered.Add(day), false, buyer.MarketWithoutPolicy},
		{"last millisecond of the window", order("paid"), line("delivered", delivered), tr, end.Add(-time.Millisecond), true, ""},
		{"window end", order("paid"), line("delivered", delivered), tr, end, false, buyer.ReviewWindowClosed},
		{"brand rule with a shorter window", order("paid"), line("delivered", delivered), brand.MarketRule{Market: "TR", ReviewWindowDays: 30}, delivered.Add(31 * day), false, buyer.ReviewWindowClosed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := buyer.LineReviewable(c.o, c.l, c.rule, c.now)
			if got.Reviewable != c.ok || got.Reason != c.reason {
				t.Fatalf("got %+v, want ok=%v reason=%q", got, c.ok, c.reason)
			}
			if c.l.FulfilmentState == "delivered" && !c.l.DeliveredAt.IsZero() {
				if !got.DeliveredAt.Equal(c.l.DeliveredAt) || (c.rule.ReviewWindowDays > 0 && !got.WindowEnds.Equal(c.l.DeliveredAt.Add(time.Duration(c.rule.ReviewWindowDays)*day))) {
					t.Fatalf("timing %+v", got)
				}
			} else if !got.DeliveredAt.IsZero() {
				t.Fatalf("delivery time of an undelivered line: %+v", got)
			}
		})
	}
}

type orderEnv struct {
	c      *kernel
	orders *orders.Service
	clock  *storetest.Clock
}

func newOrderEnv(t *testing.T) *orderEnv {
	t.Helper()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	db := storetest.Open(t, clock)
	keys, err := core.NewKeyring(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	c := newKernel(db, keys, "http://reviewd.test")
	if _, err := channels.New(c.DB, c, nil, nil).CreateChannel(context.Background(), core.Console(), channels.NewChannel{Code: "web", Market: "TR", Language: "tr",
		Label: "Web", BrandName: "Acme"}); err != nil {
		t.Fatal(err)
	}
	return &orderEnv{c: c, orders: newDomain(c, app.Parts{}).orders, clock: clock}
}

func (e *orderEnv) reviewability(t *testing.T, ext string) buyer.Reviewability {
	t.Helper()
	ctx := context.Background()
	q := e.c.DB.Read()
	o, err := q.OrderByExternalID(ctx, ext)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := q.LinesOfOrder(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := newDomain(e.c, app.Parts{}).buyer.OrderReviewability(ctx, q, o, lines, e.clock.T)
	if err != nil {
		t.Fatal(err)
	}
	return rs[0]
}

// TestReviewabilityFromDeliveries: only verified, non-estimated delivery reports (or
// order data marked delivered) make a paid line reviewable, from their time on.
func TestReviewabilityFromDeliveries(t *testing.T) {
	ctx := context.Background()
	observed := "2026-05-31T10:00:00Z"
	cases := []struct {
		source, confidence, payment string
		ok                          bool
	}{
		{"platform", "verified", "paid", true},
		{"carrier", "verified", "paid", true},
		{"manual", "verified", "partially_refunded", true},
		{"", "", "paid", true}, // defaults: platform, verified
		{"estimated", "verified", "paid", false},
		{"carrier", "estimated", "paid", false},
		{"estimated", "estimated", "paid", false},
		{"carrier", "verified", "pending", false},
		{"carrier", "verified", "refunded", false},
	}
	for _, c := range cases {
		t.Run(c.source+"/"+c.confidence+"/"+c.payment, func(t *testing.T) {
			e := newOrderEnv(t)
			_, err := e.orders.IngestOrders(ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{
				Channel: "web", ExternalID: "A", PaymentState: c.payment, PlacedAt: "2026-05-20T10:00:00Z",
				Items: []orders.LineInput{{LineReference: "1", VariantKey: "S", FulfilmentState: "shipped"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			if r := e.reviewability(t, "A"); r.Reviewable || r.Reason != buyer.NotDelivered {
				t.Fatalf("shipped line: %+v", r)
			}
			_, err = e.orders.IngestDeliveries(ctx, core.Console(), orders.DeliveryRequest{Deliveries: []orders.DeliveryInput{{
				ExternalID: "A", LineReference: "1", State: "delivered", ObservedAt: observed, Source: c.source, Confidence: c.confidence}}})
			if err != nil {
				t.Fatal(err)
			}
			r := e.reviewability(t, "A")
			if r.Reviewable != c.ok {
				t.Fatalf("got %+v, want reviewable %v", r, c.ok)
			}
			if c.ok && !r.DeliveredAt.Equal(time.Date(2026, 5, 31, 10, 0, 0, 0, time.UTC)) {
				t.Fatalf("delivery time %v", r.DeliveredAt)
			}
		})
	}
}

// TestReviewabilityFromOrderData: a line sent delivered in order data is reviewable
// from its delivered_at (else from the transfer) until the window ends.
func TestReviewabilityFromOrderData(t *testing.T) {
	ctx := context.Background()
	e := newOrderEnv(t)
	_, err := e.orders.IngestOrders(ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{
		Channel: "web", ExternalID: "A", PaymentState: "paid", PlacedAt: "2026-05-20T10:00:00Z",
		Items: []orders.LineInput{{LineReference: "1", VariantKey: "S", FulfilmentState: "delivered", DeliveredAt: "2026-05-25T10:00:00+00:00"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := e.reviewability(t, "A")
	if !r.Reviewable || !r.WindowEnds.Equal(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("%+v", r)
	}
	e.clock.T = r.WindowEnds
	if r := e.reviewability(t, "A"); r.Reviewable || r.Reason != buyer.ReviewWindowClosed {
		t.Fatalf("%+v", r)
	}
}

// TestLineMoves is the table of the fulfilment transition rule.
func TestLineMoves(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		cur, reported string
		at            time.Time
		want          bool
	}{
		{"placed", "preparing", time.Time{}, true},
		{"placed", "in_transit", time.Time{}, true},
		{"shipped", "preparing", time.Time{}, false},
		{"shipped", "placed", time.Time{}, false},
		{"shipped", "shipped", time.Time{}, false},
		{"in_transit", "delivered", time.Time{}, true},
		{"placed", "delivered", t0, true},
		{"delivered", "shipped", time.Time{}, false},
		{"delivered", "placed", time.Time{}, false},
		{"delivered", "returned", time.Time{}, true},
		{"delivered", "cancelled", time.Time{}, true},
		{"placed", "cancelled", time.Time{}, true},
		{"cancelled", "returned", time.Time{}, true},
		{"returned", "delivered", time.Time{}, false},
		{"cancelled", "delivered", time.Time{}, false},
		{"returned", "delivered", t0.Add(-time.Hour), false},
		{"returned", "delivered", t0, false},
		{"returned", "delivered", t0.Add(time.Hour), true},
		{"cancelled", "delivered", t0.Add(time.Hour), true},
		{"returned", "shipped", t0.Add(time.Hour), false},
		{"cancelled", "placed", time.Time{}, false},
	}
	for _, c := range cases {
		if got := core.LineMoves(c.cur, t0, c.reported, c.at); got != c.want {
			t.Errorf("%s -> %s at %v: got %v, want %v", c.cur, c.reported, c.at, got, c.want)
		}
	}
}

package core_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
	"reviewd/app/sendtest"
	"reviewd/store"
)

func (e *sendEnv) erase(now time.Time) orders.ErasureRun {
	e.t.Helper()
	e.env.Clock.T = now
	r, err := e.env.App.Orders.RunErasure(e.ctx, now)
	if err != nil {
		e.t.Fatalf("erasure at %s: %v", now, err)
	}
	return r
}

// TestErasureAfterReviewWindow: customer_email and customer_key are replaced at the
// end of the review window; the invitation and message lists then show an empty
// recipient with recipient_erased; a re-sent order does not write them back.
func TestErasureAfterReviewWindow(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("P-1", "ayse@mail.example", delivered, func(in *orders.OrderInput) { in.CustomerKey = "cust-1" })
	e.run(delivered.Add(48 * hour))
	windowEnd := delivered.Add(180 * 24 * hour) // TR

	if r := e.erase(windowEnd.Add(-time.Minute)); r.Erased[orders.EraseWindowEnded] != 0 {
		t.Fatalf("erased before the window ended: %s", r)
	}
	if r := e.erase(windowEnd); r.Erased[orders.EraseWindowEnded] != 1 {
		t.Fatalf("erasure run = %s", r)
	}
	o := e.orderOf("P-1")
	if !o.Erased() || !strings.HasPrefix(o.CustomerEmail, "erased:") || strings.Contains(o.CustomerEmail, "ayse") ||
		!strings.HasPrefix(o.CustomerKey, "erased:") {
		t.Fatalf("order after erasure = %+v", o)
	}
	inv := e.invite("P-1", sending.MsgInvitation)
	logs := e.logs(inv.ID)
	if inv.Address != "" || !inv.RecipientErased || logs[0].Recipient != "" || !logs[0].RecipientErased {
		t.Fatalf("invitation %+v, log %+v still name the recipient", inv, logs[0])
	}
	list, err := e.env.App.Sending.ListInvites(e.ctx, owner(), sending.InviteFilter{ListQuery: core.ListQuery{Page: 1, PageSize: 25}})
	if err != nil || len(list.Items) != 1 || list.Items[0].Recipient != "" || !list.Items[0].RecipientErased {
		t.Fatalf("invite list = %+v, %v", list, err)
	}

	// A re-send keeps the pseudonyms and the same record.
	e.order("P-1", "ayse@mail.example", delivered, func(in *orders.OrderInput) { in.CustomerKey = "cust-1" })
	if again := e.orderOf("P-1"); again.ID != o.ID || again.CustomerEmail != o.CustomerEmail || again.CustomerKey != o.CustomerKey {
		t.Fatalf("re-sent order = %+v, want the pseudonyms of %+v", again, o)
	}
	// A second run changes nothing.
	if r := e.erase(windowEnd.Add(24 * hour)); r.Erased[orders.EraseWindowEnded] != 0 {
		t.Fatalf("second run erased again: %s", r)
	}

	ref := e.c.Keys.ErasedOrderRef(o.ID)
	if !regexp.MustCompile(`^erased-order:[0-9a-f]{32}$`).MatchString(ref) || ref != e.c.Keys.ErasedOrderRef(o.ID) || strings.Contains(ref, "P-1") {
		t.Fatalf("erased order reference %q", ref)
	}
}

// TestErasureOfUninvitableOrders: 30 days after the order, orders that will never
// get an invitation are erased; orders still on their way are not.
func TestErasureOfUninvitableOrders(t *testing.T) {
	e := newSendEnv(t)
	placed := func(in *orders.OrderInput) { in.PlacedAt = iso(t0) }
	e.order("U-NOMAIL", "", time.Time{}, placed, func(in *orders.OrderInput) { in.CustomerKey = "cust-9" })
	e.order("U-REFUND", "refund@mail.example", time.Time{}, placed, func(in *orders.OrderInput) { in.PaymentState = "refunded" })
	e.order("U-CANCEL", "cancel@mail.example", time.Time{}, placed, func(in *orders.OrderInput) {
		in.Items[0].FulfilmentState = "cancelled"
		in.PlacedAt = iso(t0.Add(-400 * 24 * hour)) // too old for an experience invitation
	})
	e.order("U-WAY", "way@mail.example", time.Time{}, placed)
	// Only the cancelled order is 30 days old a minute before the others are.
	if r := e.erase(t0.Add(30*24*hour - time.Minute)); r.Erased[orders.EraseNeverInvited] != 1 || !e.orderOf("U-CANCEL").Erased() {
		t.Fatalf("erasure run = %s, want only U-CANCEL", r)
	}
	if r := e.erase(t0.Add(30 * 24 * hour)); r.Erased[orders.EraseNeverInvited] != 2 {
		t.Fatalf("erasure run = %s, want 2 more never-invited orders", r)
	}
	for ext, erased := range map[string]bool{"U-NOMAIL": true, "U-REFUND": true, "U-CANCEL": true, "U-WAY": false} {
		if got := e.orderOf(ext).Erased(); got != erased {
			t.Errorf("%s erased = %v, want %v", ext, got, erased)
		}
	}
	// A year on, an order that never arrived is erased too.
	if r := e.erase(t0.Add(365 * 24 * hour)); r.Erased[orders.EraseNeverDelivered] != 1 || !e.orderOf("U-WAY").Erased() {
		t.Fatalf("erasure run = %s", r)
	}
}

// TestErasureStopsQueuedMessages: a message still queued when its order is erased
// (a deletion request) is skipped and never names the recipient again.
func TestErasureStopsQueuedMessages(t *testing.T) {
	e := newSendEnv(t)
	e.env.App.SetMailer(sendtest.DownMailer(t))
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("Q-1", "queued@mail.example", delivered)
	due := delivered.Add(48 * hour)
	wantRun(t, e.run(due), sending.InvitationRun{Created: 1, Retry: 1})
	inv := e.invite("Q-1", sending.MsgInvitation)
	if err := e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		_, err := e.env.App.Orders.EraseOrderCustomer(e.ctx, tx, inv.OrderID, orders.EraseRequest)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantRun(t, e.run(inv.NextAttemptAt), sending.InvitationRun{Skipped: 1})
	if inv = e.invite("Q-1", sending.MsgInvitation); inv.State != sending.StateSkipped || inv.LastError != sending.SkipErased {
		t.Fatalf("invitation = %+v", inv)
	}
	for _, l := range e.logs(inv.ID) {
		if l.Recipient != "" || !l.RecipientErased {
			t.Fatalf("log names the recipient: %+v", l)
		}
	}
}

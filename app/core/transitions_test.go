package core_test

import (
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/store"
)

// TestTransitionEffects walks the transition table of spec 1 ("States and
// transitions") and checks what each row does to invitations.
func TestTransitionEffects(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	due := delivered.Add(48 * hour)

	// Order: payment becomes refunded or voided. The queued invitation is not sent
	// (no line is reviewable any more), and the change is in the activity history.
	e.env.App.SetMailer(mail.New(mail.Config{})) // e-mail off: invitations wait
	e.order("T-REFUND", "refund@mail.example", delivered)
	e.order("T-VOID", "void@mail.example", delivered)
	e.run(due)
	e.order("T-REFUND", "refund@mail.example", delivered, func(in *orders.OrderInput) { in.PaymentState = "refunded" })
	e.order("T-VOID", "void@mail.example", delivered, func(in *orders.OrderInput) { in.PaymentState = "voided" })
	e.env.App.SetMailer(e.smtp.Mailer())
	wantRun(t, e.run(due.Add(hour)), sending.InvitationRun{Skipped: 2})
	for ext, action := range map[string]string{"T-REFUND": "order.refunded", "T-VOID": "order.voided"} {
		if inv := e.invite(ext, sending.MsgInvitation); inv.State != sending.StateSkipped || inv.LastError != sending.SkipNotReviewable {
			t.Errorf("%s invitation = %+v", ext, inv)
		}
		if o := e.orderOf(ext); o.PaymentState == "paid" || !hasActivity(t, e, action, core.OrderPublicID(o.ID)) {
			t.Errorf("%s: payment %s, activity %s missing", ext, o.PaymentState, action)
		}
	}

	// Line reported returned (order data or delivery report): returned, and a line
	// not yet reviewed gets a shopping-experience invitation.
	e.order("T-RET", "ret@mail.example", delivered)
	e.deliver("T-RET", "L1", "returned", due, "", "")
	if l := e.line("T-RET", "L1"); l.FulfilmentState != "returned" {
		t.Fatalf("line = %+v", l)
	}
	exp := e.invite("T-RET", sending.MsgExperience)
	if exp.State != sending.StateQueued || exp.TokenID == 0 {
		t.Fatalf("experience invitation = %+v", exp)
	}
	// A cancelled line of the same order joins the waiting experience invitation.
	e.order("T-RET", "ret@mail.example", time.Time{}, func(in *orders.OrderInput) {
		in.Items = append(in.Items, orders.LineInput{LineReference: "L2", VariantKey: "SKU-2", FulfilmentState: "cancelled"})
	})
	if ids, _ := e.c.DB.Read().TokenLineIDs(e.ctx, exp.TokenID); len(ids) != 2 || len(e.invites("T-RET")) != 1 {
		t.Fatalf("experience token lines = %v, invitations %d", ids, len(e.invites("T-RET")))
	}

	// Line in returned or cancelled, order data with delivered and no
	// delivered_at: unchanged, and no invitation.
	e.order("T-RET", "ret@mail.example", time.Time{}, func(in *orders.OrderInput) {
		in.Items[0].FulfilmentState = "delivered"
	})
	if l := e.line("T-RET", "L1"); l.FulfilmentState != "returned" {
		t.Fatalf("returned line became %s", l.FulfilmentState)
	}

	// Line: delivery report delivered, verified, not estimated: delivered, and the
	// invitation becomes due after the waiting time.
	e.order("T-DEL", "del@mail.example", time.Time{})
	e.deliver("T-DEL", "L1", "delivered", delivered, "carrier", "verified")
	if l := e.line("T-DEL", "L1"); l.FulfilmentState != "delivered" || !l.DeliveredAt.Equal(delivered) {
		t.Fatalf("line = %+v", l)
	}
	// Line: source or confidence estimated: unchanged, no invitation.
	e.order("T-EST", "est@mail.example", time.Time{})
	e.deliver("T-EST", "L1", "delivered", delivered, "estimated", "verified")
	e.order("T-EST2", "est2@mail.example", time.Time{})
	e.deliver("T-EST2", "L1", "delivered", delivered, "carrier", "estimated")
	for _, ext := range []string{"T-EST", "T-EST2"} {
		if l := e.line(ext, "L1"); l.FulfilmentState != "shipped" {
			t.Fatalf("%s line moved to %s on an estimated report", ext, l.FulfilmentState)
		}
	}
	// Delivery request with an unknown state: rolled back, nothing changes.
	_, err := e.env.App.Orders.IngestDeliveries(e.ctx, core.Console(), orders.DeliveryRequest{Batch: true, Deliveries: []orders.DeliveryInput{
		{ExternalID: "T-EST", LineReference: "L1", State: "delivered", ObservedAt: iso(delivered)},
		{ExternalID: "T-EST", LineReference: "L1", State: "lost", ObservedAt: iso(delivered)},
	}})
	if err == nil {
		t.Fatal("unknown state accepted")
	}
	// Delivery request for an unknown order or line: succeeds, listed in unknown.
	res, err := e.env.App.Orders.IngestDeliveries(e.ctx, core.Console(), orders.DeliveryRequest{Deliveries: []orders.DeliveryInput{
		{ExternalID: "NOPE", LineReference: "L1", State: "delivered", ObservedAt: iso(delivered)}}})
	if err != nil || len(res.Unknown) != 1 {
		t.Fatalf("unknown order: %+v, %v", res, err)
	}

	wantRun(t, e.run(due.Add(2*hour)), sending.InvitationRun{Created: 1, Sent: 1})
	if len(e.mailsTo("del@mail.example")) != 1 {
		t.Fatal("the delivered line got no invitation")
	}
	for _, ext := range []string{"T-EST", "T-EST2"} {
		if got := e.invites(ext); len(got) != 0 {
			t.Fatalf("%s got an invitation from an estimated report: %+v", ext, got)
		}
	}
}

func (e *sendEnv) line(ext, ref string) store.OrderLine {
	e.t.Helper()
	l, err := e.c.DB.Read().LineByReference(e.ctx, e.orderOf(ext).ID, ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

func hasActivity(t *testing.T, e *sendEnv, action, target string) bool {
	t.Helper()
	list, _, err := e.c.DB.Read().ListActivity(e.ctx, store.ActivityFilter{Action: action, TargetID: target})
	if err != nil {
		t.Fatal(err)
	}
	return len(list) > 0
}

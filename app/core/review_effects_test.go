package core_test

import (
	"encoding/json"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
)

// writeReview writes a product review for line ref with the token of the order's
// invitation e-mail.
func (e *sendEnv) writeReview(address, ref string) {
	e.t.Helper()
	m := e.mailsTo(address)
	if len(m) == 0 {
		e.t.Fatalf("no e-mail to %s", address)
	}
	_, err := e.env.App.Reviews.WriteReviews(e.ctx, core.Console(), channelOf(e.t, e, "web-tr"), reviews.WriteInput{Token: linkToken(e.t, m[0].Text),
		Reviews: []reviews.ReviewInput{{LineReference: ref, Rating: json.RawMessage("5"), Title: "Boils fast",
			Body: "The kettle boils a full litre in under three minutes and the handle stays cool."}}})
	if err != nil {
		e.t.Fatalf("write review: %v", err)
	}
}

func (e *sendEnv) reviewOf(ext, ref string) (returned time.Time) {
	e.t.Helper()
	r, err := e.c.DB.Read().ReviewByLine(e.ctx, e.line(ext, ref).ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return r.ReturnedAt
}

// TestReviewEffects: a review stops the reminder and counts toward conversion;
// returned lines and refunded orders mark earlier product reviews Returned; a
// reviewed line gets no shopping-experience invitation, an unreviewed one does.
func TestReviewEffects(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	two := func(in *orders.OrderInput) {
		in.Items = append(in.Items, orders.LineInput{LineReference: "L2", VariantKey: "SKU-2", Title: "Cups",
			FulfilmentState: "delivered", DeliveredAt: iso(delivered)})
	}
	e.order("RV-1", "rv1@mail.example", delivered, two)
	e.order("RV-2", "rv2@mail.example", delivered)
	sent := delivered.Add(48 * hour)
	wantRun(t, e.run(sent), sending.InvitationRun{Created: 2, Sent: 2})
	e.writeReview("rv1@mail.example", "L1")
	e.writeReview("rv2@mail.example", "L1")

	// No reminder after a review.
	wantRun(t, e.run(sent.Add(7*24*hour)), sending.InvitationRun{Reminders: 2})
	for _, ext := range []string{"RV-1", "RV-2"} {
		if r := e.invite(ext, sending.MsgReminder); r.State != sending.StateSkipped || r.LastError != sending.SkipReviewed {
			t.Fatalf("%s reminder = %+v", ext, r)
		}
	}
	list, err := e.env.App.Sending.ListInvites(e.ctx, owner(), sending.InviteFilter{ListQuery: core.ListQuery{Page: 1, PageSize: 25}})
	if err != nil || list.Counters.Conversion != 1 {
		t.Fatalf("conversion = %v, %v", list.Counters, err)
	}

	// A returned, reviewed line: Returned mark, no experience invitation.
	e.deliver("RV-1", "L1", "returned", sent.Add(8*24*hour), "", "")
	if e.reviewOf("RV-1", "L1").IsZero() {
		t.Fatal("the returned line's review has no Returned mark")
	}
	for _, inv := range e.invites("RV-1") {
		if inv.Kind == sending.MsgExperience {
			t.Fatalf("a reviewed line got an experience invitation: %+v", inv)
		}
	}
	// A returned line without a review gets one.
	e.deliver("RV-1", "L2", "returned", sent.Add(8*24*hour), "", "")
	exp := e.invite("RV-1", sending.MsgExperience)
	if ids, _ := e.c.DB.Read().TokenLineIDs(e.ctx, exp.TokenID); len(ids) != 1 || ids[0] != e.line("RV-1", "L2").ID {
		t.Fatalf("experience token lines = %v", ids)
	}

	// A refunded order: its product reviews get the mark.
	e.order("RV-2", "rv2@mail.example", delivered, func(in *orders.OrderInput) { in.PaymentState = "refunded" })
	if e.reviewOf("RV-2", "L1").IsZero() {
		t.Fatal("the refunded order's review has no Returned mark")
	}
}

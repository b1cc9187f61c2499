package core_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// sendEnv is an installation with a TR channel "web-tr", a real SMTP server and a
// public address on https (so e-mails carry the one-click unsubscribe header).
type sendEnv struct {
	t    *testing.T
	env  *apptest.Env
	c    *app.App
	smtp *sendtest.SMTPServer
	ctx  context.Context
}

// t0 is the test clock's start: Monday 2026-06-01 10:00 UTC, 13:00 in Istanbul.
var t0 = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

func newSendEnv(t *testing.T) *sendEnv {
	t.Helper()
	env := apptest.New(t, nil)
	env.Channel("web-tr", "TR", "tr")
	c := env.App
	env.App.SetPublicURL("https://reviews.example")
	s := sendtest.StartSMTP(t)
	env.App.SetMailer(s.Mailer())
	return &sendEnv{t: t, env: env, c: c, smtp: s, ctx: context.Background()}
}

// owner is a signed-in panel owner.
func owner() *core.Actor {
	return &core.Actor{Via: core.ViaSession, ID: "1", Name: "owner", Role: "owner", Perms: core.PermsOfRole("owner")}
}

// set changes settings as a panel owner.
func (e *sendEnv) set(fields map[string]any) {
	e.t.Helper()
	m := map[string]json.RawMessage{}
	for k, v := range fields {
		b, _ := json.Marshal(v)
		m[k] = b
	}
	if _, err := e.env.App.Brand.UpdateSettings(e.ctx, owner(), m); err != nil {
		e.t.Fatalf("settings %v: %v", fields, err)
	}
}

func iso(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// order ingests a paid order with one line L1 delivered at deliveredAt (zero: a
// shipped line) for address; mods change the input.
func (e *sendEnv) order(ext, address string, deliveredAt time.Time, mods ...func(*orders.OrderInput)) {
	e.t.Helper()
	line := orders.LineInput{LineReference: "L1", VariantKey: "SKU-1", Title: "Blue kettle", FulfilmentState: "shipped"}
	if !deliveredAt.IsZero() {
		line.FulfilmentState, line.DeliveredAt = "delivered", iso(deliveredAt)
	}
	in := orders.OrderInput{Channel: "web-tr", ExternalID: ext, PaymentState: "paid", PlacedAt: iso(t0.Add(-72 * time.Hour)),
		CustomerEmail: address, Items: []orders.LineInput{line}}
	for _, m := range mods {
		m(&in)
	}
	if _, err := e.env.App.Orders.IngestOrders(e.ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{in}}); err != nil {
		e.t.Fatalf("ingest %s: %v", ext, err)
	}
}

// deliver reports a delivery of an order line.
func (e *sendEnv) deliver(ext, line, state string, at time.Time, source, confidence string) {
	e.t.Helper()
	_, err := e.env.App.Orders.IngestDeliveries(e.ctx, core.Console(), orders.DeliveryRequest{Deliveries: []orders.DeliveryInput{{
		ExternalID: ext, LineReference: line, State: state, ObservedAt: iso(at), Source: source, Confidence: confidence}}})
	if err != nil {
		e.t.Fatalf("deliver %s/%s: %v", ext, line, err)
	}
}

// run runs the invitations job at now (the clock moves there too).
func (e *sendEnv) run(now time.Time) sending.InvitationRun {
	e.t.Helper()
	e.env.Clock.T = now
	r, err := e.env.App.Sending.RunInvitations(e.ctx, now)
	if err != nil {
		e.t.Fatalf("invitations job at %s: %v", now, err)
	}
	return r
}

func (e *sendEnv) orderOf(ext string) store.Order {
	e.t.Helper()
	o, err := e.c.DB.Read().OrderByExternalID(e.ctx, ext)
	if err != nil {
		e.t.Fatalf("order %s: %v", ext, err)
	}
	return o
}

// invites lists the messages of an order, oldest first.
func (e *sendEnv) invites(ext string) []store.Invitation {
	e.t.Helper()
	list, err := e.c.DB.Read().InvitationsOfOrder(e.ctx, e.orderOf(ext).ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}

// invite is the only message of an order of kind.
func (e *sendEnv) invite(ext, kind string) store.Invitation {
	e.t.Helper()
	for _, inv := range e.invites(ext) {
		if inv.Kind == kind {
			return inv
		}
	}
	e.t.Fatalf("order %s has no %s", ext, kind)
	return store.Invitation{}
}

func (e *sendEnv) logs(invID int64) []store.SendLog {
	e.t.Helper()
	l, err := e.c.DB.Read().SendLogsOfInvitation(e.ctx, invID)
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

// mailsTo returns the received e-mails addressed to address.
func (e *sendEnv) mailsTo(address string) []sendtest.Mail {
	var out []sendtest.Mail
	for _, m := range e.smtp.Messages() {
		for _, to := range m.To {
			if strings.EqualFold(to, address) {
				out = append(out, m)
			}
		}
	}
	return out
}

var reReviewLink = regexp.MustCompile(`https://shop\.example/review#review_token=([A-Za-z0-9._-]+)`)
var reStopLink = regexp.MustCompile(`https://reviews\.example/v1/unsubscribe\?t=([A-Za-z0-9%_-]+)`)

// linkToken returns the token of the review link in text.
func linkToken(t *testing.T, text string) string {
	t.Helper()
	m := reReviewLink.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no review link in %q", text)
	}
	return m[1]
}

func wantRun(t *testing.T, got sending.InvitationRun, want sending.InvitationRun) {
	t.Helper()
	if got != want {
		t.Fatalf("job run = %+v, want %+v", got, want)
	}
}

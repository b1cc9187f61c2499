package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/orders"
	"reviewd/app/core/privacy"
	"reviewd/app/core/sending"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// waEnv is a sendEnv whose installation has WhatsApp configured against the fake
// Graph API (reached through outbound.resolve), with TR and GB channels.
type waEnv struct {
	*sendEnv
	graph *sendtest.Graph
}

func newWAEnv(t *testing.T) *waEnv {
	t.Helper()
	g := sendtest.StartGraph(t)
	env := apptest.NewWith(t, nil, func(c *app.Config) {
		c.Outbound = app.Outbound{Resolve: []string{g.Resolve}, CAFile: g.CAFile}
		c.WhatsApp = app.WhatsApp{PhoneNumberID: "1065550001", AccessToken: "EAAG-test-token", AppSecret: "app-secret",
			VerifyToken: "verify-me", APIURL: sendtest.GraphURL, InviteTemplate: "review_invite", ReminderTemplate: "review_reminder"}
	})
	env.Channel("web-tr", "TR", "tr")
	env.Channel("web-gb", "GB", "en")
	env.App.SetPublicURL("https://reviews.example")
	s := sendtest.StartSMTP(t)
	env.App.SetMailer(s.Mailer())
	e := &waEnv{sendEnv: &sendEnv{t: t, env: env, c: env.App, smtp: s, ctx: context.Background()}, graph: g}
	e.set(map[string]any{"invite_delivery": "whatsapp", "reminder_delivery": "whatsapp"})
	return e
}

func withPhone(p string) func(*orders.OrderInput) {
	return func(in *orders.OrderInput) { in.CustomerPhone = p }
}

// TestCustomerPhoneStored: customer_phone is kept in E.164, completed from the
// channel's market when it has no country code, and dropped (the order still
// accepted) when it cannot be completed; a re-send without a phone keeps it.
func TestCustomerPhoneStored(t *testing.T) {
	e := newSendEnv(t)
	e.env.Channel("web-gb", "GB", "en")
	cases := []struct{ ext, channel, phone, want string }{
		{"P-1", "web-tr", "0532 123 45 67", "+905321234567"},
		{"P-2", "web-tr", "+90 532 123 45 67", "+905321234567"},
		{"P-3", "web-gb", "07911 123456", "+447911123456"},
		{"P-4", "web-gb", "+44 (0)7911 123456", "+447911123456"},
		{"P-5", "web-gb", "0090 532 123 4567", "+905321234567"},
		{"P-6", "web-tr", "12-34", ""},
		{"P-7", "web-gb", "call me", ""},
	}
	for _, c := range cases {
		e.order(c.ext, "a@mail.example", time.Time{}, withPhone(c.phone), func(in *orders.OrderInput) { in.Channel = c.channel })
		if got := e.orderOf(c.ext).CustomerPhone; got != c.want {
			t.Errorf("%s: %q stored as %q, want %q", c.ext, c.phone, got, c.want)
		}
	}
	e.order("P-1", "a@mail.example", time.Time{})
	if got := e.orderOf("P-1").CustomerPhone; got != "+905321234567" {
		t.Fatalf("re-send without phone: %q", got)
	}
	// Spec 1's error form for an over-long phone is unchanged.
	_, err := e.env.App.Orders.IngestOrders(e.ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{
		Channel: "web-tr", ExternalID: "P-9", PaymentState: "paid", PlacedAt: iso(t0), CustomerPhone: strings.Repeat("1", 33),
		Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1"}}}}})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != "invalid" || ce.Detail != "field_too_long: customer_phone" {
		t.Fatalf("over-long phone: %v", err)
	}
}

// TestCustomerPhoneErased: the phone is pseudonymised with the other customer
// fields.
func TestCustomerPhoneErased(t *testing.T) {
	e := newSendEnv(t)
	e.order("E-1", "a@mail.example", time.Time{}, withPhone("0532 123 45 67"))
	o := e.orderOf("E-1")
	if err := e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		_, err := e.env.App.Orders.EraseOrderCustomer(e.ctx, tx, o.ID, orders.EraseRequest)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	o = e.orderOf("E-1")
	if !strings.HasPrefix(o.CustomerPhone, "erased:") || strings.Contains(o.CustomerPhone, "532") {
		t.Fatalf("phone after erasure = %q", o.CustomerPhone)
	}
	e.order("E-1", "a@mail.example", time.Time{}, withPhone("0532 123 45 67"))
	if got := e.orderOf("E-1").CustomerPhone; got != o.CustomerPhone {
		t.Fatalf("a re-send wrote the phone back: %q", got)
	}
}

// TestWhatsAppInvitation: with invite_delivery whatsapp the job sends the approved
// template to the order's phone in the order's language, with the brand, the
// products and the writing link, and logs it with the provider's message id.
func TestWhatsAppInvitation(t *testing.T) {
	e := newWAEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("W-1", "ayse@mail.example", delivered, withPhone("0532 123 45 67"))
	wantRun(t, e.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 1, Sent: 1})
	reqs := e.graph.Requests()
	if len(reqs) != 1 {
		t.Fatalf("graph requests = %d", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v25.0/1065550001/messages" || r.Authorization != "Bearer EAAG-test-token" {
		t.Fatalf("request %s with %q", r.Path, r.Authorization)
	}
	if r.Body.To != "905321234567" || r.Body.Template.Name != "review_invite" || r.Body.Template.Language.Code != "tr" {
		t.Fatalf("message = %+v", r.Body)
	}
	params := r.Body.BodyParams()
	if len(params) != 3 || params[0] != "Acme" || params[1] != "Blue kettle" {
		t.Fatalf("body parameters = %q", params)
	}
	tok := linkToken(t, params[2])
	plain := tok[strings.IndexByte(tok, '.')+1:]
	if stored, err := e.c.DB.Read().TokenByHash(e.ctx, core.HashToken(plain)); err != nil || stored.OrderID != e.orderOf("W-1").ID {
		t.Fatalf("the link's token = %+v, %v", stored, err)
	}
	if n := len(e.mailsTo("ayse@mail.example")); n != 0 {
		t.Fatalf("%d e-mails sent as well", n)
	}
	inv := e.invite("W-1", sending.MsgInvitation)
	if inv.Route != brand.RouteWhatsApp || inv.Address != "+905321234567" || inv.State != sending.StateSent {
		t.Fatalf("invitation = %+v", inv)
	}
	logs := e.logs(inv.ID)
	if len(logs) != 1 || logs[0].ChannelKind != "whatsapp" || logs[0].MessageID != "wamid.HBgM00000001" ||
		logs[0].Recipient != "+905321234567" || logs[0].Status != sending.LogSent {
		t.Fatalf("log = %+v", logs)
	}

	// The reminder goes by WhatsApp with the reminder template.
	wantRun(t, e.run(inv.SentAt.Add(7*24*hour)), sending.InvitationRun{Reminders: 1, Sent: 1})
	reqs = e.graph.Requests()
	if len(reqs) != 2 || reqs[1].Body.Template.Name != "review_reminder" || linkToken(t, reqs[1].Body.BodyParams()[2]) != tok {
		t.Fatalf("reminder = %+v", reqs[len(reqs)-1].Body)
	}
}

// TestWhatsAppLimitsPerPhone: the daily limit counts per phone when the order has
// no customer_key.
func TestWhatsAppLimitsPerPhone(t *testing.T) {
	e := newWAEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("D-1", "one@mail.example", delivered, withPhone("0532 123 45 67"))
	e.order("D-2", "two@mail.example", delivered, withPhone("+905321234567"))
	wantRun(t, e.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 2, Sent: 1, Deferred: 1})
	if inv := e.invite("D-2", sending.MsgInvitation); inv.LastError != sending.WaitDailyLimit {
		t.Fatalf("second invitation = %+v", inv)
	}
}

// TestWhatsAppFallback: an order without a usable phone, or with an opted-out
// number, gets the e-mail when whatsapp_fallback_email is on (the default), and
// nothing when it is off.
func TestWhatsAppFallback(t *testing.T) {
	e := newWAEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("F-1", "nophone@mail.example", delivered)
	e.order("F-2", "badphone@mail.example", delivered, withPhone("12"))
	e.order("F-3", "optedout@mail.example", delivered, withPhone("0533 765 43 21"))
	if err := e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		_, err := tx.AddOptOut(e.ctx, store.OptOut{Address: "+905337654321", ChannelKind: "whatsapp", Reason: "stop_word"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantRun(t, e.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 3, Sent: 3})
	for _, a := range []string{"nophone@mail.example", "badphone@mail.example", "optedout@mail.example"} {
		if len(e.mailsTo(a)) != 1 {
			t.Errorf("no fallback e-mail to %s", a)
		}
	}
	if n := len(e.graph.Requests()); n != 0 {
		t.Fatalf("%d WhatsApp messages", n)
	}
	if inv := e.invite("F-3", sending.MsgInvitation); inv.Route != brand.RouteEmail {
		t.Fatalf("route = %q", inv.Route)
	}

	e.set(map[string]any{"whatsapp_fallback_email": false})
	later := delivered.Add(72 * hour)
	e.order("F-4", "nophone2@mail.example", later)
	e.order("F-5", "optedout2@mail.example", later, withPhone("+90 533 765 43 21"))
	wantRun(t, e.run(later.Add(48*hour)), sending.InvitationRun{Created: 2})
	if inv := e.invite("F-4", sending.MsgInvitation); inv.State != sending.StateSkipped || inv.LastError != sending.SkipNoPhone {
		t.Fatalf("F-4 = %+v", inv)
	}
	if inv := e.invite("F-5", sending.MsgInvitation); inv.State != sending.StateSkipped || inv.LastError != sending.SkipOptedOut {
		t.Fatalf("F-5 = %+v", inv)
	}
	if len(e.mailsTo("nophone2@mail.example"))+len(e.mailsTo("optedout2@mail.example")) != 0 {
		t.Fatal("e-mail sent without fallback")
	}

	// An order with only a phone is invited by WhatsApp.
	e.order("F-6", "", later, withPhone("0532 111 22 33"))
	wantRun(t, e.run(later.Add(49*hour)), sending.InvitationRun{Created: 1, Sent: 1})
	if reqs := e.graph.Requests(); len(reqs) != 1 || reqs[0].Body.To != "905321112233" {
		t.Fatalf("graph requests = %+v", reqs)
	}
}

// TestWhatsAppErrors: Meta's error answers become the message log's reasons; a
// rate limit is retried after a back-off, a permanent error fails the message at
// once.
func TestWhatsAppErrors(t *testing.T) {
	e := newWAEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	due := delivered.Add(48 * hour)
	e.order("R-1", "r1@mail.example", delivered, withPhone("0532 100 00 01"))
	e.graph.Fail(sendtest.GraphError{Status: http.StatusBadRequest, Code: 130429})
	wantRun(t, e.run(due), sending.InvitationRun{Created: 1, Retry: 1})
	inv := e.invite("R-1", sending.MsgInvitation)
	if inv.State != sending.StateQueued || inv.LastError != "rate_limited: 130429" || inv.NextAttemptAt.Before(due.Add(15*time.Minute)) {
		t.Fatalf("after a rate limit: %+v", inv)
	}
	wantRun(t, e.run(inv.NextAttemptAt), sending.InvitationRun{Sent: 1})
	logs := e.logs(inv.ID)
	if len(logs) != 2 || logs[0].Status != sending.LogRetry || logs[0].Error != "rate_limited: 130429" || logs[1].Status != sending.LogSent {
		t.Fatalf("logs = %+v", logs)
	}

	for i, c := range []struct {
		code   int
		status int
		reason string
	}{
		{131026, http.StatusBadRequest, "undeliverable: 131026"},
		{131047, http.StatusBadRequest, "reengagement_window: 131047"},
		{190, http.StatusUnauthorized, "token_invalid: 190"},
		{132001, http.StatusNotFound, "template_invalid: 132001"},
	} {
		ext := "R-" + string(rune('2'+i))
		e.order(ext, "", due, withPhone("0532 100 00 1"+string(rune('2'+i))))
		e.graph.Fail(sendtest.GraphError{Status: c.status, Code: c.code})
		now := due.Add(time.Duration(48+i) * hour)
		wantRun(t, e.run(now), sending.InvitationRun{Created: 1, Failed: 1})
		inv := e.invite(ext, sending.MsgInvitation)
		if inv.State != sending.StateFailed || inv.LastError != c.reason {
			t.Fatalf("code %d: %+v", c.code, inv)
		}
		wantRun(t, e.run(now.Add(24*hour)), sending.InvitationRun{})
	}
	// A 5xx without Meta's error body is temporary.
	e.order("R-9", "", due, withPhone("0532 100 00 19"))
	e.graph.Fail(sendtest.GraphError{Status: http.StatusServiceUnavailable, Code: 131000})
	wantRun(t, e.run(due.Add(53*hour)), sending.InvitationRun{Created: 1, Retry: 1})
}

// TestWhatsAppOffKeepsV1: without WhatsApp configured the settings answer as in v1:
// deliveries has no whatsapp, no whatsapp_fallback_email, and whatsapp is refused
// as a route with the existing code.
func TestWhatsAppOffKeepsV1(t *testing.T) {
	e := newSendEnv(t)
	view, err := e.env.App.Brand.SettingsOf(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(view)
	if strings.Contains(string(b), "whatsapp") || strings.Join(view.Deliveries, ",") != "email,webhook" {
		t.Fatalf("settings = %s", b)
	}
	for _, f := range []string{"invite_delivery", "reminder_delivery"} {
		_, err := e.env.App.Brand.UpdateSettings(e.ctx, owner(), map[string]json.RawMessage{f: json.RawMessage(`"whatsapp"`)})
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != "invalid" || ce.Detail != f+"_unavailable" {
			t.Fatalf("%s whatsapp: %v", f, err)
		}
	}
	_, err = e.env.App.Brand.UpdateSettings(e.ctx, owner(), map[string]json.RawMessage{"whatsapp_fallback_email": json.RawMessage(`false`)})
	if err != nil {
		t.Fatal(err)
	}
	view, _ = e.env.App.Brand.SettingsOf(e.ctx)
	if b, _ := json.Marshal(view); strings.Contains(string(b), "whatsapp") {
		t.Fatalf("settings = %s", b)
	}

	w := newWAEnv(t)
	view, _ = w.env.App.Brand.SettingsOf(w.ctx)
	if strings.Join(view.Deliveries, ",") != "email,webhook,whatsapp" || view.WhatsAppFallbackEmail == nil || !*view.WhatsAppFallbackEmail {
		t.Fatalf("configured settings = %+v", view)
	}
}

// TestPhoneErasureRequest: a deletion request opened with a phone number (in local
// form) pseudonymises the orders that carry that number.
func TestPhoneErasureRequest(t *testing.T) {
	e := newSendEnv(t)
	e.order("X-1", "x1@mail.example", time.Time{}, withPhone("+90 532 123 45 67"))
	e.order("X-2", "x2@mail.example", time.Time{}, withPhone("0532 765 43 21"))
	req, err := e.env.App.Privacy.Open(e.ctx, owner(), privacy.NewRequest{Kind: privacy.KindErasure, Identifier: "0532 123 45 67"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.env.App.Privacy.Complete(e.ctx, owner(), req.ID, privacy.CompleteInput{}); err != nil {
		t.Fatal(err)
	}
	if o := e.orderOf("X-1"); !o.Erased() || !strings.HasPrefix(o.CustomerPhone, "erased:") || !strings.HasPrefix(o.CustomerEmail, "erased:") {
		t.Fatalf("X-1 after the request: %+v", o)
	}
	if o := e.orderOf("X-2"); o.Erased() || o.CustomerPhone != "+905327654321" {
		t.Fatalf("X-2 touched: %+v", o)
	}

	// An access request by phone copies the order with its phone.
	acc, err := e.env.App.Privacy.Open(e.ctx, owner(), privacy.NewRequest{Kind: privacy.KindAccess, Identifier: "+90 532 765 43 21"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.env.App.Privacy.Complete(e.ctx, owner(), acc.ID, privacy.CompleteInput{}); err != nil {
		t.Fatal(err)
	}
	cp, _, err := e.env.App.Privacy.CopyRequest(e.ctx, owner(), acc.ID, privacy.CopyInput{Identifier: "+90 532 765 43 21"})
	if err != nil || len(cp.Export.Orders) != 1 || cp.Export.Orders[0].OrderReference != "X-2" ||
		cp.Export.Orders[0].CustomerPhone != "+905327654321" {
		t.Fatalf("copy = %+v, %v", cp.Export, err)
	}
}

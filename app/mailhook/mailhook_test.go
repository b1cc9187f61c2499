package mailhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
	"reviewd/app/sendtest"
	"reviewd/jobs"
	"reviewd/store"
)

// hookEnv is a running installation with a TR channel, a real SMTP server and an
// https public address.
type hookEnv struct {
	t    *testing.T
	env  *apptest.Env
	c    *app.App
	smtp *sendtest.SMTPServer
	ctx  context.Context
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	c := env.App
	env.App.SetPublicURL("https://reviews.example")
	s := sendtest.StartSMTP(t)
	env.App.SetMailer(s.Mailer())
	return &hookEnv{t: t, env: env, c: c, smtp: s, ctx: context.Background()}
}

var delivered = time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)

// invite ingests an order delivered at delivered for address and runs the
// invitations job when it is due; it returns the message-log row of the e-mail.
func (h *hookEnv) invite(ext, address string) store.SendLog {
	h.t.Helper()
	_, err := h.env.App.Orders.IngestOrders(h.ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{Channel: "web-tr",
		ExternalID: ext, PaymentState: "paid", PlacedAt: delivered.Add(-24 * time.Hour).Format(time.RFC3339), CustomerEmail: address,
		Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1", FulfilmentState: "delivered",
			DeliveredAt: delivered.Format(time.RFC3339)}}}}})
	if err != nil {
		h.t.Fatal(err)
	}
	now := delivered.Add(48 * time.Hour)
	if h.env.Clock.T.After(now) {
		now = h.env.Clock.T
	}
	h.env.Clock.T = now
	if _, err := h.env.App.Sending.RunInvitations(h.ctx, now); err != nil {
		h.t.Fatal(err)
	}
	o, _ := h.c.DB.Read().OrderByExternalID(h.ctx, ext)
	inv, err := h.c.DB.Read().InvitationOfOrder(h.ctx, o.ID, sending.MsgInvitation)
	if err != nil {
		h.t.Fatal(err)
	}
	logs, _ := h.c.DB.Read().SendLogsOfInvitation(h.ctx, inv.ID)
	if len(logs) != 1 || logs[0].Status != sending.LogSent {
		h.t.Fatalf("send logs of %s = %+v", ext, logs)
	}
	return logs[0]
}

// signed posts body to the generic endpoint, signed with password id/secret.
func (h *hookEnv) signed(id, secret string, body any) apptest.Response {
	h.t.Helper()
	raw, ok := body.(string)
	if !ok {
		b, _ := json.Marshal(body)
		raw = string(b)
	}
	ts := h.env.Clock.T.Format(time.RFC3339)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + raw))
	return h.env.Do("POST", "/v1/mail-events/generic", raw, map[string]string{"X-Service-Secret": id,
		"X-Service-Timestamp": ts, "X-Service-Signature": hex.EncodeToString(mac.Sum(nil))})
}

func wantCounts(t *testing.T, res apptest.Response, accepted, matched, duplicates, ignored, optedOut int) {
	t.Helper()
	want := map[string]any{"accepted": float64(accepted), "matched": float64(matched), "duplicates": float64(duplicates),
		"ignored": float64(ignored), "opted_out": float64(optedOut)}
	if res.Status != 200 {
		t.Fatalf("want 200, got %s", res)
	}
	for k, v := range want {
		if res.JSON[k] != v {
			t.Fatalf("want counts %v, got %s", want, res)
		}
	}
}

func (h *hookEnv) optedOut(address string) bool {
	h.t.Helper()
	out, err := h.c.DB.Read().OptedOut(h.ctx, address)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// TestGenericMailEvents: counts, de-duplication, matching by message_id and by
// address, opt-outs only from events matching a sending, redacted details.
func TestGenericMailEvents(t *testing.T) {
	h := newHookEnv(t)
	sent := h.invite("G-1", "ayse@mail.example")
	id, secret := h.env.Password("mail_events", "")

	res := h.signed(id, secret, map[string]any{"events": []map[string]any{
		{"type": "delivered", "event_id": "e1", "message_id": "<" + sent.MessageID + ">"},
		{"type": "opened", "event_id": "e2", "message_id": sent.MessageID},
		{"type": "delivered", "event_id": "e1", "message_id": sent.MessageID},
		{"type": "bounced", "event_id": "e3", "message_id": sent.MessageID, "detail": "mailbox full for ayse@mail.example, 4.2.2"},
		{"type": "unsubscribed", "event_id": "e4", "address": "stranger@mail.example"},
		{"type": "delivered", "event_id": "e5", "message_id": "nobody@reviews.example"},
		{"type": "complained", "event_id": "e6", "address": "AYSE@mail.example", "occurred_at": "2026-06-03T09:00:00Z"},
	}})
	wantCounts(t, res, 7, 3, 1, 2, 1)
	if h.optedOut("stranger@mail.example") {
		t.Fatal("an event matching no sending opted an address out")
	}
	if !h.optedOut("ayse@mail.example") {
		t.Fatal("the complaint did not opt the address out")
	}
	evs, err := h.c.DB.Read().MailEventsOfSendLog(h.ctx, sent.ID)
	if err != nil || len(evs) != 4 {
		t.Fatalf("events of the sending = %+v, %v", evs, err)
	}
	for _, e := range evs {
		if strings.Contains(e.Detail, "@") {
			t.Fatalf("detail keeps an address: %q", e.Detail)
		}
		if e.EventID == "e3" && e.Detail != "mailbox full for address, 4.2.2" {
			t.Fatalf("bounce detail %q", e.Detail)
		}
	}

	// The same event id is never processed twice; events for opted-out addresses
	// count as opted_out.
	wantCounts(t, h.signed(id, secret, map[string]any{"type": "delivered", "event_id": "e1", "message_id": sent.MessageID}), 1, 0, 1, 0, 0)
	wantCounts(t, h.signed(id, secret, map[string]any{"type": "delivered", "event_id": "e7", "message_id": sent.MessageID}), 1, 0, 0, 0, 1)

	// A hard bounce (5.x.x status) of a sending opts its address out; a soft one
	// does not.
	other := h.invite("G-2", "bounce@mail.example")
	wantCounts(t, h.signed(id, secret, map[string]any{"type": "bounced", "event_id": "b1", "message_id": other.MessageID,
		"detail": "smtp; 450 4.2.0 try later"}), 1, 1, 0, 0, 0)
	if h.optedOut("bounce@mail.example") {
		t.Fatal("a soft bounce opted out")
	}
	wantCounts(t, h.signed(id, secret, map[string]any{"type": "bounced", "event_id": "b2", "message_id": other.MessageID,
		"detail": "smtp; 550 5.1.1 user unknown"}), 1, 0, 0, 0, 1)
	if !h.optedOut("bounce@mail.example") {
		t.Fatal("a hard bounce did not opt out")
	}

	// Refusals.
	sid, ssecret := h.env.Password("signing", "web-tr")
	if res := h.signed(sid, ssecret, map[string]any{"type": "delivered", "event_id": "x"}); res.Code() != "signature_refused / secret_unknown" {
		t.Fatalf("signing password: want signature_refused / secret_unknown, got %s", res)
	}
	if res := h.env.Do("POST", "/v1/mail-events/generic", `{"type":"delivered","event_id":"x"}`, nil); res.Code() != "signature_refused / secret_unknown" {
		t.Fatalf("unsigned: want signature_refused / secret_unknown, got %s", res)
	}
	res = h.env.Do("POST", "/v1/mail-events/generic", `{"type":"delivered","event_id":"x"}`, map[string]string{"X-Service-Secret": id,
		"X-Service-Timestamp": h.env.Clock.T.Format(time.RFC3339), "X-Service-Signature": strings.Repeat("0", 64)})
	if res.Code() != "signature_refused / signature_mismatch" {
		t.Fatalf("bad signature: want signature_refused / signature_mismatch, got %s", res)
	}
	many := make([]map[string]any, 501)
	for i := range many {
		many[i] = map[string]any{"type": "opened", "event_id": fmt.Sprint("m", i)}
	}
	for body, code := range map[string]string{
		"":                                     "invalid / body_empty",
		`{"events": 1}`:                        "invalid / field_invalid: events",
		`{"event_id": "x"}`:                    "invalid / field_missing: type",
		`{"type": "clicked", "event_id": "x"}`: "invalid / field_invalid: type",
		`{"type": "opened"}`:                   "invalid / field_missing: event_id",
		`{"type": "opened", "event_id": "x"`:   "invalid / body_invalid",
	} {
		if res := h.signed(id, secret, body); res.Status != 400 || res.Code() != code {
			t.Errorf("body %q: %d %s, want %s", body, res.Status, res.Body, code)
		}
	}
	if res := h.signed(id, secret, map[string]any{"events": many}); res.Code() != "invalid / batch_too_large: 500" {
		t.Fatalf("501 events: %s", res.Body)
	}
}

// TestProviderMailEvents: the four provider endpoints with their own formats,
// authenticated by the access code in the address.
func TestProviderMailEvents(t *testing.T) {
	h := newHookEnv(t)
	code, err := h.env.App.Sending.MailAccessCode(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := h.invite("P-1", "a@mail.example")
	b := h.invite("P-2", "b@mail.example")
	c := h.invite("P-3", "c@mail.example")
	post := func(provider, body string) apptest.Response {
		return h.env.Do("POST", "/v1/mail-events/"+provider+"/"+code, body, nil)
	}

	// SendGrid: a JSON array; smtp-id is our Message-ID.
	sg := fmt.Sprintf(`[{"email":"a@mail.example","timestamp":1780477200,"event":"delivered","sg_event_id":"sg-1","smtp-id":"<%s>","response":"250 OK"},
		{"email":"a@mail.example","timestamp":1780477300,"event":"processed","sg_event_id":"sg-2","smtp-id":"<%s>"}]`, a.MessageID, a.MessageID)
	wantCounts(t, post("sendgrid", sg), 2, 1, 0, 1, 0)
	wantCounts(t, post("sendgrid", sg), 2, 0, 2, 0, 0)

	// Mailgun: event-data with the message headers.
	mg := fmt.Sprintf(`{"signature":{"token":"tok","timestamp":"1780477200","signature":"00"},
		"event-data":{"id":"mg-1","event":"unsubscribed","recipient":"a@mail.example","timestamp":1780477200.5,
		"message":{"headers":{"message-id":"%s"}}}}`, a.MessageID)
	wantCounts(t, post("mailgun", mg), 1, 0, 0, 0, 1)
	if !h.optedOut("a@mail.example") {
		t.Fatal("mailgun unsubscribe did not opt out")
	}

	// Postmark: matched by our send id echoed in Metadata.
	pm := fmt.Sprintf(`{"RecordType":"Bounce","ID":42,"Type":"HardBounce","MessageID":"pm-0001","Email":"b@mail.example",
		"BouncedAt":"2026-06-03T10:00:00Z","Description":"The server was unable to deliver","Metadata":{"send_id":"%s"}}`, b.EventID)
	wantCounts(t, post("postmark", pm), 1, 0, 0, 0, 1)
	if !h.optedOut("b@mail.example") {
		t.Fatal("postmark hard bounce did not opt out")
	}

	// Amazon SES through SNS: the notification is a JSON string inside the envelope.
	inner, _ := json.Marshal(map[string]any{"notificationType": "Delivery",
		"mail":     map[string]any{"messageId": "ses-0001", "destination": []string{"c@mail.example"}, "commonHeaders": map[string]any{"messageId": "<" + c.MessageID + ">"}},
		"delivery": map[string]any{"timestamp": "2026-06-03T10:00:00Z", "recipients": []string{"c@mail.example"}, "smtpResponse": "250 ok"}})
	env, _ := json.Marshal(map[string]any{"Type": "Notification", "MessageId": "sns-1", "TopicArn": "arn:aws:sns:eu-west-1:1:ses",
		"Message": string(inner), "Timestamp": "2026-06-03T10:00:01Z"})
	wantCounts(t, post("ses", string(env)), 1, 1, 0, 0, 0)

	conf := `{"Type":"SubscriptionConfirmation","MessageId":"sns-0","TopicArn":"arn:aws:sns:eu-west-1:1:ses","Token":"t",
		"SubscribeURL":"https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t","Timestamp":"2026-06-03T10:00:00Z"}`
	wantCounts(t, post("ses", conf), 0, 0, 0, 0, 0)
	list, _, _ := h.c.DB.Read().ListActivity(h.ctx, store.ActivityFilter{Action: "mail_events.subscription_pending"})
	if len(list) != 1 || !strings.Contains(list[0].Detail, "ConfirmSubscription") {
		t.Fatalf("subscription activity = %+v", list)
	}

	// A wrong code or an unknown provider is not found and counts as a refusal.
	if res := h.env.Do("POST", "/v1/mail-events/sendgrid/wrong", sg, nil); res.Code() != "not_found / not_found" {
		t.Fatalf("wrong code: want not_found / not_found, got %s", res)
	}
	if res := h.env.Do("POST", "/v1/mail-events/sparkpost/"+code, sg, nil); res.Code() != "not_found / not_found" {
		t.Fatalf("unknown provider: want not_found / not_found, got %s", res)
	}
	for i := 0; i < 58; i++ {
		h.env.Do("POST", "/v1/mail-events/postmark/wrong", pm, nil)
	}
	if res := post("sendgrid", sg); res.Status != 429 || res.Code() != "rate_limited / rate_limited" {
		t.Fatalf("after 60 refusals: want 429, got %s", res)
	}
}

var reStop = regexp.MustCompile(`https://reviews\.example(/v1/unsubscribe\?t=[A-Za-z0-9%_-]+)`)

// TestUnsubscribeLink: GET shows a confirmation page and changes nothing; POST
// (also the RFC 8058 one-click POST) opts the address out.
func TestUnsubscribeLink(t *testing.T) {
	h := newHookEnv(t)
	link := reStop.FindStringSubmatch(h.env.App.Sending.UnsubscribeURL("email", "en", "Someone@Mail.example"))[1]

	res := h.env.Do("GET", link, nil, nil)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(res.Body), `<form method="post">`) || !strings.Contains(string(res.Body), "s***@mail.example") {
		t.Fatalf("page: %s", res)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self'") {
		t.Fatalf("CSP %q", csp)
	}
	if h.optedOut("someone@mail.example") {
		t.Fatal("GET opted out")
	}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for i := 0; i < 2; i++ {
		res = h.env.Do("POST", link, "List-Unsubscribe=One-Click", form)
		if res.Status != 200 || !strings.Contains(string(res.Body), "will not receive") {
			t.Fatalf("one-click POST: want 200, got %s", res)
		}
	}
	if !h.optedOut("someone@mail.example") {
		t.Fatal("POST did not opt out")
	}
	list, _, _ := h.c.DB.Read().ListActivity(h.ctx, store.ActivityFilter{Action: "opt_out.added"})
	if len(list) != 1 {
		t.Fatalf("opt_out.added entries = %d, want 1", len(list))
	}

	tr := reStop.FindStringSubmatch(h.env.App.Sending.UnsubscribeURL("webhook", "tr", "kisi@mail.example"))[1]
	if res := h.env.Do("GET", tr, nil, nil); !strings.Contains(string(res.Body), "Aboneliği iptal et") {
		t.Fatalf("tr page: %s", res.Body)
	}
	h.env.Do("POST", tr, nil, nil)
	rows, _ := h.c.DB.Read().OptOutsByAddresses(h.ctx, []string{"kisi@mail.example"})
	if len(rows) != 1 || rows[0].ChannelKind != "webhook" || rows[0].Reason != sending.OptOutLink {
		t.Fatalf("opt-out rows = %+v", rows)
	}

	for _, bad := range []string{"/v1/unsubscribe", "/v1/unsubscribe?t=abc", link[:len(link)-4] + "AAAA"} {
		if res := h.env.Do("GET", bad, nil, nil); res.Status != 400 || !strings.Contains(string(res.Body), "not valid") {
			t.Fatalf("GET %s: %d %s", bad, res.Status, res.Body)
		}
		if res := h.env.Do("POST", bad, nil, nil); res.Status != 400 {
			t.Fatalf("POST %s: %d", bad, res.Status)
		}
	}
}

var reLink = regexp.MustCompile(`https://shop\.example/review#review_token=([A-Za-z0-9._-]+)`)

// TestEndToEnd goes from an order sent to the ingest endpoint to the e-mail a real
// SMTP server receives, the token of its link verified, its stop link used and a
// delivery event matched back to it.
func TestEndToEnd(t *testing.T) {
	h := newHookEnv(t)
	server := h.env.Key("server", "web-tr")
	order := map[string]any{"channel": "web-tr", "external_id": "E2E-1", "payment_state": "paid",
		"placed_at": "2026-05-30T12:00:00+03:00", "customer_email": "ece@mail.example", "language": "en",
		"items": []map[string]any{{"line_reference": "1", "variant_key": "KTL-9", "title": "Copper kettle",
			"fulfilment_state": "delivered", "delivered_at": "2026-06-01T11:00:00+03:00"}}}
	res := h.env.Do("POST", "/v1/ingest/orders", order, map[string]string{"Authorization": "Bearer " + server})
	if res.Status != 200 || res.JSON["accepted"] != float64(1) {
		t.Fatalf("ingest: want 200, got %s", res)
	}

	job := jobs.Invitations{Sending: h.env.App.Sending}
	h.env.Clock.T = time.Date(2026, 6, 3, 7, 59, 0, 0, time.UTC)
	if sum, err := job.Run(h.ctx, h.env.Clock.T); err != nil || len(h.smtp.Messages()) != 0 {
		t.Fatalf("before due: %s, %v", sum, err)
	}
	h.env.Clock.T = time.Date(2026, 6, 3, 8, 0, 0, 0, time.UTC)
	sum, err := job.Run(h.ctx, h.env.Clock.T)
	if err != nil || !strings.Contains(sum, "created=1") || !strings.Contains(sum, "sent=1") {
		t.Fatalf("job: %s, %v", sum, err)
	}
	msgs := h.smtp.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "ece@mail.example" || !strings.Contains(msgs[0].Text, "Copper kettle") {
		t.Fatalf("received %+v", msgs)
	}
	m := reLink.FindStringSubmatch(msgs[0].Text)
	if m == nil {
		t.Fatalf("no review link in %q", msgs[0].Text)
	}
	ch, _ := h.c.DB.Read().ChannelByCode(h.ctx, "web-tr")
	v, err := h.env.App.Buyer.VerifyToken(h.ctx, h.c.DB.Read(), m[1], ch, buyer.WritingKinds...)
	if err != nil || v.Order.ExternalID != "E2E-1" || len(v.Lines) != 1 || !v.Lines[0].Writable || v.Mode() != buyer.ModeWrite {
		t.Fatalf("verified token = %+v, %v", v, err)
	}

	// The invitation list shows it sent.
	read := map[string]string{"Authorization": "Api-Key " + h.env.Key("api", "", "read")}
	list := h.env.Do("GET", "/admin/v1/invites?sent=1", nil, read)
	if list.JSON["total"] != float64(1) {
		t.Fatalf("invites: %s", list.Body)
	}

	// A delivery event finds the sending by its Message-ID.
	id, secret := h.env.Password("mail_events", "")
	mid := msgs[0].Header.Get("Message-Id")
	wantCounts(t, h.signed(id, secret, map[string]any{"type": "delivered", "event_id": "d-1", "message_id": mid}), 1, 1, 0, 0, 0)

	// The stop link in the e-mail works (one-click POST from the mail client).
	lu := strings.Trim(msgs[0].Header.Get("List-Unsubscribe"), "<>")
	u, _ := url.Parse(lu)
	if res := h.env.Do("POST", u.RequestURI(), "List-Unsubscribe=One-Click",
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"}); res.Status != 200 {
		t.Fatalf("one-click: want 200, got %s", res)
	}
	if !h.optedOut("ece@mail.example") {
		t.Fatal("not opted out")
	}
}

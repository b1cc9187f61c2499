package core_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
	"reviewd/app/outbound"
	"reviewd/app/sendtest"
)

// noticeEnv is a sendEnv whose brand sends through its own system: the route is
// webhook, the notification address is the test receiver.
type noticeEnv struct {
	*sendEnv
	rx     *sendtest.Receiver
	secret string
}

func newNoticeEnv(t *testing.T) *noticeEnv {
	t.Helper()
	e := newSendEnv(t)
	rx := sendtest.StartReceiver(t)
	e.env.App.SetOutbound(rx.Client)
	p, err := e.env.App.Brand.CreateWebhookSecret(e.ctx, owner())
	if err != nil {
		t.Fatal(err)
	}
	e.set(map[string]any{"invite_delivery": "webhook", "reminder_delivery": "webhook", "webhook_url": rx.URL})
	return &noticeEnv{sendEnv: e, rx: rx, secret: p.Secret}
}

// verify checks a received notice's signature independently of reviewd's code and
// returns its body.
func (n *noticeEnv) verify(t *testing.T, got sendtest.Notice) sending.Notice {
	t.Helper()
	ts := got.Header.Get("X-Service-Timestamp")
	mac := hmac.New(sha256.New, []byte(n.secret))
	mac.Write([]byte(ts + "." + string(got.Body)))
	if want := hex.EncodeToString(mac.Sum(nil)); got.Header.Get("X-Service-Signature") != want {
		t.Fatalf("signature %q, want %q", got.Header.Get("X-Service-Signature"), want)
	}
	if _, err := time.Parse(time.RFC3339, ts); err != nil || !strings.HasSuffix(ts, "+00:00") {
		t.Fatalf("timestamp %q is not ISO 8601 with offset", ts)
	}
	var body sending.Notice
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if got.Header.Get("X-Service-Event-Id") != body.EventID || body.EventID == "" {
		t.Fatalf("event id header %q, body %q", got.Header.Get("X-Service-Event-Id"), body.EventID)
	}
	return body
}

// TestNoticeAsReceived checks every header and body field of an invitation notice
// as an HTTPS receiver got it, with the signature verified independently.
func TestNoticeAsReceived(t *testing.T) {
	n := newNoticeEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	n.order("N-1", "ayse@mail.example", delivered, func(in *orders.OrderInput) {
		in.Items = append(in.Items, orders.LineInput{LineReference: "L2", VariantKey: "SKU-2", Title: "Cups",
			FulfilmentState: "delivered", DeliveredAt: iso(delivered)})
	})
	wantRun(t, n.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 1, Sent: 1})
	reqs := n.rx.Requests()
	if len(reqs) != 1 {
		t.Fatalf("notices = %d", len(reqs))
	}
	h := reqs[0].Header
	if h.Get("Content-Type") != "application/json" || h.Get("User-Agent") != "service-webhook" {
		t.Fatalf("headers = %v", h)
	}
	raw := map[string]any{}
	_ = json.Unmarshal(reqs[0].Body, &raw)
	for _, f := range []string{"address", "subject", "text", "token", "language", "message_class", "template_key", "event_id", "context"} {
		if _, ok := raw[f]; !ok {
			t.Errorf("body lacks %s: %s", f, reqs[0].Body)
		}
	}
	b := n.verify(t, reqs[0])
	if b.Address != "ayse@mail.example" || b.Language != "tr" || b.MessageClass != "transactional" || b.TemplateKey != "default" {
		t.Fatalf("body = %+v", b)
	}
	link := "https://shop.example/review#review_token=" + b.Token
	if !strings.Contains(b.Text, link) || !reStopLink.MatchString(b.Text) || b.Subject == "" {
		t.Fatalf("text %q lacks the review link %s or the stop link", b.Text, link)
	}
	want := sending.NoticeContext{LandingURL: "https://shop.example/review", Channel: "web-tr", Brand: "Acme", OrderReference: "N-1",
		LineReferences: []string{"L1", "L2"}}
	if b.Context.LandingURL != want.LandingURL || b.Context.Channel != want.Channel || b.Context.Brand != want.Brand ||
		b.Context.OrderReference != want.OrderReference || strings.Join(b.Context.LineReferences, ",") != "L1,L2" {
		t.Fatalf("context = %+v, want %+v", b.Context, want)
	}
	if len(n.smtp.Messages()) != 0 {
		t.Fatal("the service sent an e-mail itself")
	}
	logs := n.logs(n.invite("N-1", sending.MsgInvitation).ID)
	if len(logs) != 1 || logs[0].ChannelKind != "webhook" || logs[0].EventID != b.EventID || logs[0].Status != sending.LogSent {
		t.Fatalf("send log = %+v", logs)
	}

	// The reminder is a notice with the same token and the Reminder: prefix.
	wantRun(t, n.run(delivered.Add(9*24*hour)), sending.InvitationRun{Reminders: 1, Sent: 1})
	reqs = n.rx.Requests()
	r := n.verify(t, reqs[1])
	if r.Token != b.Token || r.Subject != "Reminder: "+b.Subject || r.EventID == b.EventID {
		t.Fatalf("reminder = %+v", r)
	}
}

// TestNoticeRetrySchedule: 5xx answers are retried after 30 min, 1 h, 2 h and 4 h;
// the fifth failure makes the invitation Failed; every attempt is a send-log row
// with a new event id; a retry keeps the token.
func TestNoticeRetrySchedule(t *testing.T) {
	n := newNoticeEnv(t)
	n.rx.Respond(http.StatusServiceUnavailable)
	delivered := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	n.order("N-R", "retry@mail.example", delivered)
	at := delivered.Add(48 * hour) // 09:00 in Istanbul
	wantRun(t, n.run(at), sending.InvitationRun{Created: 1, Retry: 1})
	for i, wait := range sending.NoticeRetry {
		wantRun(t, n.run(at.Add(wait-time.Minute)), sending.InvitationRun{})
		at = at.Add(wait)
		want := sending.InvitationRun{Retry: 1}
		if i == len(sending.NoticeRetry)-1 {
			want = sending.InvitationRun{Failed: 1}
		}
		wantRun(t, n.run(at), want)
	}
	inv := n.invite("N-R", sending.MsgInvitation)
	if inv.State != sending.StateFailed || inv.Attempts != 5 || inv.LastError != "http_status: 503" {
		t.Fatalf("invitation = %+v", inv)
	}
	logs := n.logs(inv.ID)
	reqs := n.rx.Requests()
	if len(logs) != 5 || len(reqs) != 5 {
		t.Fatalf("logs %d, requests %d", len(logs), len(reqs))
	}
	seen := map[string]bool{}
	token := ""
	for i, l := range logs {
		b := n.verify(t, reqs[i])
		if l.EventID != b.EventID || seen[l.EventID] || l.Error != "http_status: 503" || l.Attempt != i+1 {
			t.Fatalf("log %d = %+v (event %s)", i, l, b.EventID)
		}
		if token != "" && b.Token != token {
			t.Fatal("token changed between attempts")
		}
		seen[l.EventID], token = true, b.Token
		want := sending.LogRetry
		if i == 4 {
			want = sending.LogFailed
		}
		if l.Status != want {
			t.Fatalf("log %d status %s, want %s", i, l.Status, want)
		}
	}

	// A retry queues it again: same token, new event id.
	n.rx.Respond(http.StatusOK)
	res, err := n.env.App.Sending.RetryInvitations(n.ctx, owner(), nil, "")
	if err != nil || res != (sending.RetryResult{Queued: 1}) {
		t.Fatalf("retry = %+v, %v", res, err)
	}
	wantRun(t, n.run(at.Add(hour)), sending.InvitationRun{Sent: 1})
	reqs = n.rx.Requests()
	last := n.verify(t, reqs[len(reqs)-1])
	if last.Token != token || seen[last.EventID] {
		t.Fatalf("retried notice = %+v", last)
	}
}

// TestNoticeFailures: other 4xx answers and addresses that break the rules fail at
// once; 408, 429 and connection errors are retried.
func TestNoticeFailures(t *testing.T) {
	cases := []struct {
		name   string
		status int
		url    string
		down   bool
		state  string
		reason string
	}{
		{"404 fails", http.StatusNotFound, "", false, sending.StateFailed, "http_status: 404"},
		{"410 fails", http.StatusGone, "", false, sending.StateFailed, "http_status: 410"},
		{"408 retried", http.StatusRequestTimeout, "", false, sending.StateQueued, "http_status: 408"},
		{"429 retried", http.StatusTooManyRequests, "", false, sending.StateQueued, "http_status: 429"},
		{"500 retried", http.StatusInternalServerError, "", false, sending.StateQueued, "http_status: 500"},
		{"port fails", 0, "https://example.com:8443/hooks", false, sending.StateFailed, "port_refused"},
		{"private address fails", 0, "https://localhost/hooks", false, sending.StateFailed, "address_refused"},
		{"connection retried", 0, "", true, sending.StateQueued, "connection_failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := newNoticeEnv(t)
			if tc.status != 0 {
				n.rx.Respond(tc.status)
			}
			if tc.url != "" {
				n.set(map[string]any{"webhook_url": tc.url})
			}
			if tc.down {
				c, err := outbound.New(outbound.Config{Resolve: []string{"example.com:443=127.0.0.1:1"}})
				if err != nil {
					t.Fatal(err)
				}
				n.env.App.SetOutbound(c)
			}
			delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
			n.order("F-1", "f@mail.example", delivered)
			n.run(delivered.Add(48 * hour))
			inv := n.invite("F-1", sending.MsgInvitation)
			if inv.State != tc.state || inv.LastError != tc.reason || inv.Attempts != 1 {
				t.Fatalf("invitation = %+v, want %s %s", inv, tc.state, tc.reason)
			}
			logs := n.logs(inv.ID)
			if len(logs) != 1 || logs[0].Error != tc.reason {
				t.Fatalf("send log = %+v", logs)
			}
			if tc.state == sending.StateQueued && !inv.NextAttemptAt.Equal(delivered.Add(48*hour+30*time.Minute)) {
				t.Fatalf("next attempt %s, want after 30 minutes", inv.NextAttemptAt)
			}
		})
	}
}

// TestExperienceAndRejectionNotices: shopping-experience invitations and rejection
// notices go by the same route; a rejection notice has template_key
// rejection:<reason>, an empty context and is sent at once.
func TestExperienceAndRejectionNotices(t *testing.T) {
	n := newNoticeEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	n.order("X-1", "exp@mail.example", delivered)
	n.order("X-1", "exp@mail.example", time.Time{}, func(in *orders.OrderInput) {
		in.Items[0].FulfilmentState, in.Items[0].DeliveredAt = "returned", ""
	})
	exp := n.invite("X-1", sending.MsgExperience)
	if exp.State != sending.StateQueued || !exp.NextAttemptAt.Equal(t0.Add(48*hour)) {
		t.Fatalf("experience invitation = %+v", exp)
	}
	wantRun(t, n.run(t0.Add(48*hour)), sending.InvitationRun{Sent: 1})
	reqs := n.rx.Requests()
	if len(reqs) != 1 {
		t.Fatalf("notices = %d", len(reqs))
	}
	b := n.verify(t, reqs[0])
	if b.Context.OrderReference != "X-1" || strings.Join(b.Context.LineReferences, ",") != "L1" || !strings.Contains(b.Text, b.Token) {
		t.Fatalf("experience notice = %+v", b)
	}
	if got := n.invites("X-1"); len(got) != 1 {
		t.Fatalf("the returned line got a product invitation too: %+v", got)
	}

	// A rejection notice goes at once, outside sending hours too (23:00 Istanbul).
	n.env.Clock.T = time.Date(2026, 6, 5, 20, 0, 0, 0, time.UTC)
	id, err := n.env.App.Sending.SendRejectionNotice(n.ctx, sending.RejectionNotice{ChannelID: channelOf(t, n.sendEnv, "web-tr").ID,
		Address: "exp@mail.example", Language: "en", Reason: "off_topic", ReasonText: "The review is about delivery, not the product.",
		CorrectionURL: "https://shop.example/review#review_token=corr"})
	if err != nil {
		t.Fatal(err)
	}
	reqs = n.rx.Requests()
	if len(reqs) != 2 {
		t.Fatalf("notices = %d, want the rejection sent at once", len(reqs))
	}
	raw := map[string]any{}
	_ = json.Unmarshal(reqs[1].Body, &raw)
	if ctx, ok := raw["context"].(map[string]any); !ok || len(ctx) != 0 {
		t.Fatalf("rejection context = %v, want {}", raw["context"])
	}
	r := n.verify(t, reqs[1])
	if r.TemplateKey != "rejection:off_topic" || !strings.Contains(r.Text, "The review is about delivery, not the product.") ||
		!strings.Contains(r.Text, "https://shop.example/review#review_token=corr") || r.Language != "en" {
		t.Fatalf("rejection notice = %+v", r)
	}
	logs := n.logs(id)
	if len(logs) != 1 || logs[0].Status != sending.LogSent {
		t.Fatalf("rejection send log = %+v", logs)
	}
}

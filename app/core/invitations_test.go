package core_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/app/sendtest"
	"reviewd/store"
)

const hour = time.Hour

// TestInvitationWaitingTime: an invitation is due invite_delay_days (default 2)
// after delivery, and is created and sent once.
func TestInvitationWaitingTime(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("A-1", "ayse@mail.example", delivered)

	wantRun(t, e.run(t0), sending.InvitationRun{})
	wantRun(t, e.run(delivered.Add(48*hour-time.Minute)), sending.InvitationRun{})
	wantRun(t, e.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 1, Sent: 1})
	wantRun(t, e.run(delivered.Add(49*hour)), sending.InvitationRun{})
	if got := len(e.mailsTo("ayse@mail.example")); got != 1 {
		t.Fatalf("e-mails = %d, want 1", got)
	}
	inv := e.invite("A-1", sending.MsgInvitation)
	if inv.State != sending.StateSent || inv.Route != brand.RouteEmail || inv.Attempts != 1 {
		t.Fatalf("invitation = %+v", inv)
	}

	// With no waiting time the invitation goes at the next run.
	e.set(map[string]any{"invite_delay_days": 0})
	now := delivered.Add(50 * hour)
	e.order("A-2", "can@mail.example", now.Add(-time.Minute))
	wantRun(t, e.run(now), sending.InvitationRun{Created: 1, Sent: 1})
}

// TestInvitationSendWindow: invitations go only inside send_window in time_zone.
func TestInvitationSendWindow(t *testing.T) {
	e := newSendEnv(t)
	// Due 2026-06-03 19:00 UTC = 22:00 in Istanbul, after the 09:00-21:00 window.
	e.order("W-1", "ayse@mail.example", time.Date(2026, 6, 1, 19, 0, 0, 0, time.UTC))
	due := time.Date(2026, 6, 3, 19, 0, 0, 0, time.UTC)
	wantRun(t, e.run(due), sending.InvitationRun{Created: 1, Deferred: 1})
	inv := e.invite("W-1", sending.MsgInvitation)
	next := time.Date(2026, 6, 4, 6, 0, 0, 0, time.UTC) // 09:00 in Istanbul
	if inv.State != sending.StateQueued || !inv.NextAttemptAt.Equal(next) || inv.LastError != sending.WaitWindow || inv.Attempts != 0 {
		t.Fatalf("invitation = %+v, want queued until %s", inv, next)
	}
	wantRun(t, e.run(next.Add(-time.Minute)), sending.InvitationRun{})
	wantRun(t, e.run(next), sending.InvitationRun{Sent: 1})

	// Another zone and window: London, 08:00-10:00 (BST, UTC+1).
	e.set(map[string]any{"time_zone": "Europe/London", "send_window": "08:00-10:00"})
	e.order("W-2", "can@mail.example", time.Date(2026, 6, 4, 7, 0, 0, 0, time.UTC))
	wantRun(t, e.run(time.Date(2026, 6, 6, 9, 30, 0, 0, time.UTC)), sending.InvitationRun{Created: 1, Deferred: 1})
	if got := e.invite("W-2", sending.MsgInvitation).NextAttemptAt; !got.Equal(time.Date(2026, 6, 7, 7, 0, 0, 0, time.UTC)) {
		t.Fatalf("next attempt = %s, want 2026-06-07T07:00Z (08:00 London)", got)
	}
}

// TestSendWindowRules is the table of the window arithmetic.
func TestSendWindowRules(t *testing.T) {
	ist, _ := time.LoadLocation("Europe/Istanbul")
	at := func(d, h, m int) time.Time { return time.Date(2026, 6, d, h, m, 0, 0, ist) }
	cases := []struct {
		window string
		t      time.Time
		in     bool
		next   time.Time
	}{
		{"09:00-21:00", at(1, 8, 59), false, at(1, 9, 0)},
		{"09:00-21:00", at(1, 9, 0), true, at(1, 9, 0)},
		{"09:00-21:00", at(1, 20, 59), true, at(1, 20, 59)},
		{"09:00-21:00", at(1, 21, 0), false, at(2, 9, 0)},
		{"22:00-06:00", at(1, 23, 0), true, at(1, 23, 0)},
		{"22:00-06:00", at(1, 5, 59), true, at(1, 5, 59)},
		{"22:00-06:00", at(1, 6, 0), false, at(1, 22, 0)},
		{"00:00-24:00", at(1, 23, 59), true, at(1, 23, 59)},
	}
	for _, tc := range cases {
		w, ok := brand.ParseSendWindow(tc.window)
		if !ok {
			t.Fatalf("%s does not parse", tc.window)
		}
		if w.Contains(tc.t) != tc.in || !w.Next(tc.t).Equal(tc.next) {
			t.Errorf("%s at %s: in=%v next=%s, want %v %s", tc.window, tc.t, w.Contains(tc.t), w.Next(tc.t), tc.in, tc.next)
		}
	}
	for _, bad := range []string{"", "9:00-21:00", "09:00-09:00", "25:00-26:00", "09:00-21:60", "09:00–21:00", "aa:bb-cc:dd", "09:00-24:01"} {
		if _, ok := brand.ParseSendWindow(bad); ok {
			t.Errorf("%q parses", bad)
		}
	}
}

// TestInvitationDailyLimitAndBurst: at most daily_limit invitations per
// customer_key (else per address, case ignored) per local day, and at most
// BurstLimit per hour.
func TestInvitationDailyLimitAndBurst(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	key := func(k string) func(*orders.OrderInput) { return func(in *orders.OrderInput) { in.CustomerKey = k } }
	e.order("K-1", "one@mail.example", delivered, key("cust-7"))
	e.order("K-2", "two@mail.example", delivered, key("cust-7"))
	e.order("E-1", "Deniz@Mail.example", delivered)
	e.order("E-2", "deniz@mail.example", delivered)
	due := delivered.Add(48 * hour)
	wantRun(t, e.run(due), sending.InvitationRun{Created: 4, Sent: 2, Deferred: 2})
	tomorrow := time.Date(2026, 6, 4, 6, 0, 0, 0, time.UTC) // 09:00 next day in Istanbul
	for _, ext := range []string{"K-2", "E-2"} {
		inv := e.invite(ext, sending.MsgInvitation)
		if inv.State != sending.StateQueued || inv.LastError != sending.WaitDailyLimit || !inv.NextAttemptAt.Equal(tomorrow) {
			t.Fatalf("%s = %+v, want waiting for %s", ext, inv, tomorrow)
		}
	}
	wantRun(t, e.run(tomorrow), sending.InvitationRun{Sent: 2})

	// Burst: with a daily limit of 10, the fourth invitation within an hour waits.
	e.set(map[string]any{"daily_limit": 10})
	d2 := time.Date(2026, 6, 5, 8, 0, 0, 0, time.UTC)
	for _, ext := range []string{"B-1", "B-2", "B-3", "B-4"} {
		e.order(ext, strings.ToLower(ext)+"@mail.example", d2, key("burst"))
	}
	first := d2.Add(48 * hour)
	wantRun(t, e.run(first), sending.InvitationRun{Created: 4, Sent: 3, Deferred: 1})
	inv := e.invite("B-4", sending.MsgInvitation)
	if inv.LastError != sending.WaitBurst || !inv.NextAttemptAt.Equal(first.Add(hour)) {
		t.Fatalf("B-4 = %+v, want waiting an hour", inv)
	}
	wantRun(t, e.run(first.Add(hour)), sending.InvitationRun{Sent: 1})
}

// TestInvitationSkips: opted-out addresses, orders without address, stale and
// not-reviewable orders, expired links.
func TestInvitationSkips(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	if _, err := e.env.App.Sending.Unsubscribe(e.ctx, core.Console(), e.env.App.Sending.UnsubscribeToken("email", "tr", "Out@Mail.example")); err != nil {
		t.Fatal(err)
	}
	e.order("S-OUT", "out@mail.example", delivered)
	e.order("S-NONE", "", delivered)
	e.order("S-STALE", "old@mail.example", t0.Add(-40*24*hour), func(in *orders.OrderInput) { in.PlacedAt = iso(t0.Add(-41 * 24 * hour)) })
	e.order("S-CLOSED", "closed@mail.example", t0.Add(-200*24*hour), func(in *orders.OrderInput) { in.PlacedAt = iso(t0.Add(-201 * 24 * hour)) })
	wantRun(t, e.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 1})
	if inv := e.invite("S-OUT", sending.MsgInvitation); inv.State != sending.StateSkipped || inv.LastError != sending.SkipOptedOut || inv.TokenID != 0 {
		t.Errorf("S-OUT = %+v, want skipped opted_out", inv)
	}
	// No address, or delivered too long ago (due more than 30 days ago; review
	// window closed): no invitation at all.
	for _, ext := range []string{"S-NONE", "S-STALE", "S-CLOSED"} {
		if got := e.invites(ext); len(got) != 0 {
			t.Fatalf("%s has invitations: %+v", ext, got)
		}
	}
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("%d e-mails sent", n)
	}

	// With SMTP off the invitation waits (no attempt, no log) until its link
	// expires; then it is skipped.
	e.env.App.SetMailer(mail.New(mail.Config{}))
	e.order("S-WAIT", "wait@mail.example", delivered)
	wantRun(t, e.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 1, Deferred: 1})
	inv := e.invite("S-WAIT", sending.MsgInvitation)
	if inv.State != sending.StateQueued || inv.LastError != sending.WaitMailOff || inv.Attempts != 0 || len(e.logs(inv.ID)) != 0 {
		t.Fatalf("waiting invitation = %+v", inv)
	}
	if want := delivered.Add(180 * 24 * hour); !inv.ExpiresAt.Equal(want) {
		t.Fatalf("link expires %s, want %s (TR review window)", inv.ExpiresAt, want)
	}
	wantRun(t, e.run(inv.ExpiresAt), sending.InvitationRun{Skipped: 1})
	if inv = e.invite("S-WAIT", sending.MsgInvitation); inv.State != sending.StateSkipped || inv.LastError != sending.SkipExpired {
		t.Fatalf("expired invitation = %+v", inv)
	}
}

// TestOneInvitationPerOrder: one invitation for all reviewable lines of an order;
// re-sending the order makes no second one.
func TestOneInvitationPerOrder(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	lines := func(in *orders.OrderInput) {
		in.Items = []orders.LineInput{
			{LineReference: "L1", VariantKey: "SKU-1", Title: "Blue kettle", FulfilmentState: "delivered", DeliveredAt: iso(delivered)},
			{LineReference: "L2", VariantKey: "SKU-2", Title: "Tea cups", FulfilmentState: "delivered", DeliveredAt: iso(delivered.Add(hour))},
			{LineReference: "L3", VariantKey: "SKU-3", Title: "Teapot", FulfilmentState: "shipped"},
		}
	}
	e.order("M-1", "multi@mail.example", time.Time{}, lines)
	wantRun(t, e.run(delivered.Add(48*hour)), sending.InvitationRun{Created: 1, Sent: 1})
	e.order("M-1", "multi@mail.example", time.Time{}, lines)
	wantRun(t, e.run(delivered.Add(60*hour)), sending.InvitationRun{})

	inv := e.invite("M-1", sending.MsgInvitation)
	tl, err := e.c.DB.Read().TokenLines(e.ctx, inv.TokenID)
	if err != nil || len(tl) != 2 || tl[0].LineReference != "L1" || tl[1].LineReference != "L2" {
		t.Fatalf("token lines = %+v, %v; want L1 and L2", tl, err)
	}
	m := e.mailsTo("multi@mail.example")
	if len(m) != 1 || !strings.Contains(m[0].Text, "Blue kettle") || !strings.Contains(m[0].Text, "Tea cups") || strings.Contains(m[0].Text, "Teapot") {
		t.Fatalf("e-mail text = %q", m[0].Text)
	}
}

// TestReminder: a reminder after reminder_after_days, with the Reminder: prefix
// and the same token; none with reminder_after_days 0.
func TestReminder(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("R-1", "rem@mail.example", delivered)
	sent := delivered.Add(48 * hour)
	wantRun(t, e.run(sent), sending.InvitationRun{Created: 1, Sent: 1})
	wantRun(t, e.run(sent.Add(7*24*hour-time.Minute)), sending.InvitationRun{})
	wantRun(t, e.run(sent.Add(7*24*hour)), sending.InvitationRun{Reminders: 1, Sent: 1})
	wantRun(t, e.run(sent.Add(8*24*hour)), sending.InvitationRun{})

	m := e.mailsTo("rem@mail.example")
	if len(m) != 2 {
		t.Fatalf("e-mails = %d, want 2", len(m))
	}
	first, second := m[0].DecodedHeader("Subject"), m[1].DecodedHeader("Subject")
	if strings.HasPrefix(first, "Reminder:") || second != "Reminder: "+first {
		t.Fatalf("subjects %q and %q", first, second)
	}
	if a, b := linkToken(t, m[0].Text), linkToken(t, m[1].Text); a != b {
		t.Fatalf("reminder token %q differs from %q", b, a)
	}
	inv, rem := e.invite("R-1", sending.MsgInvitation), e.invite("R-1", sending.MsgReminder)
	if rem.ParentID != inv.ID || rem.TokenID != inv.TokenID || rem.State != sending.StateSent {
		t.Fatalf("reminder = %+v", rem)
	}

	e.set(map[string]any{"reminder_after_days": 0})
	e.order("R-2", "norem@mail.example", delivered.Add(24*hour))
	wantRun(t, e.run(delivered.Add(72*hour)), sending.InvitationRun{Created: 1, Sent: 1})
	wantRun(t, e.run(delivered.Add(30*24*hour)), sending.InvitationRun{})
}

// TestEmailAsReceived checks the e-mail as a real SMTP server received it: sender,
// subject, multipart text and HTML, the review link, the stop link that works, the
// List-Unsubscribe headers, and the Message-ID recorded in the message log.
func TestEmailAsReceived(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("E-100", "Ayse@Mail.example", delivered)
	e.run(delivered.Add(48 * hour))

	m := e.mailsTo("Ayse@Mail.example")
	if len(m) != 1 {
		t.Fatalf("e-mails = %d", len(m))
	}
	got := m[0]
	if from := got.DecodedHeader("From"); !strings.Contains(from, "Acme") || !strings.Contains(from, "reviews@shop.example") {
		t.Errorf("From = %q", from)
	}
	if !strings.Contains(got.DecodedHeader("Subject"), "Acme") {
		t.Errorf("Subject = %q", got.DecodedHeader("Subject"))
	}
	if got.Text == "" || got.HTML == "" {
		t.Fatalf("want text and HTML parts; text %q html %q", got.Text, got.HTML)
	}
	tok := linkToken(t, got.Text)
	if !strings.Contains(got.HTML, "https://shop.example/review#review_token="+tok) {
		t.Errorf("HTML lacks the review link")
	}
	// The link's token is ours: issued for this order's line, kind invitation.
	plain := tok[strings.IndexByte(tok, '.')+1:]
	stored, err := e.c.DB.Read().TokenByHash(e.ctx, core.HashToken(plain))
	if err != nil || stored.Kind != buyer.TokenInvitation || stored.OrderID != e.orderOf("E-100").ID {
		t.Fatalf("token = %+v, %v", stored, err)
	}
	v, err := e.env.App.Buyer.VerifyToken(e.ctx, e.c.DB.Read(), tok, channelOf(t, e, "web-tr"), buyer.TokenInvitation)
	if err != nil || len(v.Lines) != 1 || !v.Lines[0].Writable {
		t.Fatalf("token verification = %+v, %v", v, err)
	}

	stop := reStopLink.FindStringSubmatch(got.Text)
	if stop == nil {
		t.Fatalf("no stop link in %q", got.Text)
	}
	if lu := got.Header.Get("List-Unsubscribe"); lu != "<"+stop[0]+">" {
		t.Errorf("List-Unsubscribe = %q, want <%s>", lu, stop[0])
	}
	if lup := got.Header.Get("List-Unsubscribe-Post"); lup != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post = %q", lup)
	}
	inv := e.invite("E-100", sending.MsgInvitation)
	logs := e.logs(inv.ID)
	mid := strings.Trim(got.Header.Get("Message-Id"), "<>")
	if len(logs) != 1 || logs[0].MessageID != mid || mid == "" || logs[0].Status != sending.LogSent || logs[0].ChannelKind != "email" ||
		logs[0].Recipient != "Ayse@Mail.example" || logs[0].Subject != got.DecodedHeader("Subject") {
		t.Fatalf("send log = %+v, Message-ID %q", logs, mid)
	}
	if got.Header.Get("X-Pm-Metadata-Send_id") != logs[0].EventID {
		t.Errorf("send id header %q, log event id %q", got.Header.Get("X-Pm-Metadata-Send_id"), logs[0].EventID)
	}

	// The stop link works: the address goes on the opt-out list.
	t1, _ := url.QueryUnescape(stop[1])
	if _, err := e.env.App.Sending.Unsubscribe(e.ctx, core.Console(), t1); err != nil {
		t.Fatal(err)
	}
	if out, _ := e.c.DB.Read().OptedOut(e.ctx, "ayse@mail.example"); !out {
		t.Fatal("address not opted out after the stop link")
	}
}

func channelOf(t *testing.T, e *sendEnv, code string) store.Channel {
	t.Helper()
	ch, err := e.c.DB.Read().ChannelByCode(e.ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestSMTPTrouble: an unreachable SMTP server keeps the invitation queued and
// retries it (nothing is lost); a permanent refusal fails it.
func TestSMTPTrouble(t *testing.T) {
	e := newSendEnv(t)
	working := e.env.App.Sending.Mailer
	e.env.App.SetMailer(sendtest.DownMailer(t))
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	e.order("T-1", "down@mail.example", delivered)
	due := delivered.Add(48 * hour)
	wantRun(t, e.run(due), sending.InvitationRun{Created: 1, Retry: 1})
	inv := e.invite("T-1", sending.MsgInvitation)
	if inv.State != sending.StateQueued || !inv.NextAttemptAt.Equal(due.Add(sending.MailRetry[0])) || inv.LastError != "connection_failed" {
		t.Fatalf("after SMTP failure = %+v", inv)
	}
	wantRun(t, e.run(due.Add(sending.MailRetry[0])), sending.InvitationRun{Retry: 1})
	if inv = e.invite("T-1", sending.MsgInvitation); !inv.NextAttemptAt.Equal(due.Add(sending.MailRetry[0] + sending.MailRetry[1])) {
		t.Fatalf("second wait: next %s", inv.NextAttemptAt)
	}
	e.env.App.SetMailer(working)
	wantRun(t, e.run(inv.NextAttemptAt), sending.InvitationRun{Sent: 1})
	logs := e.logs(inv.ID)
	if len(logs) != 3 || logs[0].Status != sending.LogRetry || logs[2].Status != sending.LogSent || logs[0].EventID == logs[2].EventID {
		t.Fatalf("send logs = %+v", logs)
	}
	if len(e.mailsTo("down@mail.example")) != 1 {
		t.Fatal("the invitation was not delivered after SMTP came back")
	}

	// A permanent refusal (550) fails the invitation at once.
	e.smtp.FailData(550)
	e.order("T-2", "refused@mail.example", delivered.Add(hour))
	wantRun(t, e.run(due.Add(2*hour)), sending.InvitationRun{Created: 1, Failed: 1})
	inv = e.invite("T-2", sending.MsgInvitation)
	if inv.State != sending.StateFailed || inv.LastError != "smtp_status: 550" {
		t.Fatalf("refused invitation = %+v", inv)
	}
}

// TestConcurrentRunsSendOnce: two runners at once (serve's cron and a console
// `jobs run`) never send a message twice.
func TestConcurrentRunsSendOnce(t *testing.T) {
	e := newSendEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < 5; i++ {
		e.order("C-"+string(rune('A'+i)), string(rune('a'+i))+"@mail.example", delivered)
	}
	now := delivered.Add(48 * hour)
	e.env.Clock.T = now
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() { _, err := e.env.App.Sending.RunInvitations(e.ctx, now); errs <- err }()
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.smtp.Messages()); n != 5 {
		t.Fatalf("e-mails = %d, want 5", n)
	}
}

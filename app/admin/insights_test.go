package admin_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/sending"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// mailOpened posts a signed generic "opened" mail event for the invitation of
// order ext.
func mailOpened(t *testing.T, m *modEnv, ext string) {
	t.Helper()
	q := m.env.App.DB.Read()
	o, err := q.OrderByExternalID(m.ctx, ext)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := q.InvitationOfOrder(m.ctx, o.ID, sending.MsgInvitation)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := q.SendLogsOfInvitation(m.ctx, inv.ID)
	if len(logs) != 1 || logs[0].MessageID == "" {
		t.Fatalf("send logs of %s: %+v", ext, logs)
	}
	id, secret := m.env.Password("mail_events", "")
	raw, _ := json.Marshal(map[string]any{"events": []any{map[string]any{"type": "opened", "event_id": "open-" + ext,
		"message_id": logs[0].MessageID, "occurred_at": m.env.Clock.T.Format(time.RFC3339)}}})
	ts := m.env.Clock.T.Format(time.RFC3339)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(raw)))
	res := m.env.Do("POST", "/v1/mail-events/generic", string(raw), map[string]string{"X-Service-Secret": id,
		"X-Service-Timestamp": ts, "X-Service-Signature": hex.EncodeToString(mac.Sum(nil))})
	if res.Status != 200 || res.JSON["matched"] != float64(1) {
		t.Fatalf("opened event: %s", res)
	}
}

func num(t *testing.T, v any, path string) float64 {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%s: %v is not a number", path, v)
	}
	return f
}

// wantFields fails unless obj holds every wanted value (numbers as float64).
func wantFields(t *testing.T, what string, obj any, want map[string]any) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("%s: %v is not an object", what, obj)
	}
	for k, v := range want {
		if m[k] != v {
			t.Fatalf("%s.%s = %v, want %v (all: %v)", what, k, m[k], v, m)
		}
	}
}

// TestMetricsInsightsOverview: figures of real reviews, invitations, mail events,
// transfers and moderation decisions, read through the admin API with a read key:
// reviews and average per period, distribution, funnel (sent, opened, reviewed),
// moderation response time, photo share, top products, topics, the comparison with
// the previous period (ai null), sites with their verdicts, the attention list,
// the publishing method, and the filters' error codes.
func TestMetricsInsightsOverview(t *testing.T) {
	m := newModEnv(t)
	smtp := sendtest.StartSMTP(t)
	m.env.App.SetMailer(smtp.Mailer())
	t0 := m.env.Clock.T
	a := m.order(review{channel: "web", email: "a@mail.example", variant: "SKU-1", product: "Kettle"})
	b := m.order(review{channel: "web", email: "b@mail.example", variant: "SKU-1", product: "Kettle"})
	c := m.order(review{channel: "web", email: "c@mail.example", variant: "SKU-1", product: "Kettle"})
	if n, err := m.env.App.Sending.RunInvitations(m.ctx, t0); err != nil || n.Sent != 3 {
		t.Fatalf("invitations: %+v %v", n, err)
	}
	mailOpened(t, m, a)
	mid := m.upload(c, photo(t, 640, 480))
	m.runMedia()
	rb := m.writeFor(b, review{channel: "web", body: "Boils water fast."})
	rc := m.writeFor(c, review{channel: "web", body: "Boils water fast, nice handle.", media: []string{mid}})
	waiting := m.raw("web", "pending", func(r *store.Review) { r.SubmittedAt = t0.Add(-72 * time.Hour) })
	m.raw("web-gb", "published", func(r *store.Review) { r.Origin, r.SourcePlatform, r.Rating = core.OriginImported, "amazon", 2 })
	m.env.Clock.Advance(5 * time.Hour)
	expect(t, m.transition(rb, "approve", ""), 200, "")
	expect(t, m.transition(rc, "approve", ""), 200, "")

	res := m.do("GET", "/admin/v1/metrics?channel=web", nil, m.read)
	expect(t, res, 200, "")
	wantFields(t, "metrics", res.JSON, map[string]any{"channel": "web", "from": "2026-05-03", "to": "2026-06-01", "period": "day",
		"time_zone": "Europe/Istanbul", "photo_share": 0.5})
	wantFields(t, "reviews", res.JSON["reviews"], map[string]any{"received": 3.0, "imported": 0.0, "published": 2.0, "average": 4.0, "with_media": 1.0})
	wantFields(t, "distribution", res.JSON["distribution"], map[string]any{"1": 0.0, "4": 2.0, "5": 0.0})
	wantFields(t, "invitations", res.JSON["invitations"], map[string]any{"sent": 3.0, "opened": 3.0, "reviewed": 2.0, "open_rate": 1.0, "conversion": 0.6667})
	wantFields(t, "moderation", res.JSON["moderation"], map[string]any{"decided": 2.0, "average_hours": 5.0, "within_24h": 1.0,
		"waiting": 1.0, "waiting_over_48h": 1.0, "oldest_waiting_at": t0.Add(-72 * time.Hour).Format(time.RFC3339)})
	series := res.JSON["series"].([]any)
	if len(series) != 30 {
		t.Fatalf("series: %d days", len(series))
	}
	wantFields(t, "last day", series[29], map[string]any{"start": "2026-06-01", "received": 2.0, "published": 2.0, "average": 4.0})
	wantFields(t, "day of the waiting review", series[26], map[string]any{"start": "2026-05-29", "received": 1.0, "published": 0.0, "average": nil})

	all := m.do("GET", "/admin/v1/metrics?period=week&from=2026-05-01&to=2026-06-01", nil, m.read)
	expect(t, all, 200, "")
	wantFields(t, "all reviews", all.JSON["reviews"], map[string]any{"received": 4.0, "imported": 1.0, "published": 3.0, "average": 3.33})
	weeks := all.JSON["series"].([]any)
	wantFields(t, "first week", weeks[0], map[string]any{"start": "2026-05-01"})
	wantFields(t, "second week", weeks[1], map[string]any{"start": "2026-05-04"})
	wantFields(t, "last week", weeks[len(weeks)-1], map[string]any{"start": "2026-06-01", "received": 3.0, "average": 3.33})

	// Hiding the photo review takes it out of published, the average and the photo share.
	expect(t, m.transition(rc, "hide", "personal_data"), 200, "")
	res = m.do("GET", "/admin/v1/metrics?channel=web", nil, m.read)
	wantFields(t, "after hiding", res.JSON["reviews"], map[string]any{"received": 3.0, "published": 1.0, "with_media": 0.0})
	wantFields(t, "after hiding", res.JSON, map[string]any{"photo_share": 0.0})

	ins := m.do("GET", "/admin/v1/insights?channel=web", nil, m.read)
	expect(t, ins, 200, "")
	if v, ok := ins.JSON["ai"]; !ok || v != nil {
		t.Fatalf("ai: %s", ins.Body)
	}
	wantFields(t, "insights", ins.JSON, map[string]any{"channel": "web", "market": "TR"})
	wantFields(t, "current", ins.JSON["current"], map[string]any{"from": "2026-05-03", "received": 3.0, "published": 1.0, "conversion": 0.6667})
	wantFields(t, "previous", ins.JSON["previous"], map[string]any{"from": "2026-04-03", "to": "2026-05-02", "received": 0.0, "average": nil})
	top := ins.JSON["top_products"].([]any)
	if len(top) != 1 {
		t.Fatalf("top products: %s", ins.Body)
	}
	wantFields(t, "top product", top[0], map[string]any{"product_key": "SKU-1", "market": "TR", "reviews": 1.0, "average": 4.0})
	found := false
	for _, w := range ins.JSON["topics"].([]any) {
		if w.(map[string]any)["word"] == "water" && w.(map[string]any)["reviews"] == 1.0 {
			found = true
		}
	}
	if !found {
		t.Fatalf("topics: %s", ins.Body)
	}

	// Store transfers: the three orders above and two more through the ingest
	// endpoint, one of them refused.
	server := map[string]string{"Authorization": "Bearer " + m.env.Key("server", "web")}
	if res := m.do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "external_id": "OV-1", "payment_state": "paid",
		"placed_at": "2026-05-25T12:00:00+03:00", "customer_email": "o@mail.example", "items": []any{map[string]any{"line_reference": "L1",
			"variant_key": "SKU-1", "title": "Kettle", "fulfilment_state": "placed"}}}, server); res.Status >= 300 {
		t.Fatalf("order: %s", res)
	}
	if res := m.do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "external_id": "OV-2"}, server); res.Status != 400 {
		t.Fatalf("refused order: %s", res)
	}
	// A marketplace connection whose last read failed.
	gb := m.channel("web-gb")
	m.tx(func(tx *store.Tx) error {
		if err := tx.ExecForTest(m.ctx, `INSERT INTO marketplace_sources (platform, channel_id, seller_id, route, created_at, updated_at)
			VALUES ('amazon', ?, 'S1', 'feed', ?, ?)`, gb.ID, store.Ms(tx.Now), store.Ms(tx.Now)); err != nil {
			return err
		}
		return tx.ExecForTest(m.ctx, `INSERT INTO marketplace_runs (source_id, trigger, scope, state, error, created_at, finished_at)
			VALUES ((SELECT max(id) FROM marketplace_sources), 'schedule', 'full', 'failed', 'http_status: 500', ?, ?)`, store.Ms(tx.Now), store.Ms(tx.Now))
	})

	ov := m.do("GET", "/admin/v1/overview", nil, m.read)
	expect(t, ov, 200, "")
	wantFields(t, "overview", ov.JSON, map[string]any{"mode": "manual", "mode_overrides": 0.0, "window_days": 7.0})
	sites := ov.JSON["sites"].([]any)
	if len(sites) != 2 {
		t.Fatalf("sites: %s", ov.Body)
	}
	wantFields(t, "site web", sites[0], map[string]any{"code": "web", "label": "web store", "market": "TR", "verdict": "ok",
		"calls": 5.0, "refused": 1.0, "last_at": m.env.Clock.T.Format(time.RFC3339)})
	wantFields(t, "site web-gb", sites[1], map[string]any{"code": "web-gb", "verdict": "silent", "calls": 0.0, "last_at": nil})
	att := ov.JSON["attention"].([]any)
	if len(att) != 2 {
		t.Fatalf("attention: %s", ov.Body)
	}
	wantFields(t, "moderation_slow", att[0], map[string]any{"kind": "moderation_slow", "count": 1.0, "at": t0.Add(-72 * time.Hour).Format(time.RFC3339)})
	wantFields(t, "marketplace_failed", att[1], map[string]any{"kind": "marketplace_failed", "count": 1.0})
	ov = m.do("GET", "/admin/v1/overview?channel=web", nil, m.read)
	if len(ov.JSON["sites"].([]any)) != 1 || len(ov.JSON["attention"].([]any)) != 1 || ov.JSON["mode"] != "manual" || ov.JSON["mode_overrides"] != 0.0 {
		t.Fatalf("channel overview: %s", ov.Body)
	}
	// Deciding the waiting review clears the attention.
	expect(t, m.transition(waiting, "reject", "off_topic"), 200, "")
	ov = m.do("GET", "/admin/v1/overview?channel=web", nil, m.read)
	if len(ov.JSON["attention"].([]any)) != 0 {
		t.Fatalf("attention after the decision: %s", ov.Body)
	}

	for _, c := range []struct{ path, code string }{
		{"/admin/v1/metrics?channel=nope", "invalid / channel"},
		{"/admin/v1/insights?channel=nope", "invalid / channel"},
		{"/admin/v1/overview?channel=nope", "invalid / channel"},
		{"/admin/v1/insights?channel=web&market=GB", "invalid / channel_market_mismatch"},
		{"/admin/v1/insights?market=tr", "invalid / market"},
		{"/admin/v1/insights?market=12", "invalid / market"},
		{"/admin/v1/insights?market=A1", "invalid / market"},
		{"/admin/v1/metrics?period=year", "invalid / period"},
		{"/admin/v1/metrics?from=2026-13-01", "invalid / from"},
		{"/admin/v1/metrics?to=yesterday", "invalid / to"},
		{"/admin/v1/metrics?from=2026-06-02&to=2026-06-01", "invalid / range"},
		{"/admin/v1/metrics?from=2020-01-01&to=2026-06-01", "invalid / range"},
		{"/admin/v1/metrics?period=day&from=2026-01-01&to=2026-06-01", "invalid / range"},
		{"/admin/v1/metrics?period=whole", "invalid / period"},
	} {
		expect(t, m.do("GET", c.path, nil, m.read), 400, c.code)
	}
	expect(t, m.do("GET", "/admin/v1/insights?market=GB", nil, m.read), 200, "")
	expect(t, m.do("GET", "/admin/v1/metrics", nil, nil), 401, "")
}

// TestMetricsFollowTheBrandsDays: the series folds reviews into the days of the
// brand's time zone, daylight saving included (Europe/Berlin moves to summer time
// on 2026-03-29), and a month's totals are the sum of its days.
func TestMetricsFollowTheBrandsDays(t *testing.T) {
	m := newModEnv(t)
	if _, err := m.env.App.Brand.UpdateSettings(m.ctx, core.Console(), map[string]json.RawMessage{
		"time_zone": json.RawMessage(`"Europe/Berlin"`)}); err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"2026-03-27T22:59:00Z", "2026-03-28T22:30:00Z", "2026-03-28T23:30:00Z", "2026-03-29T21:30:00Z",
		"2026-03-29T22:30:00Z", "2026-03-31T21:59:00Z", "2026-03-31T22:00:00Z"} {
		ts, _ := time.Parse(time.RFC3339, at)
		m.raw("web", "published", func(r *store.Review) { r.SubmittedAt, r.PublishedAt = ts, ts })
	}
	res := m.do("GET", "/admin/v1/metrics?from=2026-03-28&to=2026-03-31", nil, m.read)
	expect(t, res, 200, "")
	got := []string{}
	for _, p := range res.JSON["series"].([]any) {
		p := p.(map[string]any)
		got = append(got, fmt.Sprintf("%s:%v", p["start"], p["received"]))
	}
	if want := "2026-03-28:1 2026-03-29:2 2026-03-30:1 2026-03-31:1"; strings.Join(got, " ") != want {
		t.Fatalf("series %v, want %s", got, want)
	}
	month := m.do("GET", "/admin/v1/metrics?period=month&from=2026-03-01&to=2026-04-30", nil, m.read)
	series := month.JSON["series"].([]any)
	wantFields(t, "March", series[0], map[string]any{"start": "2026-03-01", "received": 6.0})
	wantFields(t, "April", series[1], map[string]any{"start": "2026-04-01", "received": 1.0})
	wantFields(t, "time zone", month.JSON, map[string]any{"time_zone": "Europe/Berlin"})
}

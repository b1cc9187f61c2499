package admin_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// sendOrders ingests paid orders delivered at delivered, one line each, and runs
// the invitations job when they are due.
func (o *ownerEnv) sendOrders(t *testing.T, delivered time.Time, addresses map[string]string) {
	t.Helper()
	for ext, addr := range addresses {
		_, err := o.env.App.Orders.IngestOrders(context.Background(), core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{
			Channel: "web-tr", ExternalID: ext, PaymentState: "paid", PlacedAt: delivered.Add(-24 * time.Hour).Format(time.RFC3339),
			CustomerEmail: addr, Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1", Title: "Kettle",
				FulfilmentState: "delivered", DeliveredAt: delivered.Format(time.RFC3339)}}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	now := delivered.Add(48 * time.Hour)
	o.env.Clock.T = now
	if _, err := o.env.App.Sending.RunInvitations(context.Background(), now); err != nil {
		t.Fatal(err)
	}
}

func accessCount(t *testing.T, o *ownerEnv, action string) int {
	t.Helper()
	list, _, err := o.env.App.DB.Read().ListAccess(context.Background(), store.AccessFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// TestInviteAndSendLogLists: the invitation list and the message log with their
// filters, counters and access-log entries.
func TestInviteAndSendLogLists(t *testing.T) {
	o := newOwnerEnv(t)
	smtp := sendtest.StartSMTP(t)
	o.env.App.SetMailer(smtp.Mailer())
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	o.sendOrders(t, delivered, map[string]string{"L-1": "one@mail.example", "L-2": "two@mail.example"})
	smtp.FailData(550)
	o.sendOrders(t, delivered.Add(time.Hour), map[string]string{"L-3": "three@mail.example"})

	res := o.env.Do("GET", "/admin/v1/invites", nil, o.read)
	expect(t, res, 200, "")
	if res.JSON["total"] != float64(3) || res.JSON["page"] != float64(1) || res.JSON["pages"] != float64(1) || res.JSON["page_size"] != float64(25) {
		t.Fatalf("envelope: %s", res.Body)
	}
	counters := res.JSON["counters"].(map[string]any)
	if counters["sent"] != float64(2) || counters["failed"] != float64(1) || counters["queued"] != float64(0) ||
		counters["skipped"] != float64(0) || counters["conversion"] != float64(0) {
		t.Fatalf("counters = %v", counters)
	}
	first := res.JSON["items"].([]any)[0].(map[string]any)
	if first["order_reference"] != "L-3" || first["recipient"] != "three@mail.example" || first["state"] != "failed" ||
		first["last_error"] != "smtp_status: 550" || first["channel"] != "web-tr" || first["recipient_erased"] != false {
		t.Fatalf("newest item = %v", first)
	}

	for q, want := range map[string]int{"sent=1": 2, "state=failed": 1, "state=queued": 0, "channel=web-tr": 3, "q=L-2": 1,
		"page_size=1&page=2": 1, "sort=oldest&page_size=1": 1} {
		res := o.env.Do("GET", "/admin/v1/invites?"+q, nil, o.read)
		expect(t, res, 200, "")
		if n := len(res.JSON["items"].([]any)); n != want {
			t.Errorf("%s: %d items, want %d", q, n, want)
		}
	}
	if res := o.env.Do("GET", "/admin/v1/invites?sort=oldest&page_size=1", nil, o.read); res.JSON["pages"] != float64(3) {
		t.Errorf("pages = %v", res.JSON["pages"])
	}
	for q, code := range map[string]string{"channel=nope": "invalid / channel", "page_size=201": "invalid / page_size",
		"page=0": "invalid / page", "state=lost": "invalid / state", "sort=random": "invalid / sort", "sent=2": "invalid / sent"} {
		expect(t, o.env.Do("GET", "/admin/v1/invites?"+q, nil, o.read), 400, code)
	}
	if n := accessCount(t, o, "invites.listed"); n != 9 {
		t.Fatalf("invites.listed entries = %d, want 9", n)
	}

	// The message log: q also searches the recipient; channel_kind filters the route.
	res = o.env.Do("GET", "/admin/v1/send-logs?q=TWO@mail.example", nil, o.read)
	expect(t, res, 200, "")
	items := res.JSON["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["recipient"] != "two@mail.example" ||
		items[0].(map[string]any)["channel_kind"] != "email" || items[0].(map[string]any)["message_id"] == "" {
		t.Fatalf("send-logs q: %s", res.Body)
	}
	if c := res.JSON["counters"].(map[string]any); c["sent"] != float64(2) || c["failed"] != float64(1) {
		t.Fatalf("send-log counters = %v", c)
	}
	if res := o.env.Do("GET", "/admin/v1/send-logs?channel_kind=webhook", nil, o.read); res.JSON["total"] != float64(0) {
		t.Fatalf("webhook rows: %s", res.Body)
	}
	expect(t, o.env.Do("GET", "/admin/v1/send-logs?channel_kind=sms", nil, o.read), 400, "invalid / channel_kind")
	if n := accessCount(t, o, "send_logs.listed"); n != 2 {
		t.Fatalf("send_logs.listed entries = %d, want 2", n)
	}
}

// TestInviteRetry: failed invitations are queued again with the same token; those
// whose link expired are skipped.
func TestInviteRetry(t *testing.T) {
	o := newOwnerEnv(t)
	smtp := sendtest.StartSMTP(t)
	o.env.App.SetMailer(smtp.Mailer())
	smtp.FailData(550)
	old := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	o.sendOrders(t, old, map[string]string{"X-OLD": "old@mail.example"})
	recent := old.Add(179 * 24 * time.Hour)
	o.sendOrders(t, recent, map[string]string{"X-NEW": "new@mail.example"})
	// X-OLD's link (TR: 180 days after delivery) has expired by now.

	expect(t, o.env.Do("POST", "/admin/v1/invites/retry", map[string]any{}, o.read), 403, "forbidden / scope_missing")
	expect(t, o.env.Do("POST", "/admin/v1/invites/retry", map[string]any{"ids": make([]string, 501)}, o.write), 400, "invalid / ids")
	expect(t, o.env.Do("POST", "/admin/v1/invites/retry", map[string]any{"ids": []string{"x"}}, o.write), 400, "invalid / ids")
	expect(t, o.env.Do("POST", "/admin/v1/invites/retry", map[string]any{"channel": "nope"}, o.write), 400, "invalid / channel")

	list := o.env.Do("GET", "/admin/v1/invites?state=failed", nil, o.read).JSON["items"].([]any)
	var ids []string
	for _, it := range list {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	res := o.env.Do("POST", "/admin/v1/invites/retry", map[string]any{"ids": ids, "channel": "web-tr"}, o.write)
	expect(t, res, 200, "")
	if res.JSON["queued"] != float64(1) || res.JSON["expired"] != float64(1) {
		t.Fatalf("retry = %s", res.Body)
	}
	smtp.FailData(0)
	now := o.env.Clock.T.Add(time.Minute)
	if _, err := o.env.App.Sending.RunInvitations(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	msgs := smtp.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "new@mail.example" {
		t.Fatalf("after retry sent %d e-mails", len(msgs))
	}
	res = o.env.Do("GET", "/admin/v1/invites", nil, o.read)
	states := map[string]string{}
	for _, it := range res.JSON["items"].([]any) {
		m := it.(map[string]any)
		states[m["order_reference"].(string)] = fmt.Sprint(m["state"], "/", m["last_error"])
	}
	if states["X-NEW"] != "sent/" || states["X-OLD"] != "skipped/expired" {
		t.Fatalf("states = %v", states)
	}
	// An empty body retries every failed invitation: none are left.
	res = o.env.Do("POST", "/admin/v1/invites/retry", nil, o.write)
	expect(t, res, 200, "")
	if res.JSON["queued"] != float64(0) || res.JSON["expired"] != float64(0) {
		t.Fatalf("second retry = %s", res.Body)
	}
}

// TestOptOutCheckAndExport: the opt-out lookup echoes addresses as sent; the export
// carries address_hash in csv, xlsx and json.
func TestOptOutCheckAndExport(t *testing.T) {
	o := newOwnerEnv(t)
	for _, a := range []string{"Out@Mail.example", "second@mail.example"} {
		if _, err := o.env.App.Sending.Unsubscribe(context.Background(), core.Console(), o.env.App.Sending.UnsubscribeToken("email", "tr", a)); err != nil {
			t.Fatal(err)
		}
	}
	res := o.env.Do("POST", "/admin/v1/opt-outs/check", map[string]any{"addresses": []string{"OUT@mail.example", "+90 555 111 22 33",
		"0555 111 22 33", "in@mail.example"}}, o.read)
	expect(t, res, 200, "")
	rows := res.JSON["opted_out"].([]any)
	if len(rows) != 1 {
		t.Fatalf("opted_out = %s", res.Body)
	}
	row := rows[0].(map[string]any)
	if row["address"] != "OUT@mail.example" || row["channel_kind"] != "email" || row["reason"] != "unsubscribe_link" || row["created_at"] == nil {
		t.Fatalf("row = %v", row)
	}
	for body, code := range map[string]string{`{}`: "invalid / addresses_required", `{"addresses": []}`: "invalid / addresses_required",
		`{"addresses": "a@b.example"}`: "invalid / addresses", `{"addresses": ["not an address"]}`: "invalid / addresses"} {
		expect(t, o.env.Do("POST", "/admin/v1/opt-outs/check", body, o.read), 400, code)
	}
	expect(t, o.env.Do("POST", "/admin/v1/opt-outs/check", map[string]any{"addresses": make([]string, 1001)}, o.read), 400, "invalid / addresses")
	if n := accessCount(t, o, "opt_out.checked"); n != 1 {
		t.Fatalf("opt_out.checked entries = %d", n)
	}

	hash := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	expect(t, o.env.Do("GET", "/admin/v1/opt-outs/export", nil, o.read), 403, "forbidden / scope_missing")
	expect(t, o.env.Do("GET", "/admin/v1/opt-outs/export?format=pdf", nil, o.export), 400, "invalid / format")

	res = o.env.Do("GET", "/admin/v1/opt-outs/export", nil, o.export)
	expect(t, res, 200, "")
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("csv headers %v", res.Header)
	}
	recs, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil || len(recs) != 3 || strings.Join(recs[0], ",") != "address,address_hash,channel_kind,reason,created_at" ||
		recs[1][0] != "out@mail.example" || recs[1][1] != hash("out@mail.example") {
		t.Fatalf("csv = %q, %v", recs, err)
	}

	res = o.env.Do("GET", "/admin/v1/opt-outs/export?format=json", nil, o.export)
	var list []map[string]any
	if err := json.Unmarshal(res.Body, &list); err != nil || len(list) != 2 || list[1]["address_hash"] != hash("second@mail.example") {
		t.Fatalf("json = %s", res.Body)
	}

	res = o.env.Do("GET", "/admin/v1/opt-outs/export?format=xlsx", nil, o.export)
	expect(t, res, 200, "")
	f, err := excelize.OpenReader(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	xrows, err := f.GetRows(f.GetSheetName(0))
	if err != nil || len(xrows) != 3 || xrows[2][1] != hash("second@mail.example") {
		t.Fatalf("xlsx rows = %v, %v", xrows, err)
	}
	if n := len(activityEntries(t, o.env, "opt_outs.downloaded")); n != 3 {
		t.Fatalf("opt_outs.downloaded entries = %d, want 3", n)
	}
}

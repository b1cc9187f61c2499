package admin_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"reviewd/app/core/access"
	"reviewd/app/core/orders"
	"reviewd/app/outbound"
	"reviewd/app/platform/platformtest"
	"reviewd/app/sendtest"
)

// alertMails lists the recipients of the received e-mails whose subject contains
// part, sorted.
func alertMails(smtp *sendtest.SMTPServer, part string) []string {
	var out []string
	for _, m := range smtp.Messages() {
		if strings.Contains(m.Header.Get("Subject"), part) {
			out = append(out, strings.Join(m.To, ","))
		}
	}
	sort.Strings(out)
	return out
}

// TestMarketplaceAlertMails: with warning_limit 2 the brand administrators (owner
// and manager, not the moderator) get one e-mail when feed reads of a marketplace
// connection have failed twice in a row and none for the third; a successful read
// ends the episode, so the next streak mails again. Held removals mail once per
// episode too. With warning_limit 0 nothing is mailed.
func TestMarketplaceAlertMails(t *testing.T) {
	f := newMarketFx(t)
	smtp := sendtest.StartSMTP(t)
	f.env.App.SetMailer(smtp.Mailer())
	f.env.User(access.NewUser{Username: "mert", Email: "mert@shop.example", Role: "manager", Password: "Copper-Lantern-58"})
	f.env.User(access.NewUser{Username: "ece", Email: "ece@shop.example", Role: "moderator", Password: "Copper-Lantern-58"})
	admins := []string{"ayse@shop.example", "mert@shop.example"}

	var mu sync.Mutex
	failing, rows := true, marketRows("trendyol")
	head := header("trendyol", false)
	srv := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		objs := []map[string]any{}
		for _, r := range rows {
			o := map[string]any{}
			for i, h := range head {
				o[h] = r[i]
			}
			objs = append(objs, o)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"reviews": objs})
	}), "feeds.trendyol.com")
	f.env.App.Marketplace.Outbound = srv.Client
	set := func(fn func()) { mu.Lock(); fn(); mu.Unlock() }
	src := f.source("trendyol", "feed", map[string]any{"feed_url": "https://feeds.trendyol.com/reviews"})
	read := func(body map[string]any, want string) {
		t.Helper()
		expect(t, f.do("POST", "/admin/v1/marketplace/sources/"+src+"/runs", body), 202, "")
		run := f.waitRun(src)
		f.env.App.Marketplace.Wait() // the read's e-mails are sent once it has ended
		if run["state"] != want {
			t.Fatalf("run: want %s, got %v", want, run)
		}
	}
	settings := func(limit int) {
		t.Helper()
		res := f.do("POST", "/admin/v1/settings", map[string]any{"warning_limit": limit})
		expect(t, res, 200, "")
		if res.JSON["warning_limit"] != float64(limit) {
			t.Fatalf("settings: %s", res)
		}
	}
	res := f.do("GET", "/admin/v1/settings", nil)
	if res.JSON["warning_limit"] != float64(3) {
		t.Fatalf("default warning_limit: %s", res)
	}
	expect(t, f.do("POST", "/admin/v1/settings", map[string]any{"warning_limit": -1}), 400, "invalid / warning_limit")
	expect(t, f.do("POST", "/admin/v1/settings", map[string]any{"warning_limit": "2"}), 400, "invalid / warning_limit")
	settings(2)

	read(nil, "failed")
	if got := alertMails(smtp, "failed"); len(got) != 0 {
		t.Fatalf("mailed after one failure: %v", got)
	}
	read(nil, "failed")
	got := alertMails(smtp, "failed 2 times in a row")
	if strings.Join(got, " ") != strings.Join(admins, " ") {
		t.Fatalf("first episode: %v", got)
	}
	for _, m := range smtp.Messages() {
		if !strings.Contains(m.Text, "http_status: 502") || !strings.Contains(m.Text, src) {
			t.Fatalf("alert text: %s", m.Text)
		}
	}
	read(nil, "failed")
	if n := len(smtp.Messages()); n != 2 {
		t.Fatalf("one e-mail per episode: %d e-mails", n)
	}
	// A successful read ends the episode; the next streak mails again.
	set(func() { failing = false })
	read(nil, "succeeded")
	set(func() { failing = true })
	read(nil, "failed")
	read(nil, "failed")
	if got := alertMails(smtp, "failed 2 times in a row"); len(got) != 4 {
		t.Fatalf("second episode: %v", got)
	}

	// Held removals: one e-mail per episode; a failed read in between does not end it.
	set(func() { failing, rows = false, rows[:1] })
	read(nil, "held")
	if got := alertMails(smtp, "removals held back"); strings.Join(got, " ") != strings.Join(admins, " ") {
		t.Fatalf("held: %v", got)
	}
	read(nil, "held")
	set(func() { failing = true })
	read(nil, "failed")
	set(func() { failing = false })
	read(nil, "held")
	if got := alertMails(smtp, "removals held back"); len(got) != 2 {
		t.Fatalf("held twice in one episode: %v", got)
	}
	read(map[string]any{"confirm_removals": true}, "succeeded")
	set(func() { rows = marketRows("trendyol") })
	read(nil, "succeeded")
	set(func() { rows = rows[:1] })
	read(nil, "held")
	if got := alertMails(smtp, "removals held back"); len(got) != 4 {
		t.Fatalf("held in a new episode: %v", got)
	}

	// warning_limit 0 turns both off.
	read(map[string]any{"confirm_removals": true}, "succeeded")
	settings(0)
	before := len(smtp.Messages())
	set(func() { rows = marketRows("trendyol") })
	read(nil, "succeeded")
	set(func() { rows = rows[:1] })
	read(nil, "held")
	set(func() { failing = true })
	for range 3 {
		read(nil, "failed")
	}
	if n := len(smtp.Messages()); n != before {
		t.Fatalf("warning_limit 0 mailed: %v", smtp.Messages()[before:])
	}
}

// TestOrderSourceAlertMails: reads of an order connection that fail in a row as
// often as warning_limit mail the brand administrators once per episode; a read
// that works ends it; warning_limit 0 mails nothing.
func TestOrderSourceAlertMails(t *testing.T) {
	p := newSourcePanel(t)
	smtp := sendtest.StartSMTP(t)
	p.env.App.SetMailer(smtp.Mailer())
	p.env.User(access.NewUser{Username: "ayse", Email: "ayse@shop.example", Role: "owner", Password: "Copper-Lantern-58"})
	p.env.User(access.NewUser{Username: "ece", Email: "ece@shop.example", Role: "viewer", Password: "Copper-Lantern-58"})
	s := platformtest.StartShopify(t)
	p.env.App.SetOutbound(s.Client)
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	res := p.do("POST", "/admin/v1/order-sources", shopifyBody(s, "web-tr"))
	expect(t, res, 201, "")
	id, _ := orders.ParseOrderSourceID(res.JSON["id"].(string))
	// A client that reaches the store at a closed port: every read fails.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	broken, err := outbound.New(outbound.Config{Resolve: []string{platformtest.ShopifyHost + ":443=" + closed}})
	if err != nil {
		t.Fatal(err)
	}
	read := func(fail bool) {
		t.Helper()
		p.env.App.Orders.Outbound = s.Client
		if fail {
			p.env.App.Orders.Outbound = broken
		}
		p.env.Clock.T = p.env.Clock.T.Add(time.Minute)
		out, err := p.env.App.Orders.ReadOrderSource(context.Background(), id, p.env.Clock.T, orders.TriggerSchedule)
		if err != nil || out.Failed != fail {
			t.Fatalf("read (fail %v): %+v %v", fail, out, err)
		}
	}
	expect(t, p.do("POST", "/admin/v1/settings", map[string]any{"warning_limit": 2}), 200, "")
	read(false)
	read(true)
	if n := len(smtp.Messages()); n != 0 {
		t.Fatalf("mailed after one failure")
	}
	read(true)
	got := alertMails(smtp, "failed 2 times in a row")
	if strings.Join(got, " ") != "ayse@shop.example mert@shop.example" {
		t.Fatalf("alert recipients: %v", got)
	}
	if m := smtp.Messages()[0]; !strings.Contains(m.Text, "connection_failed") || !strings.Contains(m.Header.Get("Subject"), "order connection") {
		t.Fatalf("alert: %s / %s", m.Header.Get("Subject"), m.Text)
	}
	read(true)
	read(true)
	if n := len(smtp.Messages()); n != 2 {
		t.Fatalf("one e-mail per episode: %d", n)
	}
	read(false)
	read(true)
	read(true)
	if n := len(smtp.Messages()); n != 4 {
		t.Fatalf("a new episode after a good read: %d", n)
	}
	read(false)
	expect(t, p.do("POST", "/admin/v1/settings", map[string]any{"warning_limit": 0}), 200, "")
	for range 4 {
		read(true)
	}
	if n := len(smtp.Messages()); n != 4 {
		t.Fatalf("warning_limit 0 mailed: %d", n)
	}

	// Removing the connection in an episode ends the episode with it.
	expect(t, p.do("POST", "/admin/v1/settings", map[string]any{"warning_limit": 1}), 200, "")
	read(false)
	read(true)
	episodes := func() (n int) {
		t.Helper()
		if err := p.env.App.DB.Read().QueryRowForTest(context.Background(),
			`SELECT count(*) FROM alert_episodes WHERE subject LIKE 'order_source:%'`, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := episodes(); n != 1 {
		t.Fatalf("episodes of a failing connection: %d", n)
	}
	expect(t, p.do("DELETE", "/admin/v1/order-sources/"+res.JSON["id"].(string), nil), 204, "")
	if n := episodes(); n != 0 {
		t.Fatalf("episodes after the connection was removed: %d", n)
	}
}

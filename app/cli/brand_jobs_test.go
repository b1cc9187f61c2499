package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/platform/platformtest"
	"reviewd/app/sendtest"
)

// TestJobsOfInactiveBrand: while the brand is frozen or closed (set with the
// console command over the same data folder), the invitations job sends no e-mail
// and the order-sources job asks no store platform; both runs are recorded with
// the state. Retention and erasure still run. After reopening, the waiting
// invitation goes out and the connection is read.
func TestJobsOfInactiveBrand(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "channel", "create", "--code", "web-tr", "--market", "TR", "--language", "tr", "--label", "Türkiye",
		"--brand-name", "Acme", "--domain", "shop.example", "--landing-url", "https://shop.example/review")
	var server map[string]any
	mustJSON(t, dir, &server, "key", "create", "--kind", "server", "--channel", "web-tr")
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) { c.DataDir = dir })
	smtp := sendtest.StartSMTP(t)
	env.App.SetMailer(smtp.Mailer())
	shop := platformtest.StartShopify(t)
	env.App.SetOutbound(shop.Client)
	ctx := context.Background()
	now := env.Clock.T // 13:00 in Istanbul: inside the send window

	order := map[string]any{"channel": "web-tr", "external_id": "J-1", "payment_state": "paid",
		"placed_at": now.Add(-7 * 24 * time.Hour).Format(time.RFC3339), "customer_email": "ece@mail.example",
		"items": []any{map[string]any{"line_reference": "1", "variant_key": "KTL-9", "title": "Copper kettle",
			"fulfilment_state": "delivered", "delivered_at": now.Add(-5 * 24 * time.Hour).Format(time.RFC3339)}}}
	apptest.Expect(t, env.Do("POST", "/v1/ingest/orders", order, map[string]string{"Authorization": "Bearer " + server["key"].(string)}), 200, "")
	shop.AddOrders(platformtest.ShopifyOrder(1, now.Add(-48*time.Hour), now.Add(-time.Hour)))
	owner := &core.Actor{Via: core.ViaSession, ID: "1", Name: "owner", Role: "owner", Perms: core.PermsOfRole("owner")}
	raw := map[string]json.RawMessage{}
	for k, v := range map[string]any{"platform": "shopify", "channel": "web-tr", "base_url": platformtest.ShopifyHost,
		"client_id": shop.ClientID, "client_secret": shop.ClientSecret} {
		raw[k], _ = json.Marshal(v)
	}
	if _, err := env.App.Orders.CreateOrderSource(ctx, owner, raw); err != nil {
		t.Fatal(err)
	}

	runner := cli.TestRunner(env.App)
	run := func(job string) string {
		t.Helper()
		r, err := runner.RunNow(ctx, job, now, "console")
		if err != nil || r.Outcome != "ok" {
			t.Fatalf("%s: %+v, %v", job, r, err)
		}
		return r.Detail
	}
	for _, state := range []string{"freeze", "close"} {
		var st map[string]any
		mustJSON(t, dir, &st, "brand", state)
		for _, job := range []string{"invitations", "order-sources", "marketplace"} {
			if d := run(job); d != "brand "+st["state"].(string)+": nothing sent or read" {
				t.Fatalf("%s while %s: %q", job, st["state"], d)
			}
		}
		if n := len(smtp.Messages()); n != 0 {
			t.Fatalf("%s brand sent %d e-mails", st["state"], n)
		}
		if n := len(shop.Requests()); n != 0 {
			t.Fatalf("%s brand read the store platform (%d requests)", st["state"], n)
		}
		if d := run("cleanup"); !strings.Contains(d, "sessions=") {
			t.Fatalf("cleanup while %s: %q", st["state"], d)
		}
		run("erasure")
	}

	mustRun(t, dir, "brand", "reopen")
	if d := run("invitations"); !strings.Contains(d, "sent=1") {
		t.Fatalf("invitations after reopening: %q", d)
	}
	if msgs := smtp.Messages(); len(msgs) != 1 || msgs[0].To[0] != "ece@mail.example" {
		t.Fatalf("after reopening: %+v", msgs)
	}
	if d := run("order-sources"); !strings.Contains(d, "read=1") || len(shop.Requests()) == 0 {
		t.Fatalf("order-sources after reopening: %q", d)
	}
}

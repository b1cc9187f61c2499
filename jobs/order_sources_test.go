package jobs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/platform/platformtest"
	"reviewd/jobs"
)

// TestOrderSourcesJob: the job reads every due connection and leaves paused ones
// alone; run through the runner it is recorded like every job.
func TestOrderSourcesJob(t *testing.T) {
	env := apptest.New(t, nil)
	env.Channel("web-tr", "TR", "tr")
	env.Channel("web-gb", "GB", "en")
	s := platformtest.StartShopify(t)
	env.App.SetOutbound(s.Client)
	now := env.Clock.T
	s.AddOrders(platformtest.ShopifyOrder(1, now.Add(-48*time.Hour), now.Add(-time.Hour)),
		platformtest.ShopifyOrder(2, now.Add(-30*time.Hour), now.Add(-2*time.Hour)))
	owner := &core.Actor{Via: core.ViaSession, ID: "1", Name: "owner", Role: "owner", Perms: core.PermsOfRole("owner")}
	for _, b := range []map[string]any{
		{"platform": "shopify", "channel": "web-tr", "base_url": platformtest.ShopifyHost, "client_id": s.ClientID, "client_secret": s.ClientSecret},
		{"platform": "shopify", "channel": "web-gb", "base_url": platformtest.ShopifyHost, "client_secret": "x", "enabled": false},
	} {
		raw := map[string]json.RawMessage{}
		for k, v := range b {
			raw[k], _ = json.Marshal(v)
		}
		if _, err := env.App.Orders.CreateOrderSource(context.Background(), owner, raw); err != nil {
			t.Fatal(err)
		}
	}
	j := jobs.OrderSources{Orders: env.App.Orders}
	if j.Name() != "order-sources" {
		t.Fatalf("name = %s", j.Name())
	}
	r := jobs.NewRunner(env.App.DB, nil, jobs.Entry{Job: j, Schedule: "@every 1m"})
	run, err := r.RunNow(context.Background(), "order-sources", now, "console")
	if err != nil || run.Outcome != "ok" || run.Detail != "due=1 read=1 failed=0 skipped=0 orders=2" {
		t.Fatalf("run = %+v, %v", run, err)
	}
	if detail, err := j.Run(context.Background(), now.Add(5*time.Minute)); err != nil || detail != "due=0 read=0 failed=0 skipped=0 orders=0" {
		t.Fatalf("second run = %q, %v", detail, err)
	}
}

package core_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
)

// TestWhatsAppInvitationsBench times the invitations job sending 1,000 due WhatsApp
// invitations (one order and phone each) against the fake Graph API over TLS, and
// fails above 10 s. Not run in CI; run it with (two cores: GOMAXPROCS=2 or taskset):
//
//	REVIEWD_BENCH_WHATSAPP=1 GOMAXPROCS=2 go test -count=1 -run TestWhatsAppInvitationsBench -v ./app/core/
func TestWhatsAppInvitationsBench(t *testing.T) {
	if os.Getenv("REVIEWD_BENCH_WHATSAPP") == "" {
		t.Skip("set REVIEWD_BENCH_WHATSAPP=1 to run the WhatsApp sending benchmark")
	}
	const n = 1000
	e := newWAEnv(t)
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	for start := 0; start < n; start += orders.MaxOrdersPerRequest {
		var batch []orders.OrderInput
		for i := start; i < start+orders.MaxOrdersPerRequest; i++ {
			batch = append(batch, orders.OrderInput{Channel: "web-tr", ExternalID: fmt.Sprintf("B-%04d", i), PaymentState: "paid",
				PlacedAt: iso(delivered.Add(-24 * time.Hour)), CustomerPhone: fmt.Sprintf("0532 %07d", 1000000+i),
				Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1", Title: "Blue kettle", FulfilmentState: "delivered",
					DeliveredAt: iso(delivered)}}})
		}
		if _, err := e.env.App.Orders.IngestOrders(e.ctx, core.Console(), orders.OrderRequest{Orders: batch, Batch: true}); err != nil {
			t.Fatal(err)
		}
	}
	due := delivered.Add(48 * hour)
	e.env.Clock.T = due
	start := time.Now()
	run, err := e.env.App.Sending.RunInvitations(e.ctx, due)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if run != (sending.InvitationRun{Created: n, Sent: n}) {
		t.Fatalf("job run = %+v", run)
	}
	if got := len(e.graph.Requests()); got != n {
		t.Fatalf("graph got %d sends", got)
	}
	t.Logf("%d WhatsApp invitations created and sent in %s (%.0f/s)", n, elapsed.Round(time.Millisecond), n/elapsed.Seconds())
	if elapsed > 10*time.Second {
		t.Fatalf("%s: over the 10 s budget", elapsed)
	}
}

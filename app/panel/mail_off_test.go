package panel_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/orders"
	"reviewd/app/mail"
)

// TestMailOffAlert: invitations that wait because e-mail sending is not set up
// (no SMTP host) are named on the overview with what to do, in both languages;
// with nothing waiting, or once a mail server is set, there is no alert.
func TestMailOffAlert(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	b.signIn("olive", "owner-password-1")
	if p := b.do("GET", "/panel/", nil, nil); strings.Contains(p.body, "data-mail-off") {
		t.Fatal("an alert with nothing waiting")
	}
	ctx, a := context.Background(), f.env.App
	srv, _, err := a.Access.LookupKey(ctx, f.env.Key(access.KindServer, "web"))
	if err != nil {
		t.Fatal(err)
	}
	now := f.env.Clock.Now()
	delivered := now.Add(-10 * 24 * time.Hour)
	req := orders.OrderRequest{Channel: "web", Batch: true}
	for i := 0; i < 3; i++ {
		n := strconv.Itoa(3001 + i)
		req.Orders = append(req.Orders, orders.OrderInput{ExternalID: "GB-" + n, PaymentState: core.PaymentPaid,
			PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339), CustomerEmail: "c" + n + "@example.com", Language: "en",
			Items: []orders.LineInput{{LineReference: "1", VariantKey: "SKU-1", CatalogID: "SKU-1", Title: "Travel mug",
				FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}}})
	}
	if _, err := a.Orders.IngestOrders(ctx, access.KeyActor(srv, core.ViaServerKey), req); err != nil {
		t.Fatal(err)
	}
	run, err := a.Sending.RunInvitations(ctx, now)
	if err != nil || run.Deferred != 3 {
		t.Fatalf("invitations run: %+v %v", run, err)
	}
	p := b.do("GET", "/panel/", nil, nil)
	expectPage(t, "alert", p, 200, "3 invitations are waiting because e-mail sending is not set up.")
	expectPage(t, "what to do", p, 200, "smtp.host")
	expectPage(t, "alert in Turkish", b.do("GET", "/panel/", nil, map[string]string{"Accept-Language": "tr"}), 200,
		"E-posta gönderimi kurulmadığı için 3 davet bekliyor.")

	a.SetMailer(mail.New(mail.Config{Host: "127.0.0.1", Port: 1, Security: "none"}))
	if p := b.do("GET", "/panel/", nil, nil); strings.Contains(p.body, "data-mail-off") {
		t.Fatal("the alert stays with a mail server set")
	}
}

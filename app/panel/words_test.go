package panel_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
)

// writeAsCustomer ingests a delivered order with the channel's server key and
// writes its review through the order check, as a customer on the product page
// does; it returns the review's id.
func writeAsCustomer(t *testing.T, f *fixture, order, title, body string) string {
	t.Helper()
	ctx, a := context.Background(), f.env.App
	srv, _, err := a.Access.LookupKey(ctx, f.env.Key(access.KindServer, "web"))
	if err != nil {
		t.Fatal(err)
	}
	site, _, err := a.Access.LookupKey(ctx, f.env.Key(access.KindSite, "web"))
	if err != nil {
		t.Fatal(err)
	}
	delivered := f.env.Clock.Now().Add(-48 * time.Hour)
	email := strings.ToLower(order) + "@example.com"
	if _, err := a.Orders.IngestOrders(ctx, access.KeyActor(srv, core.ViaServerKey), orders.OrderRequest{Channel: "web", Orders: []orders.OrderInput{{
		ExternalID: order, PaymentState: core.PaymentPaid, PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339),
		CustomerEmail: email, Language: "en", Items: []orders.LineInput{{LineReference: "1", VariantKey: "SKU-1", CatalogID: "SKU-1",
			Title: "Travel mug", FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}}}}}); err != nil {
		t.Fatal(err)
	}
	actor := access.KeyActor(site, core.ViaSiteKey)
	el, err := a.Buyer.CheckEligibility(ctx, actor, f.ch, buyer.EligibilityInput{Order: order, Email: email})
	if err != nil {
		t.Fatal(err)
	}
	name := "Ada"
	out, err := a.Reviews.WriteReviews(ctx, actor, f.ch, reviews.WriteInput{Token: el.Token, Language: "en", Reviews: []reviews.ReviewInput{{
		LineReference: "1", Rating: json.RawMessage("4"), Title: title, Body: body, AuthorName: &name, HideName: json.RawMessage("false")}}})
	if err != nil {
		t.Fatal(err)
	}
	return out[0].ID
}

// TestPlainWords: the queue and the review detail say in words what the checks
// found, how the purchase was proven, what happened and who did it (English and
// Turkish), not the stored codes; a review without a title is headed by the start
// of its text, not its id.
func TestPlainWords(t *testing.T) {
	f := newFixture(t)
	body := "Keeps coffee hot for hours, and I found it cheaper at mugdeals.example.com last week, worth a look."
	id := writeAsCustomer(t, f, "GB-1001", "", body)
	b := newBrowser(t, f.env)
	b.signIn("olive", "owner-password-1")
	heading := "Keeps coffee hot for hours, and I found it cheaper at…"
	for _, path := range []string{"/panel/queue?at=" + id, "/panel/reviews/" + id} {
		p := b.do("GET", path, nil, nil)
		expectPage(t, path+" link check", p, 200, "Web address: a web address in the text")
		expectPage(t, path+" nothing found", p, 200, "Personal data: nothing found")
		expectPage(t, path+" heading", p, 200, heading+"</h")
		for _, raw := range []string{"personal_data: passed", "link: flagged", "— url (body)", ">" + id + "</h"} {
			if strings.Contains(p.body, raw) {
				t.Fatalf("%s shows %q:\n%s", path, raw, p.body)
			}
		}
	}
	p := b.do("GET", "/panel/reviews/"+id, nil, nil)
	expectPage(t, "proof", p, 200, "Order number and e-mail checked on the product page")
	expectPage(t, "state", p, 200, ">Waiting for approval</span>")
	expectPage(t, "history", p, 200, "<td>Written</td><td>Waiting for approval</td><td></td><td>the customer</td>")
	tr := b.do("GET", "/panel/reviews/"+id, nil, map[string]string{"Accept-Language": "tr"})
	expectPage(t, "proof in Turkish", tr, 200, "Ürün sayfasında sipariş numarası ve e-posta doğrulandı")
	expectPage(t, "check in Turkish", tr, 200, "Web adresi: bir web adresi metinde")
	expectPage(t, "history in Turkish", tr, 200, "<td>Yazıldı</td><td>Onay bekliyor</td><td></td><td>müşteri</td>")
	if strings.Contains(p.body, ">order_check<") || strings.Contains(p.body, "<td>submitted</td>") {
		t.Fatalf("review page shows codes:\n%s", p.body)
	}
}

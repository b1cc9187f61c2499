package panel_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/app/platform/platformtest"
	"reviewd/store"
)

// TestConnectionsPageRatingFields: a Shopify connection whose app lacks
// write_products reads its orders, a review of its product is published, and the
// connection page says in plain words that the product rating fields are not
// written; the store gets no metafieldsSet call.
func TestConnectionsPageRatingFields(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	shop := platformtest.StartShopify(t)
	f.env.App.Orders.Outbound = shop.Client
	shop.AddOrders(platformtest.ShopifyOrder(1, f.env.Clock.T.Add(-48*time.Hour), f.env.Clock.T.Add(-time.Hour)))
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	posted(t, "create", b.do("POST", "/panel/connections", url.Values{"csrf": {csrf}, "platform": {"shopify"}, "channel": {"web"},
		"base_url": {platformtest.ShopifyHost}, "client_id": {shop.ClientID}, "client_secret": {shop.ClientSecret}}, nil),
		"/panel/connections?notice=connection_created")
	list, err := f.env.App.Orders.ListOrderSources(ctx)
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("connections: %+v %v", list.Items, err)
	}
	read := func() {
		t.Helper()
		out, err := f.env.App.Orders.ReadOrderSource(ctx, mustID(t, list.Items[0].ID), f.env.Clock.T, orders.TriggerManual)
		if err != nil || out.Failed {
			t.Fatalf("read: %+v %v", out, err)
		}
	}
	read()
	err = f.env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		_, err := f.env.App.Reviews.ImportReview(ctx, tx, core.Console(), reviews.ImportedContent{ChannelID: f.ch.ID,
			Market: f.ch.Market, Language: "en", VariantKey: "MUG-RED", GroupKey: "33010001", Rating: 5, Title: "Mug",
			Body: "A sturdy mug.", AuthorName: "Ann", Platform: "marketplace", SourceName: "Market", SourceReviewID: "1"}, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	read()
	expectPage(t, "rating fields note", b.do("GET", "/panel/connections", nil, nil), 200,
		`data-rating-fields="scope_missing">Product rating fields are not written to the store: its app lacks the write_products permission.`)
	if n := len(shop.MetafieldCalls()); n != 0 {
		t.Fatalf("metafieldsSet calls = %d without the permission", n)
	}
}

func mustID(t *testing.T, public string) int64 {
	t.Helper()
	id, ok := orders.ParseOrderSourceID(public)
	if !ok {
		t.Fatalf("connection id %q", public)
	}
	return id
}

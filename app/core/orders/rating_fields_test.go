package orders_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/app/platform/platformtest"
	"reviewd/store"
)

// ratingEnv is a Shopify connection on web-tr whose app may write products, with
// the pauses for the store's cost bucket recorded (and restoring the fake's
// bucket) instead of slept.
type ratingEnv struct {
	*srcEnv
	shop  *platformtest.Shopify
	src   orders.OrderSourceView
	waits []time.Duration
	at    time.Time
	n     int
}

func newRatingEnv(t *testing.T, scopes ...string) *ratingEnv {
	e := &ratingEnv{srcEnv: newSrcEnv(t), at: srcStart}
	e.shop, e.src = e.shopify()
	e.shop.AccessScopes = scopes
	e.c.Wait = func(_ context.Context, d time.Duration) error {
		e.waits = append(e.waits, d)
		e.shop.Restore(d)
		return nil
	}
	return e
}

// products gives the store one order per product id (legacyResourceId).
func (e *ratingEnv) products(ids ...string) {
	for _, id := range ids {
		e.n++
		o := platformtest.ShopifyOrder(e.n, srcStart.Add(-48*time.Hour), srcStart.Add(-time.Hour))
		line := o["lineItems"].(map[string]any)["nodes"].([]any)[0].(map[string]any)
		line["sku"] = "SKU-" + id
		line["product"] = map[string]any{"legacyResourceId": id}
		e.shop.AddOrders(o)
	}
}

// publish publishes a review of the product (group key) in the channel's market
// and returns its id.
func (e *ratingEnv) publish(product string, rating int) int64 {
	e.t.Helper()
	ch, err := e.c.DB.Read().ChannelByCode(e.ctx, "web-tr")
	if err != nil {
		e.t.Fatal(err)
	}
	e.n++
	var id int64
	err = e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		r, err := e.env.App.Reviews.ImportReview(e.ctx, tx, core.Console(), reviews.ImportedContent{ChannelID: ch.ID,
			Market: "TR", Language: "tr", VariantKey: "SKU-" + product, GroupKey: product, Rating: rating,
			Title: "Kupa", Body: "Sağlam ve güzel bir kupa.", AuthorName: "Ayşe", Platform: "marketplace",
			SourceName: "Pazar", SourceReviewID: strconv.Itoa(e.n)}, nil)
		id = r.ID
		return err
	})
	if err != nil {
		e.t.Fatalf("publish %s: %v", product, err)
	}
	return id
}

// withdraw removes a published review.
func (e *ratingEnv) withdraw(id int64) {
	e.t.Helper()
	err := e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		_, err := e.env.App.Reviews.RemoveImportedReview(e.ctx, tx, core.Console(), id, "source_removed", nil)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// read runs the order-sources job one interval later and returns the rating-field
// part of the connection's report (zero when no figure changed).
func (e *ratingEnv) read() orders.RatingFieldsReport {
	e.t.Helper()
	e.at = e.at.Add(15 * time.Minute)
	e.run(e.at)
	v := e.source(e.src.ID)
	if v.LastError != nil {
		e.t.Fatalf("read failed: %s", *v.LastError)
	}
	r := e.report(v)
	if r.RatingFields == nil {
		return orders.RatingFieldsReport{}
	}
	return *r.RatingFields
}

func ratingValue(avg string) string {
	return `{"value":"` + avg + `","scale_min":"1.0","scale_max":"5.0"}`
}

// TestRatingFieldsWrittenOnChange: a published review's product gets both fields;
// an unchanged figure is not written again; a changed one is written once; a
// product the store never sold is left alone.
func TestRatingFieldsWrittenOnChange(t *testing.T) {
	e := newRatingEnv(t, "read_orders", "write_products")
	e.products("33010001")
	e.publish("777", 5) // a product of the channel that did not come from the store
	if r := e.read(); r.Due != 0 || len(e.shop.MetafieldCalls()) != 0 {
		t.Fatalf("before any review of the store's product: %+v, calls %d", r, len(e.shop.MetafieldCalls()))
	}

	e.publish("33010001", 4)
	if r := e.read(); r.Written != 1 || r.Batches != 1 {
		t.Fatalf("after a published review: %+v", r)
	}
	calls := e.shop.MetafieldCalls()
	if len(calls) != 1 {
		t.Fatalf("metafieldsSet calls = %d, want 1", len(calls))
	}
	want := []platformtest.ShopifyMetafield{
		{OwnerID: "gid://shopify/Product/33010001", Namespace: "reviews", Key: "rating", Type: "rating", Value: ratingValue("4.0")},
		{OwnerID: "gid://shopify/Product/33010001", Namespace: "reviews", Key: "rating_count", Type: "number_integer", Value: "1"},
	}
	if fmt.Sprint(calls[0].Variables.Metafields) != fmt.Sprint(want) {
		t.Fatalf("metafields = %+v\nwant %+v", calls[0].Variables.Metafields, want)
	}
	if got := e.shop.Metafield("777", "reviews.rating"); got != "" {
		t.Fatalf("product 777 (not from the store) got %s", got)
	}

	// Unchanged: no call at all.
	if r := e.read(); r.Due != 0 || r.Written != 0 || len(e.shop.MetafieldCalls()) != 1 {
		t.Fatalf("unchanged figures: %+v, calls %d", r, len(e.shop.MetafieldCalls()))
	}

	// A second review changes both figures: written once.
	e.publish("33010001", 5)
	if r := e.read(); r.Written != 1 {
		t.Fatalf("after a change: %+v", r)
	}
	e.read()
	if n := len(e.shop.MetafieldCalls()); n != 2 {
		t.Fatalf("metafieldsSet calls = %d, want 2 (the change written once)", n)
	}
	if got := e.shop.Metafield("33010001", "reviews.rating"); got != ratingValue("4.5") {
		t.Fatalf("reviews.rating = %s", got)
	}
	if got := e.shop.Metafield("33010001", "reviews.rating_count"); got != "2" {
		t.Fatalf("reviews.rating_count = %s", got)
	}
}

func productIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(8000001 + i)
	}
	return ids
}

// TestRatingFieldsBatches: 60 products' 120 fields go out in calls of at most 25
// metafields (12 products each), five calls.
func TestRatingFieldsBatches(t *testing.T) {
	e := newRatingEnv(t, "read_orders", "write_products")
	ids := productIDs(60)
	e.products(ids...)
	e.read()
	for i, id := range ids {
		e.publish(id, 1+i%5)
	}
	r := e.read()
	if r.Due != 60 || r.Written != 60 || r.Batches != 5 || r.State != orders.RatingFieldsOK {
		t.Fatalf("report %+v, want 60 written in 5 calls", r)
	}
	calls := e.shop.MetafieldCalls()
	if len(calls) != 5 {
		t.Fatalf("metafieldsSet calls = %d, want 5", len(calls))
	}
	for i, c := range calls {
		if n := len(c.Variables.Metafields); n > platformtestMax || n != 24 {
			t.Fatalf("call %d carries %d metafields, want 24 (at most 25)", i+1, n)
		}
	}
	for i, id := range ids {
		if got, want := e.shop.Metafield(id, "reviews.rating"), ratingValue(strconv.Itoa(1+i%5)+".0"); got != want {
			t.Fatalf("product %s: reviews.rating = %s, want %s", id, got, want)
		}
	}
}

const platformtestMax = 25

// TestRatingFieldsThrottle: with a small cost bucket reviewd waits as
// throttleStatus says before each call, so the store never refuses one; a call
// answered THROTTLED anyway is sent again after a pause, and written once.
func TestRatingFieldsThrottle(t *testing.T) {
	e := newRatingEnv(t, "read_orders", "write_products")
	e.shop.Maximum, e.shop.Available, e.shop.RestoreRate = 25, 25, 5
	ids := productIDs(60)
	e.products(ids...)
	e.read()
	for _, id := range ids {
		e.publish(id, 4)
	}
	if r := e.read(); r.Written != 60 || r.Batches != 5 {
		t.Fatalf("report %+v", r)
	}
	if e.shop.ThrottledCalls != 0 {
		t.Fatalf("the store answered THROTTLED %d times: reviewd did not wait for its bucket", e.shop.ThrottledCalls)
	}
	// 25 points, 10 a call, 5 restored a second: the third call waits 1 s for
	// the 5 points missing, the later ones 2 s each.
	want := []time.Duration{time.Second, 2 * time.Second, 2 * time.Second}
	if fmt.Sprint(e.waits) != fmt.Sprint(want) {
		t.Fatalf("waits = %v, want %v", e.waits, want)
	}

	// A THROTTLED answer: the next metafieldsSet call (after the orders page and
	// the scope query) is refused once.
	e.waits = nil
	e.shop.Maximum, e.shop.Available, e.shop.RestoreRate = 2000, 2000, 100
	e.shop.Faults[len(e.shop.GraphQLRequests())+3] = platformtest.Fault{Throttle: true}
	e.publish(ids[0], 5)
	if r := e.read(); r.Written != 1 || r.State != orders.RatingFieldsOK {
		t.Fatalf("after a THROTTLED answer: %+v", r)
	}
	calls := e.shop.MetafieldCalls()
	if len(calls) != 7 || len(e.waits) != 1 || e.waits[0] < time.Second {
		t.Fatalf("calls %d (want 5 + throttled + sent again), waits %v", len(calls), e.waits)
	}
	if got := e.shop.Metafield(ids[0], "reviews.rating"); got != ratingValue("4.5") {
		t.Fatalf("reviews.rating = %s", got)
	}
}

// TestRatingFieldsScopeMissing: without write_products nothing is sent and the
// connection's report says so in plain words; the read itself succeeds, and the
// fields are written once the permission is granted.
func TestRatingFieldsScopeMissing(t *testing.T) {
	e := newRatingEnv(t, "read_orders")
	e.products("33010001")
	e.read()
	e.publish("33010001", 4)
	r := e.read()
	if r.State != orders.RatingFieldsScopeMissing || r.Written != 0 || !strings.Contains(r.Note, "write_products") {
		t.Fatalf("report %+v", r)
	}
	if n := len(e.shop.MetafieldCalls()); n != 0 {
		t.Fatalf("metafieldsSet calls = %d without the scope", n)
	}
	e.shop.AccessScopes = []string{"read_orders", "write_products"}
	if r := e.read(); r.Written != 1 || r.State != orders.RatingFieldsOK || r.Note != "" {
		t.Fatalf("after the scope was granted: %+v", r)
	}
	// A removed connection takes what it wrote with it.
	if err := e.c.RemoveOrderSource(e.ctx, panelOwner(), e.src.ID); err != nil {
		t.Fatal(err)
	}
	if n := e.count(`SELECT count(*) FROM rating_fields`); n != 0 {
		t.Fatalf("%d rating_fields rows left after the connection was removed", n)
	}
}

// TestRatingFieldsRemovedWithLastReview: when a product's only published review
// is withdrawn its two fields are deleted from the store once (a rating needs at
// least one review), and written again when a review returns.
func TestRatingFieldsRemovedWithLastReview(t *testing.T) {
	e := newRatingEnv(t, "read_orders", "write_products")
	e.products("33010001")
	id := e.publish("33010001", 3)
	if r := e.read(); r.Written != 1 {
		t.Fatalf("first write: %+v", r)
	}
	e.withdraw(id)
	if r := e.read(); r.Due != 1 || r.Written != 1 || r.Batches != 1 {
		t.Fatalf("after the withdrawal: %+v", r)
	}
	calls := e.shop.MetafieldCalls()
	if len(calls) != 2 || !strings.Contains(calls[1].Query, "metafieldsDelete(") || len(calls[1].Variables.Metafields) != 2 {
		t.Fatalf("calls %+v, want a metafieldsDelete of both fields", calls)
	}
	if v := e.shop.Metafield("33010001", "reviews.rating"); v != "" {
		t.Fatalf("reviews.rating still %s", v)
	}
	if v := e.shop.Metafield("33010001", "reviews.rating_count"); v != "" {
		t.Fatalf("reviews.rating_count still %s", v)
	}
	if r := e.read(); r.Due != 0 || len(e.shop.MetafieldCalls()) != 2 {
		t.Fatalf("deleted fields deleted again: %+v", r)
	}
	e.publish("33010001", 5)
	e.read()
	if v := e.shop.Metafield("33010001", "reviews.rating_count"); v != "1" {
		t.Fatalf("reviews.rating_count = %q after a new review", v)
	}
}

// TestRatingFieldsDeletedProduct: a call the store refuses for one product (its
// userErrors name the element) is sent again without it; the others are written,
// the refused one is counted and tried again at the next read.
func TestRatingFieldsDeletedProduct(t *testing.T) {
	e := newRatingEnv(t, "read_orders", "write_products")
	ids := productIDs(3)
	e.products(ids...)
	e.read()
	for _, id := range ids {
		e.publish(id, 4)
	}
	e.shop.DeletedProducts[ids[1]] = true
	r := e.read()
	if r.Due != 3 || r.Written != 2 || r.Refused != 1 || r.Batches != 2 || r.Note == "" {
		t.Fatalf("report %+v", r)
	}
	if e.shop.Metafield(ids[0], "reviews.rating_count") != "1" || e.shop.Metafield(ids[2], "reviews.rating_count") != "1" {
		t.Fatal("the other products were not written")
	}
	if r := e.read(); r.Due != 1 || r.Refused != 1 {
		t.Fatalf("next read: %+v, want the refused product tried again", r)
	}
}

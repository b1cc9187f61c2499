package admin_test

import (
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/store"
	"reviewd/store/storetest"
)

// xmllint finds the schema validator (Debian's libxml2-utils, installed by
// scripts/test.sh): REVIEWD_XMLLINT, else xmllint on PATH.
func xmllint(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("REVIEWD_XMLLINT"); p != "" {
		return p
	}
	p, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (apt-get install libxml2-utils); the feed is not validated against the XSD")
	}
	return p
}

// validateFeed checks body against Google's Product Review Feed schema 2.4.
func validateFeed(t *testing.T, body []byte) {
	t.Helper()
	lint := xmllint(t)
	f := filepath.Join(t.TempDir(), "feed.xml")
	if err := os.WriteFile(f, body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lint, "--noout", "--nonet", "--schema", "../../testdata/google/product_reviews_2.4.xsd", f).CombinedOutput()
	if err != nil {
		if len(body) > 4000 {
			body = body[:4000]
		}
		t.Fatalf("feed does not validate: %v\n%s\n%s", err, out, body)
	}
}

type feedDoc struct {
	Version   string `xml:"version"`
	Publisher string `xml:"publisher>name"`
	Reviews   []struct {
		ID   string `xml:"review_id"`
		Name struct {
			Anonymous string `xml:"is_anonymous,attr"`
			Value     string `xml:",chardata"`
		} `xml:"reviewer>name"`
		Verified  string `xml:"is_verified_purchase"`
		Incentive string `xml:"is_incentivized_review"`
		Title     string `xml:"title"`
		Content   string `xml:"content"`
		URL       string `xml:"review_url"`
		Overall   string `xml:"ratings>overall"`
		Product   struct {
			GTIN  []string `xml:"product_ids>gtins>gtin"`
			MPN   []string `xml:"product_ids>mpns>mpn"`
			SKU   []string `xml:"product_ids>skus>sku"`
			Brand []string `xml:"product_ids>brands>brand"`
			Name  string   `xml:"product_name"`
			URL   string   `xml:"product_url"`
		} `xml:"products>product"`
		Method      string `xml:"collection_method"`
		Transaction string `xml:"transaction_id"`
	} `xml:"reviews>review"`
}

type feedFx struct {
	t   *testing.T
	env *apptest.Env
	b   *browser
	n   int
}

func newFeedFx(t *testing.T) *feedFx {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.Channel("web-gb", "GB", "en")
	env.User(access.NewUser{Username: "ayse", Email: "ayse@shop.example", Role: "owner", Password: "Copper-Lantern-58"})
	b := newBrowser(t, env)
	expect(t, b.signIn("ayse", "Copper-Lantern-58"), 200, "")
	res := env.Do("POST", "/v1/ingest/products", map[string]any{"products": []map[string]any{
		{"variant_key": "MUG-BLUE", "group_key": "MUG", "name": "Blue mug", "url": "https://shop.example/mug-blue", "gtin": "8690000000011",
			"brand": "Acme", "mpn": "AC-MB"},
		{"variant_key": "LAMP", "name": "Desk lamp & shade", "url": "https://shop.example/lamp", "catalog_id": "C-LAMP"},
		{"variant_key": "NO-URL", "name": "Hidden product"},
	}}, map[string]string{"Authorization": "Bearer " + env.Key("server", "web-tr")})
	expect(t, res, 200, "")
	return &feedFx{t: t, env: env, b: b}
}

// review stores a review directly in channel code.
func (f *feedFx) review(code, state string, mods ...func(*store.Review)) string {
	f.t.Helper()
	ch, err := f.env.App.DB.Read().ChannelByCode(context.Background(), code)
	if err != nil {
		f.t.Fatal(err)
	}
	f.n++
	r := storetest.Review(ch, reviews.NewReviewID(), state, f.env.Clock.T.Add(-time.Duration(f.n)*time.Hour))
	r.VariantKey, r.ProductName, r.Experience, r.Origin = "MUG-BLUE", "Mug", core.ExperienceProduct, core.OriginOwn
	r.Rating, r.Title, r.Body, r.AuthorName, r.VerificationMethod = 5, "Great mug", "Keeps tea hot <really>.", "Ayşe Yılmaz", core.VerifiedByInvite
	for _, m := range mods {
		m(&r)
	}
	return storetest.CreateReview(f.t, f.env.App.DB, r).PublicID
}

func (f *feedFx) do(method, path string, body any) apptest.Response {
	f.t.Helper()
	return f.b.do(method, path, body, method != "GET")
}

// path is the request path of a feed address.
func feedPath(t *testing.T, url string) string {
	t.Helper()
	p, ok := strings.CutPrefix(url, "http://reviewd.test")
	if !ok || !strings.HasPrefix(p, "/admin/v1/shared-review-feeds/rf_") || !strings.HasSuffix(p, ".xml") {
		t.Fatalf("feed url %q", url)
	}
	return p
}

// TestReviewFeed: a feed made in a panel session is served at its secret address
// without a session, valid against Google's schema 2.4, with own published product
// reviews of its scope only (no imported, process, unpublished or foreign-channel
// reviews, none of a product without an address), catalogue identifiers, masked
// names for hide_name, and ETag / Last-Modified answered with 304 until a review
// changes.
func TestReviewFeed(t *testing.T) {
	f := newFeedFx(t)
	_, err := f.env.App.Orders.IngestOrders(context.Background(), core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{
		Channel: "web-tr", ExternalID: "ORD-77", PaymentState: "paid", PlacedAt: "2026-05-20T10:00:00Z", CustomerEmail: "ayse@mail.example",
		Items: []orders.LineInput{{LineReference: "L1", VariantKey: "MUG-BLUE", Title: "Mug", FulfilmentState: "delivered",
			DeliveredAt: "2026-05-22T10:00:00Z"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	order, err := f.env.App.DB.Read().OrderByExternalID(context.Background(), "ORD-77")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := f.env.App.DB.Read().LinesOfOrder(context.Background(), order.ID)
	if err != nil || len(lines) != 1 {
		t.Fatal(lines, err)
	}
	shown := f.review("web-tr", "published", func(r *store.Review) { r.OrderID, r.LineID = order.ID, lines[0].ID })
	hidden := f.review("web-tr", "published", func(r *store.Review) { r.HideName = true })
	anon := f.review("web-tr", "published", func(r *store.Review) {
		r.AuthorName, r.Title, r.VariantKey, r.VerificationMethod, r.Rating = "", "", "LAMP", core.VerifiedByOrderCheck, 3
	})
	f.review("web-tr", "published", func(r *store.Review) {
		r.Origin, r.SourcePlatform, r.VerificationMethod = core.OriginImported, "trendyol", ""
	})
	f.review("web-tr", "published", func(r *store.Review) { r.Experience = core.ExperienceProcess })
	f.review("web-tr", "pending")
	f.review("web-tr", "rejected")
	paid := f.review("web-tr", "published", func(r *store.Review) { r.Incentivized, r.Rating = true, 2 })
	f.review("web-tr", "published", func(r *store.Review) { r.VariantKey = "NO-URL" })
	f.review("web-tr", "published", func(r *store.Review) { r.VariantKey = "NOT-IN-CATALOGUE" })
	gb := f.review("web-gb", "published")

	res := f.do("POST", "/admin/v1/review-feeds", map[string]any{"name": "Google TR", "channel": "web-tr"})
	expect(t, res, 201, "")
	if res.JSON["names"] != "as_shown" || res.JSON["channel"] != "web-tr" || res.JSON["market"] != "" || res.JSON["last_read_at"] != nil {
		t.Fatalf("created: %s", res)
	}
	path := feedPath(t, res.JSON["url"].(string))
	feed := f.env.Do("GET", path, nil, nil)
	if feed.Status != 200 || !strings.HasPrefix(feed.Header.Get("Content-Type"), "application/xml") || feed.Header.Get("ETag") == "" ||
		feed.Header.Get("Last-Modified") == "" {
		t.Fatalf("feed: %d %v", feed.Status, feed.Header)
	}
	validateFeed(t, feed.Body)
	var doc feedDoc
	if err := xml.Unmarshal(feed.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.4" || doc.Publisher != "Acme" || len(doc.Reviews) != 4 {
		t.Fatalf("feed: %s", feed.Body)
	}
	byID := map[string]int{}
	for i, r := range doc.Reviews {
		byID[r.ID] = i
	}
	for _, id := range []string{shown, hidden, anon, paid} {
		if _, ok := byID[id]; !ok {
			t.Fatalf("review %s missing from %s", id, feed.Body)
		}
	}
	if r := doc.Reviews[byID[shown]]; r.Name.Value != "Ayşe Yılmaz" || r.Name.Anonymous != "false" || r.Content != "Keeps tea hot <really>." ||
		r.Title != "Great mug" || r.Overall != "5" || r.Method != "post_fulfillment" || r.URL != "https://shop.example/mug-blue" ||
		strings.Join(r.Product.GTIN, ",") != "8690000000011" || strings.Join(r.Product.MPN, ",") != "AC-MB" ||
		strings.Join(r.Product.Brand, ",") != "Acme" || strings.Join(r.Product.SKU, ",") != "MUG-BLUE" || r.Product.Name != "Blue mug" ||
		len(r.Transaction) != 34 || !strings.HasPrefix(r.Transaction, "t_") || r.Verified != "true" || r.Incentive != "false" {
		t.Fatalf("shown review: %+v", r)
	}
	// Proof of purchase needs a delivered order line; the incentive is the review's
	// own mark, whatever its rating.
	for _, id := range []string{hidden, anon} {
		if r := doc.Reviews[byID[id]]; r.Verified != "false" || r.Incentive != "false" {
			t.Fatalf("review without a delivered line: %+v", r)
		}
	}
	if r := doc.Reviews[byID[paid]]; r.Incentive != "true" || r.Verified != "false" || r.Overall != "2" {
		t.Fatalf("incentivised review: %+v", r)
	}
	if !strings.Contains(string(feed.Body), "</name></reviewer><is_verified_purchase>true</is_verified_purchase><is_incentivized_review>false</is_incentivized_review><review_timestamp>") {
		t.Fatalf("2.4 fields not right after reviewer: %s", feed.Body)
	}
	if strings.Contains(string(feed.Body), "ORD-77") || strings.Contains(string(feed.Body), "mail.example") {
		t.Fatal("the feed carries the order number or an e-mail address")
	}
	if r := doc.Reviews[byID[hidden]]; r.Name.Value != "A*** Y***" || r.Name.Anonymous != "true" {
		t.Fatalf("hidden name: %+v", r.Name)
	}
	if r := doc.Reviews[byID[anon]]; r.Name.Value != "Anonim" || r.Name.Anonymous != "true" || r.Method != "unsolicited" ||
		strings.Join(r.Product.SKU, ",") != "C-LAMP" || r.Product.Name != "Desk lamp & shade" || r.Title != "" {
		t.Fatalf("anonymous review: %+v", r)
	}
	if strings.Contains(string(feed.Body), gb) {
		t.Fatal("a review of another channel is in the channel's feed")
	}

	// Validators: unchanged content answers 304 by ETag and by date.
	tag, mod := feed.Header.Get("ETag"), feed.Header.Get("Last-Modified")
	if res := f.env.Do("GET", path, nil, map[string]string{"If-None-Match": tag}); res.Status != 304 || len(res.Body) != 0 {
		t.Fatalf("If-None-Match: %s", res)
	}
	if res := f.env.Do("GET", path, nil, map[string]string{"If-Modified-Since": mod}); res.Status != 304 {
		t.Fatalf("If-Modified-Since: %s", res)
	}
	// The catalogue read again unchanged (a product feed's schedule, the store's
	// ingest) leaves the feed as it was.
	f.env.Clock.Advance(time.Minute)
	server := f.env.Key("server", "web-tr") // a new key moves the read generation: made before the tag
	tag = f.env.Do("GET", path, nil, nil).Header.Get("ETag")
	products := func(url string) {
		t.Helper()
		expect(t, f.env.Do("POST", "/v1/ingest/products", map[string]any{"products": []map[string]any{
			{"variant_key": "MUG-BLUE", "group_key": "MUG", "name": "Blue mug", "url": url, "gtin": "8690000000011",
				"brand": "Acme", "mpn": "AC-MB"}}}, map[string]string{"Authorization": "Bearer " + server}), 200, "")
	}
	products("https://shop.example/mug-blue")
	if res := f.env.Do("GET", path, nil, map[string]string{"If-None-Match": tag}); res.Status != 304 {
		t.Fatalf("after the same products again: %d %v", res.Status, res.Header)
	}
	// A review leaving the published state changes the feed.
	f.env.Clock.Advance(time.Hour)
	err = f.env.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
		r, err := tx.ReviewByPublicID(context.Background(), hidden)
		if err != nil {
			return err
		}
		return storetest.SetReviewState(context.Background(), tx, r.ID, "hidden")
	})
	if err != nil {
		t.Fatal(err)
	}
	again := f.env.Do("GET", path, nil, map[string]string{"If-None-Match": tag, "If-Modified-Since": mod})
	if again.Status != 200 || again.Header.Get("ETag") == tag || strings.Contains(string(again.Body), hidden) {
		t.Fatalf("after a change: %d %v", again.Status, again.Header)
	}
	// A product address that changes changes the feed.
	products("https://shop.example/mugs/blue")
	moved := f.env.Do("GET", path, nil, map[string]string{"If-None-Match": again.Header.Get("ETag")})
	if moved.Status != 200 || !strings.Contains(string(moved.Body), "https://shop.example/mugs/blue") {
		t.Fatalf("after a product's address changed: %d %v", moved.Status, moved.Header)
	}
	products("https://shop.example/mug-blue")
	validateFeed(t, again.Body)
	if lm, _ := time.Parse(time.RFC1123, again.Header.Get("Last-Modified")); !lm.Equal(f.env.Clock.T.Truncate(time.Second)) {
		t.Fatalf("Last-Modified %s, want %s", again.Header.Get("Last-Modified"), f.env.Clock.T)
	}

	// A masked market feed: every name masked, the market's channels only.
	res = f.do("POST", "/admin/v1/review-feeds", map[string]any{"name": "GB all", "market": "GB", "names": "masked", "publisher_name": "Acme UK"})
	expect(t, res, 201, "")
	gbFeed := f.env.Do("GET", feedPath(t, res.JSON["url"].(string)), nil, nil)
	validateFeed(t, gbFeed.Body)
	doc = feedDoc{}
	_ = xml.Unmarshal(gbFeed.Body, &doc)
	if len(doc.Reviews) != 1 || doc.Reviews[0].ID != gb || doc.Reviews[0].Name.Value != "A*** Y***" || doc.Publisher != "Acme UK" {
		t.Fatalf("GB feed: %s", gbFeed.Body)
	}
	gbID := res.JSON["id"].(string)

	// The list shows both with their addresses and when they were last read.
	list := f.do("GET", "/admin/v1/review-feeds", nil)
	expect(t, list, 200, "")
	its := items(list)
	if len(its) != 2 || its[0]["last_read_at"] == nil || feedPath(t, its[0]["url"].(string)) != path {
		t.Fatalf("list: %s", list)
	}

	// Wrong key, unknown feed, deleted feed: 404 alike.
	wrong := path[:len(path)-len("0.xml")] + map[bool]string{true: "1", false: "0"}[strings.HasSuffix(path, "0.xml")] + ".xml"
	expect(t, f.env.Do("GET", wrong, nil, nil), 404, "not_found / not_found")
	expect(t, f.env.Do("GET", strings.Replace(path, "/"+its[0]["id"].(string)+"/", "/rf_999/", 1), nil, nil), 404, "not_found / not_found")
	expect(t, f.env.Do("GET", "/admin/v1/shared-review-feeds/rf_1/short.xml", nil, nil), 404, "")
	expect(t, f.do("DELETE", "/admin/v1/review-feeds/"+gbID, nil), 204, "")
	expect(t, f.env.Do("GET", feedPath(t, its[1]["url"].(string)), nil, nil), 404, "not_found / not_found")
	expect(t, f.do("DELETE", "/admin/v1/review-feeds/"+gbID, nil), 404, "not_found / not_found")
	created := activityEntries(t, f.env, "review_feed.created")
	if len(created) != 2 {
		t.Fatalf("review_feed.created entries: %d", len(created))
	}
	// The entries record the definition as saved (names defaulted), not the input.
	for _, e := range created {
		if !strings.Contains(e.Detail, `"names":"as_shown"`) && !strings.Contains(e.Detail, `"names":"masked"`) {
			t.Fatalf("review_feed.created detail: %s", e.Detail)
		}
	}
	if n := len(activityEntries(t, f.env, "review_feed.removed")); n != 1 {
		t.Fatalf("review_feed.removed entries: %d", n)
	}
}

// TestReviewFeedDefinitionErrors: the definition's error codes, and the panel-only
// access of the definitions.
func TestReviewFeedDefinitionErrors(t *testing.T) {
	f := newFeedFx(t)
	for _, c := range []struct {
		body map[string]any
		code string
	}{
		// Spec 3's form on the management API (spec 1's field_missing: <field> is
		// for ingest only).
		{map[string]any{"channel": "web-tr"}, "invalid / name_required"},
		{map[string]any{"name": "  "}, "invalid / name_required"},
		{map[string]any{"name": strings.Repeat("n", 101)}, "invalid / name_too_long"},
		{map[string]any{"name": "x", "publisher_name": strings.Repeat("p", 121)}, "invalid / publisher_name_too_long"},
		{map[string]any{"name": "x", "channel": "nope"}, "invalid / channel"},
		{map[string]any{"name": "x", "channel": "web-tr", "market": "GB"}, "invalid / channel_market_mismatch"},
		{map[string]any{"name": "x", "market": "gb"}, "invalid / market"},
		{map[string]any{"name": "x", "names": "hidden"}, "invalid / names"},
		{map[string]any{"name": "x", "names": true}, ""},
	} {
		res := f.do("POST", "/admin/v1/review-feeds", c.body)
		expect(t, res, 400, c.code)
	}
	for i := 0; i < 20; i++ {
		expect(t, f.do("POST", "/admin/v1/review-feeds", map[string]any{"name": "feed"}), 201, "")
	}
	expect(t, f.do("POST", "/admin/v1/review-feeds", map[string]any{"name": "feed"}), 409, "feed_limit / 20")
	write := map[string]string{"Authorization": "Api-Key " + f.env.Key("api", "", "write")}
	read := map[string]string{"Authorization": "Api-Key " + f.env.Key("api", "", "read")}
	expect(t, f.env.Do("GET", "/admin/v1/review-feeds", nil, write), 403, "forbidden / panel_session_required")
	expect(t, f.env.Do("POST", "/admin/v1/review-feeds", map[string]any{"name": "k"}, read), 403, "forbidden / scope_missing")
}

// TestReviewFeedStreamsPages: a feed longer than one page (500 reviews) is written
// page by page, complete and valid, without a Content-Length (streamed).
func TestReviewFeedStreamsPages(t *testing.T) {
	f := newFeedFx(t)
	ch, _ := f.env.App.DB.Read().ChannelByCode(context.Background(), "web-tr")
	err := f.env.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
		for i := 0; i < 1234; i++ {
			r := storetest.Review(ch, reviews.NewReviewID(), "published", f.env.Clock.T.Add(-time.Duration(i)*time.Minute))
			r.VariantKey, r.Experience, r.Origin, r.Rating, r.Body, r.AuthorName = "LAMP", core.ExperienceProduct, core.OriginOwn, 1+i%5, "Fine lamp.", "Ali Veli"
			if i%100 == 0 {
				r.State, r.PublishedAt = "pending", time.Time{}
			}
			if _, err := tx.CreateReview(context.Background(), r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := f.do("POST", "/admin/v1/review-feeds", map[string]any{"name": "All"})
	expect(t, res, 201, "")
	feed := f.env.Do("GET", feedPath(t, res.JSON["url"].(string)), nil, nil)
	if feed.Status != 200 || feed.Header.Get("Content-Length") != "" {
		t.Fatalf("feed: %d %v", feed.Status, feed.Header)
	}
	validateFeed(t, feed.Body)
	if n := strings.Count(string(feed.Body), "<review>"); n != 1234-13 {
		t.Fatalf("reviews in feed: %d", n)
	}
}

package storefront_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/store"
)

// pin pins (or, with off, unpins) a review through the admin API with a key of
// scope moderate.
func (f *fx) pin(id string, off bool) apptest.Response {
	f.T.Helper()
	method := "PUT"
	if off {
		method = "DELETE"
	}
	return f.Do(method, "/admin/v1/reviews/"+id+"/featured", nil, map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "moderate")})
}

// channelRead calls a carousel or store page route from the store page.
func (f *fx) channelRead(path, query string, hdr map[string]string) apptest.Response {
	f.T.Helper()
	h := map[string]string{"Origin": "https://shop.example"}
	for k, v := range hdr {
		h[k] = v
	}
	return f.Do("GET", path+"?key="+url.QueryEscape(f.site)+"&"+query, nil, h)
}

// TestFeaturedPins: a moderator pins up to 3 published reviews of a product; the
// 4th is 409 pin_limit, an unpublished review 409 refused /
// parent_review_not_published, a read-only key 403. A pinned review carries
// featured and its label and comes first in the default sort only (not in other
// sorts or with a filter); the aggregate is unchanged; the pin is in the audit log
// and the review's history; the list's ETag changes (no 304 with the old one).
// Unpublishing drops the pin; unpinning gives back the v1 answer byte for byte.
func TestFeaturedPins(t *testing.T) {
	f := newFx(t)
	rv := f.seed(seedRev{rating: 5, ago: 1 * time.Hour}, seedRev{rating: 4, ago: 2 * time.Hour}, seedRev{rating: 3, ago: 3 * time.Hour},
		seedRev{rating: 2, ago: 4 * time.Hour}, seedRev{rating: 1, ago: 5 * time.Hour, state: "pending"})
	before := f.list("product=SKU-1&lang=en")
	ssrBefore := f.channelRead("/v1/ssr", "product=SKU-1&lang=en", nil)
	if before.Status != 200 || ssrBefore.Status != 200 || bytes.Contains(before.Body, []byte(`"featured`)) {
		t.Fatalf("list before: %s", before)
	}
	agg := string(mustJSON(t, before.JSON["aggregate"]))
	tag := before.Header.Get("ETag")

	if res := f.pin(rv[4], false); res.Status != 409 || res.Code() != "refused / parent_review_not_published" {
		t.Fatalf("pending review: %s", res)
	}
	readOnly := f.Do("PUT", "/admin/v1/reviews/"+rv[3]+"/featured", nil, map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "read")})
	if readOnly.Status != 403 {
		t.Fatalf("read key: %s", readOnly)
	}
	for _, id := range []string{rv[3], rv[2], rv[1]} {
		if res := f.pin(id, false); res.Status != 200 || res.JSON["featured"] != true {
			t.Fatalf("pin %s: %s", id, res)
		}
	}
	if res := f.pin(rv[1], false); res.Status != 200 {
		t.Fatalf("pin again: %s", res)
	}
	if res := f.pin(rv[0], false); res.Status != 409 || res.Code() != "pin_limit / pin_limit" {
		t.Fatalf("4th pin: %s", res)
	}
	if res := f.list("product=SKU-1&lang=en"); res.Status != 200 || res.Header.Get("ETag") == tag {
		t.Fatalf("ETag unchanged after pins: %s", res.Header.Get("ETag"))
	}
	if res := f.Do("GET", "/v1/reviews/list?product=SKU-1&lang=en&key="+url.QueryEscape(f.site), nil,
		map[string]string{"Origin": "https://shop.example", "If-None-Match": tag}); res.Status != 200 {
		t.Fatalf("old ETag still answered %d", res.Status)
	}
	l := f.mustList("product=SKU-1&lang=en")
	wantIDs(t, ids(l), rv[1], rv[2], rv[3], rv[0])
	if got := string(mustJSON(t, l["aggregate"])); got != agg {
		t.Fatalf("aggregate changed: %s, was %s", got, agg)
	}
	rows := l["reviews"].([]any)
	for i, r := range rows {
		r := obj(r)
		want := i < 3
		if (r["featured"] == true) != want || (r["featured_label"] == "Selected by the brand") != want {
			t.Fatalf("row %d: featured %v %v", i, r["featured"], r["featured_label"])
		}
		if !want {
			if _, ok := r["featured"]; ok {
				t.Fatalf("featured:false sent: %v", r)
			}
		}
	}
	// Paging keeps the order: page 2 of size 2.
	wantIDs(t, ids(f.mustList("product=SKU-1&lang=en&page_size=2&page=2")), rv[3], rv[0])
	// Other sorts and filters keep their order.
	de := f.channel("de", "DE", "en")
	dv := f.seed(seedRev{market: "DE", rating: 5, ago: time.Hour}, seedRev{market: "DE", rating: 1, ago: 2 * time.Hour},
		seedRev{market: "DE", rating: 3, ago: 3 * time.Hour})
	if res := f.pin(dv[1], false); res.Status != 200 {
		t.Fatal(res)
	}
	wantIDs(t, ids(f.listWith(de, "product=SKU-1")), dv[1], dv[0], dv[2])
	wantIDs(t, ids(f.listWith(de, "product=SKU-1&sort=oldest")), dv[2], dv[1], dv[0])
	wantIDs(t, ids(f.listWith(de, "product=SKU-1&sort=rating_high")), dv[0], dv[2], dv[1])
	wantIDs(t, ids(f.mustList("product=SKU-1&lang=en&verified=1")), rv[0], rv[1], rv[2], rv[3])
	// Turkish label; SSR shows it.
	if r := obj(f.mustList("product=SKU-1")["reviews"].([]any)[0]); r["featured_label"] != "Markanın seçtiği" {
		t.Fatalf("tr label %v", r["featured_label"])
	}
	ssr := f.channelRead("/v1/ssr", "product=SKU-1&lang=en", nil)
	if h, _ := ssr.JSON["html"].(string); strings.Count(h, `data-review-featured>Selected by the brand</p>`) != 3 {
		t.Fatalf("ssr labels: %s", h)
	}
	// Audit log and history.
	audit := f.Do("GET", "/admin/v1/audit-log?action=review.featured", nil, map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "export")})
	if audit.Status != 200 || num(audit.JSON["total"]) != 4 {
		t.Fatalf("audit: %s", audit)
	}
	detail := f.Do("GET", "/admin/v1/reviews/"+rv[1], nil, map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "read")})
	if detail.JSON["featured"] != true || !strings.Contains(string(detail.Body), `"event":"featured"`) {
		t.Fatalf("detail: %s", detail)
	}
	// Unpublishing drops the pin: a new pin fits again.
	f.moderate(rv[1], "hidden")
	if n, _ := f.App.DB.Read().PinCount(ctx, store.ScopeVariant, "SKU-1", "TR"); n != 2 {
		t.Fatalf("pins after hiding: %d", n)
	}
	f.moderate(rv[1], "published")
	if r := obj(f.mustList("product=SKU-1&lang=en")["reviews"].([]any)[0]); r["id"] != rv[2] {
		t.Fatalf("first after hiding the pinned one: %v", r["id"])
	}
	// Unpinning everything gives the v1 answer back, byte for byte.
	for _, id := range []string{rv[2], rv[3]} {
		if res := f.pin(id, true); res.Status != 204 {
			t.Fatalf("unpin: %s", res)
		}
	}
	if res := f.pin(rv[2], true); res.Status != 404 {
		t.Fatalf("unpin twice: %s", res)
	}
	after := f.list("product=SKU-1&lang=en")
	if !bytes.Equal(after.Body, before.Body) {
		t.Fatalf("list differs without pins:\n%s\n%s", before.Body, after.Body)
	}
	ssrAfter := f.channelRead("/v1/ssr", "product=SKU-1&lang=en", nil)
	if !bytes.Equal(ssrAfter.Body, ssrBefore.Body) {
		t.Fatal("SSR differs without pins")
	}
}

// TestFeaturedGroupLimit: the limit holds in the group list too (3 pins across
// the group's variants), and pins of one market do not count in another.
func TestFeaturedGroupLimit(t *testing.T) {
	f := newFx(t)
	f.channel("de", "DE", "en")
	rv := f.seed(seedRev{variant: "A", group: "G", ago: time.Hour}, seedRev{variant: "B", group: "G", ago: 2 * time.Hour},
		seedRev{variant: "C", group: "G", ago: 3 * time.Hour}, seedRev{variant: "D", group: "G"}, seedRev{variant: "A", group: "G", market: "DE"})
	for _, id := range []string{rv[0], rv[1], rv[2], rv[4]} {
		if res := f.pin(id, false); res.Status != 200 {
			t.Fatalf("pin: %s", res)
		}
	}
	if res := f.pin(rv[3], false); res.Code() != "pin_limit / pin_limit" {
		t.Fatalf("4th in group: %s", res)
	}
	wantIDs(t, ids(f.mustList("product=G&scope=group"))[:3], rv[0], rv[1], rv[2])
}

// TestAllReviews: the store page lists the channel's published reviews across
// products newest first (not another market's, not unpublished ones), with the
// product's catalogue name and address; rating, verified and media filters;
// paging; featured flags; no structured data; ETag and 304; a new review changes
// it at once. SSR gives the page's HTML with its controls.
func TestAllReviews(t *testing.T) {
	f := newFx(t)
	f.channel("de", "DE", "en")
	rv := f.seed(seedRev{variant: "MUG", rating: 5, title: "Lovely", ago: time.Hour},
		seedRev{variant: "CUP", rating: 3, body: "Fine cup", ago: 2 * time.Hour, noProof: true},
		seedRev{variant: "MUG", rating: 5, ago: 3 * time.Hour},
		seedRev{variant: "PLATE", rating: 1, ago: 4 * time.Hour},
		seedRev{variant: "MUG", rating: 4, ago: 5 * time.Hour, state: "pending"},
		seedRev{variant: "MUG", rating: 4, ago: 30 * time.Minute, market: "DE"})
	f.addMedia(rv[2], store.MediaReady)
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		return tx.UpsertProduct(ctx, store.Product{VariantKey: "MUG", Name: "Blue mug", URL: "https://shop.example/mug", Source: "ingest"})
	})
	if err != nil {
		t.Fatal(err)
	}
	res := f.channelRead("/v1/reviews/all", "lang=en", nil)
	if res.Status != 200 || res.Header.Get("Cache-Control") != "private, max-age=30" || res.Header.Get("ETag") == "" {
		t.Fatalf("all: %s %v", res, res.Header)
	}
	wantIDs(t, ids(res.JSON), rv[0], rv[1], rv[2], rv[3])
	if num(res.JSON["total"]) != 4 || num(res.JSON["pages"]) != 1 {
		t.Fatalf("total %v", res.JSON["total"])
	}
	p := obj(obj(res.JSON["reviews"].([]any)[0])["product"])
	if p["key"] != "MUG" || p["name"] != "Blue mug" || p["url"] != "https://shop.example/mug" {
		t.Fatalf("product %v", p)
	}
	if p := obj(obj(res.JSON["reviews"].([]any)[1])["product"]); p["name"] != "Product CUP" || p["url"] != "" {
		t.Fatalf("product without catalogue %v", p)
	}
	if bytes.Contains(res.Body, []byte("ld+json")) || bytes.Contains(res.Body, []byte("AggregateRating")) || bytes.Contains(res.Body, []byte(`"featured"`)) {
		t.Fatalf("structured data or featured in %s", res.Body)
	}
	wantIDs(t, ids(f.channelRead("/v1/reviews/all", "rating=5", nil).JSON), rv[0], rv[2])
	wantIDs(t, ids(f.channelRead("/v1/reviews/all", "verified=1", nil).JSON), rv[0], rv[2], rv[3])
	wantIDs(t, ids(f.channelRead("/v1/reviews/all", "media=1", nil).JSON), rv[2])
	pg := f.channelRead("/v1/reviews/all", "page_size=3&page=2", nil)
	wantIDs(t, ids(pg.JSON), rv[3])
	if num(pg.JSON["pages"]) != 2 || num(pg.JSON["page"]) != 2 {
		t.Fatalf("paging %s", pg)
	}
	if r := f.channelRead("/v1/reviews/all", "rating=6", nil); r.Code() != "invalid / rating" {
		t.Fatalf("rating 6: %s", r)
	}
	// ETag: unchanged answer 304; a pin and a new review change it.
	tag := res.Header.Get("ETag")
	if r := f.channelRead("/v1/reviews/all", "lang=en", map[string]string{"If-None-Match": tag}); r.Status != 304 {
		t.Fatalf("304: %d", r.Status)
	}
	if r := f.pin(rv[3], false); r.Status != 200 {
		t.Fatal(r)
	}
	r := f.channelRead("/v1/reviews/all", "lang=en", map[string]string{"If-None-Match": tag})
	if r.Status != 200 || obj(r.JSON["reviews"].([]any)[3])["featured"] != true {
		t.Fatalf("after a pin: %s", r)
	}
	tag = r.Header.Get("ETag")
	f.seed(seedRev{variant: "BOWL", ago: time.Minute})
	if r := f.channelRead("/v1/reviews/all", "lang=en", map[string]string{"If-None-Match": tag}); r.Status != 200 || num(r.JSON["total"]) != 5 {
		t.Fatalf("after a new review: %s", r)
	}
	// SSR: the page with its filters and pager, themed; no structured data.
	ssr := f.channelRead("/v1/ssr/all", "lang=en&theme=night&page_size=2&rating=5", nil)
	h, _ := ssr.JSON["html"].(string)
	if ssr.Status != 200 || ssr.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Fatalf("ssr all: %s", ssr)
	}
	for _, want := range []string{`class="rvw rvw-all rvw-theme-night"`, `data-review-rating="5"`, `<option value="5" selected>5 stars</option>`,
		`data-review-all-filter="verified" aria-pressed="false"`, `<a href="https://shop.example/mug">Blue mug</a>`, `Customer reviews`} {
		if !strings.Contains(h, want) {
			t.Errorf("ssr lacks %s:\n%s", want, h)
		}
	}
	if strings.Contains(h, "ld+json") {
		t.Fatal("structured data in the store page")
	}
	if r := f.channelRead("/v1/ssr/all", "theme=pink", nil); r.Code() != "invalid / theme" {
		t.Fatalf("theme: %s", r)
	}
	// A product address template fills the products the catalogue has no address of.
	tpl := f.channelRead("/v1/reviews/all", "product_url="+url.QueryEscape("/shop/{group}?ref=reviews"), nil)
	for _, r := range tpl.JSON["reviews"].([]any) {
		p := obj(obj(r)["product"])
		want := "/shop/" + p["key"].(string) + "?ref=reviews"
		if p["key"] == "MUG" {
			want = "https://shop.example/mug"
		}
		if p["url"] != want {
			t.Fatalf("product url %v, want %s", p, want)
		}
	}
	for _, bad := range []string{"javascript:{product}", "//evil.example/{product}", "/shop/nothing", "/x/{product}\"<"} {
		if r := f.channelRead("/v1/ssr/carousel", "product_url="+url.QueryEscape(bad), nil); r.Code() != "invalid / product_url" {
			t.Fatalf("product_url %q: %s", bad, r)
		}
	}
	srv := f.Do("GET", "/v1/reviews/all?channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if srv.Status != 200 || num(srv.JSON["total"]) != 5 {
		t.Fatalf("server key: %s", srv)
	}
	if r := f.Do("GET", "/v1/reviews/all?key="+f.site, nil, map[string]string{"Origin": "https://evil.example"}); r.Status != 403 {
		t.Fatalf("foreign origin: %s", r)
	}
}

// TestCarousel: without pins the carousel shows recent published 4 and 5 star
// reviews with text (source recent); once reviews are pinned it shows those,
// newest first (source featured), at once (the pin invalidates the remembered
// answer). SSR has labelled step buttons and a focusable track; no structured data.
func TestCarousel(t *testing.T) {
	f := newFx(t)
	rv := f.seed(seedRev{variant: "MUG", rating: 5, title: "Great", ago: time.Hour},
		seedRev{variant: "CUP", rating: 4, body: "Good cup", ago: 2 * time.Hour},
		seedRev{variant: "CUP", rating: 5, ago: 3 * time.Hour},
		seedRev{variant: "PLATE", rating: 3, body: "Meh", ago: 4 * time.Hour},
		seedRev{variant: "PLATE", rating: 5, body: "Waiting", ago: 5 * time.Hour, state: "pending"})
	res := f.channelRead("/v1/reviews/carousel", "lang=en", nil)
	if res.Status != 200 || res.JSON["source"] != "recent" || res.Header.Get("ETag") == "" {
		t.Fatalf("carousel: %s", res)
	}
	wantIDs(t, ids(res.JSON), rv[0], rv[1])
	tag := res.Header.Get("ETag")
	if r := f.channelRead("/v1/reviews/carousel", "lang=en", map[string]string{"If-None-Match": tag}); r.Status != 304 {
		t.Fatalf("304: %d", r.Status)
	}
	for _, id := range []string{rv[3], rv[2]} {
		if r := f.pin(id, false); r.Status != 200 {
			t.Fatal(r)
		}
	}
	res = f.channelRead("/v1/reviews/carousel", "lang=en", map[string]string{"If-None-Match": tag})
	if res.Status != 200 || res.JSON["source"] != "featured" {
		t.Fatalf("after pins: %s", res)
	}
	wantIDs(t, ids(res.JSON), rv[2], rv[3])
	ssr := f.channelRead("/v1/ssr/carousel", "lang=tr&theme=soft", nil)
	h, _ := ssr.JSON["html"].(string)
	for _, want := range []string{`class="rvw rvw-carousel rvw-theme-soft"`, `data-review-carousel-step="-1" aria-label="Önceki yorumlar"`,
		`data-review-carousel-step="1" aria-label="Sonraki yorumlar"`, `role="region" tabindex="0"`, `data-review-featured>Markanın seçtiği</p>`} {
		if !strings.Contains(h, want) {
			t.Errorf("ssr lacks %s:\n%s", want, h)
		}
	}
	if strings.Contains(string(ssr.Body), "ld+json") || strings.Contains(string(ssr.Body), "aggregateRating") {
		t.Fatal("structured data in the carousel")
	}
}

// mustJSON encodes v (to compare parts of answers).
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChannelAnswersWithCDN: with a CDN configured, the carousel and store page
// answers carry the channel's tags but no s-maxage (CDN purges name products; these
// answers change with any product of the channel).
func TestChannelAnswersWithCDN(t *testing.T) {
	f := newCDNFx(t)
	f.seed(seedRev{title: "Nice"})
	for path, want := range map[string]string{"/v1/reviews/all": "private, max-age=30", "/v1/ssr/carousel": "public, max-age=60",
		"/v1/reviews/carousel": "private, max-age=30", "/v1/ssr/all": "public, max-age=60"} {
		res := f.channelRead(path, "", nil)
		if res.Status != 200 || res.Header.Get("Cache-Control") != want || !strings.Contains(res.Header.Get("Cache-Tag"), "reviewd-c-web") {
			t.Fatalf("%s: %d %v", path, res.Status, res.Header)
		}
	}
}

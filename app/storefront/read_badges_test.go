package storefront_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/core"
)

// badges calls GET /v1/reviews/badges (or, with path, another badge route) from the
// store page with the site key.
func (f *fx) badges(path, query string, hdr map[string]string) apptest.Response {
	f.T.Helper()
	h := map[string]string{"Origin": "https://shop.example"}
	for k, v := range hdr {
		h[k] = v
	}
	return f.Do("GET", path+"?key="+url.QueryEscape(f.site)+"&"+query, nil, h)
}

// TestBadgesEqualListAggregate: each badge carries the count, average and filled
// stars of its product's list aggregate (imported reviews counted, other markets
// not), in the order asked, duplicates once; a product without reviews (unknown
// or all unpublished) has count 0 and no label; the label is plural-aware.
func TestBadgesEqualListAggregate(t *testing.T) {
	f := newFx(t)
	f.channel("de", "DE", "en")
	f.seed(seedRev{rating: 5}, seedRev{rating: 4}, seedRev{rating: 4, imported: true},
		seedRev{variant: "SKU-2", rating: 3},
		seedRev{variant: "SKU-3", rating: 1, state: "pending"},
		seedRev{variant: "SKU-2", market: "DE", rating: 1})
	res := f.badges("/v1/reviews/badges", "products=SKU-2,SKU-1,NOPE,SKU-3,SKU-1&lang=en", nil)
	if res.Status != 200 {
		t.Fatalf("badges: %s", res)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "private, max-age=30" {
		t.Fatalf("Cache-Control %q", cc)
	}
	bs := res.JSON["badges"].([]any)
	var order []string
	for _, b := range bs {
		order = append(order, obj(b)["product"].(string))
	}
	if strings.Join(order, ",") != "SKU-2,SKU-1,NOPE,SKU-3" {
		t.Fatalf("order %v", order)
	}
	for _, b := range bs {
		b := obj(b)
		p := b["product"].(string)
		agg := obj(f.mustList("product=" + p)["aggregate"])
		for _, k := range []string{"count", "average", "stars_filled"} {
			if b[k] != agg[k] {
				t.Errorf("%s %s: badge %v, list %v", p, k, b[k], agg[k])
			}
		}
	}
	if b := obj(bs[1]); num(b["count"]) != 3 || b["average"] != 4.3 || b["label"] != "4.3 out of 5 stars, 3 reviews" {
		t.Fatalf("SKU-1 badge %v", b)
	}
	if b := obj(bs[0]); num(b["count"]) != 1 || b["label"] != "3.0 out of 5 stars, 1 review" {
		t.Fatalf("SKU-2 badge (TR only, singular) %v", b)
	}
	for _, i := range []int{2, 3} {
		if b := obj(bs[i]); num(b["count"]) != 0 || b["average"] != 0.0 || b["label"] != "" {
			t.Fatalf("badge without reviews %v", b)
		}
	}
	// A few hundred bytes per product at most.
	if per := len(res.Body) / len(bs); per > 300 {
		t.Fatalf("%d bytes per product", per)
	}
	// Turkish.
	tr := f.badges("/v1/reviews/badges", "products=SKU-1", nil)
	if b := obj(tr.JSON["badges"].([]any)[0]); b["label"] != "5 üzerinden 4,3 yıldız, 3 değerlendirme" {
		t.Fatalf("tr label %v", b["label"])
	}
}

// TestBadgesErrors: 51 products are refused with invalid / products_too_long: 50
// (50 are answered), no product, a code over 128 characters, a wrong scope; the
// access of the list (site key from a verified domain, server key and channel).
func TestBadgesErrors(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{})
	list := func(n int) string {
		var ps []string
		for i := 0; i < n; i++ {
			ps = append(ps, fmt.Sprintf("P-%d", i))
		}
		return strings.Join(ps, ",")
	}
	for _, c := range []struct{ query, want string }{
		{"products=" + list(51), "invalid / products_too_long: 50"},
		{"", "invalid / products_required"},
		{"products=,,", "invalid / products_required"},
		{"products=" + strings.Repeat("p", 129), "invalid / product_too_long"},
		{"products=SKU-1&scope=sku", "invalid / scope"},
		{"products=SKU-1&lang=%00", "invalid / invalid"},
	} {
		for _, path := range []string{"/v1/reviews/badges", "/v1/ssr/badges"} {
			if res := f.badges(path, c.query, nil); res.Status != 400 || res.Code() != c.want {
				t.Errorf("%s %s: %d %s, want 400 %s", path, c.query, res.Status, res.Body, c.want)
			}
		}
	}
	if res := f.badges("/v1/reviews/badges", "products="+list(50)+",P-0", nil); res.Status != 200 || len(res.JSON["badges"].([]any)) != 50 {
		t.Fatalf("50 products: %s", res)
	}
	wantCode(t, f.Do("GET", "/v1/reviews/badges?products=SKU-1&key="+f.site, nil, map[string]string{"Origin": "https://evil.example"}),
		403, "refused / origin_unverified: evil.example")
	wantCode(t, f.Do("GET", "/v1/reviews/badges?products=SKU-1", nil, map[string]string{"Origin": "https://shop.example"}),
		403, "refused / unknown_site_key")
	res := f.Do("GET", "/v1/reviews/badges?products=SKU-1&channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if res.Status != 200 || num(obj(res.JSON["badges"].([]any)[0])["count"]) != 1 {
		t.Fatalf("server key: %s", res)
	}
}

// TestBadgesETag: an unchanged answer is 304 with its ETag; a review published on
// one of the products changes the ETag and the figures; a change to a product not
// asked for does not.
func TestBadgesETag(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{rating: 5})
	q := "products=SKU-1,SKU-2"
	first := f.badges("/v1/reviews/badges", q, nil)
	tag := first.Header.Get("ETag")
	if first.Status != 200 || tag == "" {
		t.Fatalf("badges: %s", first)
	}
	again := f.badges("/v1/reviews/badges", q, map[string]string{"If-None-Match": tag})
	if again.Status != 304 || len(again.Body) != 0 || again.Header.Get("ETag") != tag {
		t.Fatalf("If-None-Match: %d %s", again.Status, again.Body)
	}
	f.seed(seedRev{variant: "SKU-9", rating: 1})
	if res := f.badges("/v1/reviews/badges", q, map[string]string{"If-None-Match": tag}); res.Status != 304 {
		t.Fatalf("after a change elsewhere: %d", res.Status)
	}
	f.seed(seedRev{variant: "SKU-2", rating: 2})
	res := f.badges("/v1/reviews/badges", q, map[string]string{"If-None-Match": tag})
	if res.Status != 200 || res.Header.Get("ETag") == tag || num(obj(res.JSON["badges"].([]any)[1])["count"]) != 1 {
		t.Fatalf("after a review of SKU-2: %s", res)
	}
}

// TestSSRBadges: GET /v1/ssr/badges gives each badge's HTML in the theme asked (the
// stars with their spoken label, the number and count), nothing visible for a
// product without reviews, no structured data; Cache-Control as GET /v1/ssr.
func TestSSRBadges(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{rating: 5}, seedRev{rating: 4})
	res := f.badges("/v1/ssr/badges", "products=SKU-1,NOPE&theme=night&lang=en", nil)
	if res.Status != 200 || res.Header.Get("Cache-Control") != "public, max-age=60" || res.Header.Get("ETag") == "" {
		t.Fatalf("ssr badges: %s %v", res, res.Header)
	}
	bs := res.JSON["badges"].([]any)
	h := obj(bs[0])["html"].(string)
	for _, want := range []string{`class="rvw rvw-rating rvw-theme-night"`, `data-review-badge="stars"`, `data-review-product="SKU-1"`,
		`data-stars="4.5"`, `aria-label="4.5 out of 5 stars, 2 reviews"`, `4.5 (2)`} {
		if !strings.Contains(h, want) {
			t.Errorf("html lacks %s: %s", want, h)
		}
	}
	if h := obj(bs[1])["html"].(string); strings.Contains(h, "rvw-stars") {
		t.Fatalf("no-review badge draws stars: %s", h)
	}
	if strings.Contains(string(res.Body), "ld+json") || strings.Contains(string(res.Body), "AggregateRating") {
		t.Fatal("structured data in badges")
	}
	if res := f.badges("/v1/ssr/badges", "products=SKU-1&theme=pink", nil); res.Code() != "invalid / theme" {
		t.Fatalf("theme: %s", res)
	}
	srv := f.Do("GET", "/v1/ssr/badges?products=SKU-1&channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if srv.Status != 200 || srv.Header.Get("Cache-Control") != "private, max-age=60" {
		t.Fatalf("server key: %s", srv)
	}
}

// TestBadgesRemembered: the same badge request answered again from memory gives the
// same answer, follows a new review at once, and a revoked key is refused at its
// very next request.
func TestBadgesRemembered(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{rating: 5})
	q := "products=SKU-1,SKU-2"
	first := f.badges("/v1/reviews/badges", q, nil)
	again := f.badges("/v1/reviews/badges", q, nil)
	if again.Status != 200 || string(again.Body) != string(first.Body) || again.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Fatalf("again: %s", again)
	}
	if res := f.badges("/v1/reviews/badges", q, map[string]string{"If-None-Match": first.Header.Get("ETag")}); res.Status != 304 {
		t.Fatalf("held: %s", res)
	}
	f.seed(seedRev{rating: 1})
	if res := f.badges("/v1/reviews/badges", q, nil); num(obj(res.JSON["badges"].([]any)[0])["count"]) != 2 {
		t.Fatalf("after a review: %s", res)
	}
	keys, err := f.App.DB.Read().ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := f.App.Access.RevokeKey(ctx, core.Console(), k.PublicID); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, f.badges("/v1/reviews/badges", q, nil), 403, "refused / revoked_site_key")
}

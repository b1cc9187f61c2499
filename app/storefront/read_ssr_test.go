package storefront_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/store"
)

// ssr calls GET /v1/ssr with the server key (channel web) and extra headers.
func (f *fx) ssr(query string, hdr map[string]string) apptest.Response {
	f.T.Helper()
	h := map[string]string{"Authorization": "Bearer " + f.server}
	for k, v := range hdr {
		h[k] = v
	}
	return f.Do("GET", "/v1/ssr?channel=web&"+query, nil, h)
}

func (f *fx) mustSSR(query string) apptest.Response {
	f.T.Helper()
	res := f.ssr(query, nil)
	if res.Status != 200 {
		f.T.Fatalf("ssr %s: %d %s", query, res.Status, res.Body)
	}
	return res
}

// TestSSR: ready HTML (escaped, both layouts, eight themes, the page component
// attributes), a state equal to the list answer, ETag and 304, Cache-Control by
// caller.
func TestSSR(t *testing.T) {
	f := newFx(t)
	r := f.seed(
		seedRev{title: `<script>alert("x")</script> & co`, body: "İlk paragraf.\n\nİkinci <b>paragraf</b>.", author: "Ayşe Yılmaz",
			hide: true, ago: time.Hour},
		seedRev{rating: 3, process: true, ago: 2 * time.Hour},
		seedRev{rating: 4, imported: true, source: "Trendyol", ago: 3 * time.Hour},
	)
	f.addMedia(r[0], store.MediaReady)
	res := f.mustSSR("product=SKU-1&name=Red+mug")
	if cc := res.Header.Get("Cache-Control"); cc != "private, max-age=60" {
		t.Fatalf("Cache-Control %q", cc)
	}
	etag := res.Header.Get("ETag")
	if !regexp.MustCompile(`^"[0-9a-f]{32}"$`).MatchString(etag) {
		t.Fatalf("ETag %q", etag)
	}
	html, _ := res.JSON["html"].(string)
	for _, want := range []string{`data-review-version="3"`, `data-review-product="SKU-1"`, `data-review-scope="variant"`,
		`class="rvw rvw--cards rvw-theme-warm"`, `data-review-id="` + r[0] + `"`, `data-review-id="` + r[1] + `"`,
		`data-review-id="` + r[2] + `"`, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; co`,
		`<p>İlk paragraf.</p>`, `<p>İkinci &lt;b&gt;paragraf&lt;/b&gt;.</p>`, `A*** Y***`, `Doğrulanmış alıcı`,
		`data-review-experience="process"`, `Trendyol sitesinden aktarıldı`, `<span class="rvw-average">4,0</span>`,
		`data-stars="4"`, `aria-label="5 üzerinden 4,0 yıldız"`, `<time datetime="2026-06-01">1 Haziran 2026</time>`,
		`srcset="http://reviewd.test/media/`, `href="http://reviewd.test/static/reviews.css"`, `data-review-vote="up"`,
		`data-review-report`, `data-review-link="method-statement"`, `lang="tr"`} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %s", want)
		}
	}
	if strings.Contains(html, "<script") || strings.Contains(html, "<b>") {
		t.Fatalf("unescaped text in html")
	}
	// The state is the list answer of the same product and caller.
	list := f.Do("GET", "/v1/reviews/list?channel=web&product=SKU-1", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if !reflect.DeepEqual(res.JSON["state"], list.JSON) {
		a, _ := json.Marshal(res.JSON["state"])
		t.Fatalf("state differs from the list answer\nstate %.400s\nlist  %.400s", a, list.Body)
	}

	// 304 with the same content; Cache-Control and ETag come along.
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		res := f.ssr("product=SKU-1&name=Red+mug", map[string]string{"If-None-Match": inm})
		if res.Status != 304 || len(res.Body) != 0 || res.Header.Get("ETag") != etag ||
			res.Header.Get("Cache-Control") != "private, max-age=60" {
			t.Fatalf("If-None-Match %s: %d %q %q", inm, res.Status, res.Body, res.Header.Get("ETag"))
		}
	}
	if res := f.ssr("product=SKU-1&name=Red+mug", map[string]string{"If-None-Match": `"other"`}); res.Status != 200 {
		t.Fatalf("other etag: want 200, got %s", res)
	}
	// Another name, layout or language is another content.
	for _, q := range []string{"product=SKU-1&name=Blue+mug", "product=SKU-1&name=Red+mug&style=sidebar", "product=SKU-1&name=Red+mug&lang=en"} {
		if res := f.ssr(q, map[string]string{"If-None-Match": etag}); res.Status != 200 || res.Header.Get("ETag") == etag {
			t.Fatalf("%s: %d", q, res.Status)
		}
	}
	// A change of the product's reviews changes the content.
	f.vote(r[0], map[string]any{"vote": "up"})
	res = f.ssr("product=SKU-1&name=Red+mug", map[string]string{"If-None-Match": etag})
	if res.Status != 200 || res.Header.Get("ETag") == etag {
		t.Fatalf("after a vote: want 200, got %s", res)
	}
	etag = res.Header.Get("ETag")
	f.seed(seedRev{ago: 10 * time.Minute})
	if res := f.ssr("product=SKU-1&name=Red+mug", map[string]string{"If-None-Match": etag}); res.Status != 200 {
		t.Fatalf("after a new review: want 200, got %s", res)
	}

	// With a site key from the store page: public caching.
	res = f.Do("GET", "/v1/ssr?key="+f.site+"&product=SKU-1", nil, map[string]string{"Origin": "https://shop.example"})
	if res.Status != 200 || res.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Fatalf("site key: %d %q", res.Status, res.Header.Get("Cache-Control"))
	}

	// Both layouts and the eight themes.
	side := f.mustSSR("product=SKU-1&style=sidebar&theme=night&lang=en").JSON["html"].(string)
	for _, want := range []string{`rvw--sidebar rvw-theme-night`, `<aside class="rvw-side"`, `lang="en"`, `Verified buyer`,
		`<span class="rvw-average">`} {
		if !strings.Contains(side, want) {
			t.Errorf("sidebar html lacks %s", want)
		}
	}
	for _, theme := range []string{"warm", "trust", "editorial", "minimal", "soft", "bold", "natural", "night"} {
		h := f.mustSSR("product=SKU-1&theme=" + theme).JSON["html"].(string)
		if !strings.Contains(h, "rvw-theme-"+theme) || !strings.Contains(string(cssOf(t, f)), ".rvw-theme-"+theme+"{") {
			t.Errorf("theme %s not rendered or not styled", theme)
		}
	}
}

func cssOf(t *testing.T, f *fx) []byte {
	res := f.Do("GET", "/static/reviews.css", nil, nil)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("css: want 200, got %s", res)
	}
	return res.Body
}

// TestSSRErrors: layout and theme checks, the list's own checks and no_site_key.
func TestSSRErrors(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{})
	for _, c := range []struct{ query, want string }{
		{"product=SKU-1&style=grid", "invalid / style"},
		{"product=SKU-1&style=" + strings.Repeat("s", 41), "invalid / style_too_long"},
		{"product=SKU-1&theme=pink", "invalid / theme"},
		{"product=SKU-1&theme=" + strings.Repeat("t", 41), "invalid / theme_too_long"},
		{"product=SKU-1&name=" + strings.Repeat("n", 301), "invalid / name_too_long"},
		{"style=cards", "invalid / product"},
		{"product=SKU-1&sort=oldest", "sort_not_allowed / sort_not_allowed"},
	} {
		if res := f.ssr(c.query, nil); res.Status != 400 || res.Code() != c.want {
			t.Errorf("%s: %d %s, want %s", c.query, res.Status, res.Body, c.want)
		}
	}
	// A channel without a site key in use and without an own method-statement page.
	f.Channel("app", "TR", "tr")
	appServer := f.Key("server", "app") // a server key serves its own channel only
	call := func() apptest.Response {
		return f.Do("GET", "/v1/ssr?channel=app&product=SKU-1", nil, map[string]string{"Authorization": "Bearer " + appServer})
	}
	wantCode(t, call(), 409, "refused / no_site_key")
	ch, _ := f.App.DB.Read().ChannelByCode(context.Background(), "app")
	if err := f.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
		return tx.SetMethodStatementURL(context.Background(), ch.ID, "tr", "https://shop.example/nasil")
	}); err != nil {
		t.Fatal(err)
	}
	res := call()
	if res.Status != 200 || obj(obj(obj(res.JSON["state"])["core"])["method_statement"])["url"] != "https://shop.example/nasil" {
		t.Fatalf("own page: want 200, got %s", res)
	}
}

// TestSSRStructuredData: the JSON-LD follows the review-snippet rules: one Product
// with name; aggregateRating over own product-experience reviews only (never
// imported, syndicated or shopping-experience ones), with "." decimals, present
// only with at least one such review; review[] only for such reviews rendered on
// the page, with an author name (masked when hidden); no Organization or
// LocalBusiness anywhere.
func TestSSRStructuredData(t *testing.T) {
	f := newFx(t)
	f.Channel("gb", "GB", "en")
	r := f.seed(
		seedRev{rating: 5, author: "Ayşe Yılmaz", hide: true, title: "Harika", body: "Çok iyi", ago: 1 * time.Hour},
		seedRev{rating: 4, author: "Mehmet", ago: 2 * time.Hour},
		seedRev{rating: 4, ago: 3 * time.Hour},                                                    // anonymous: aggregate only
		seedRev{rating: 1, imported: true, source: "Trendyol", author: "Can", ago: 4 * time.Hour}, // imported
		seedRev{rating: 1, process: true, author: "Deniz", ago: 5 * time.Hour},                    // shopping experience
		seedRev{rating: 1, market: "GB", author: "John", ago: 30 * time.Minute},                   // syndicated
	)
	f.settings(map[string]any{"syndication_enabled": true})
	res := f.mustSSR("product=SKU-1&name=" + "K%C4%B1rm%C4%B1z%C4%B1+kupa")
	state := obj(res.JSON["state"])
	if len(state["reviews"].([]any)) != 6 {
		t.Fatalf("rendered %d reviews", len(state["reviews"].([]any)))
	}
	sd := obj(res.JSON["structured_data"])
	checkProductJSONLD(t, sd)
	if sd["name"] != "Kırmızı kupa" {
		t.Fatalf("name %v", sd["name"])
	}
	agg := obj(sd["aggregateRating"])
	if agg["ratingValue"] != "4.3" || agg["reviewCount"] != "3" || agg["bestRating"] != "5" || agg["worstRating"] != "1" {
		t.Fatalf("aggregateRating %v", agg)
	}
	var got []string
	for _, x := range sd["review"].([]any) {
		rv := obj(x)
		got = append(got, obj(rv["author"])["name"].(string)+"/"+obj(rv["reviewRating"])["ratingValue"].(string)+"/"+
			rv["datePublished"].(string))
	}
	if strings.Join(got, ",") != "A*** Y***/5/2026-06-01,Mehmet/4/2026-06-01" {
		t.Fatalf("reviews %v", got)
	}
	if rv := obj(sd["review"].([]any)[0]); rv["name"] != "Harika" || rv["reviewBody"] != "Çok iyi" {
		t.Fatalf("review %v", rv)
	}
	raw, _ := json.Marshal(sd)
	for _, leak := range []string{"Ayşe", "Can", "Deniz", "John", r[3]} {
		if strings.Contains(string(raw), leak) {
			t.Fatalf("structured data holds %s: %s", leak, raw)
		}
	}
	// Without a name the stored product name is used.
	if sd := obj(f.mustSSR("product=SKU-1").JSON["structured_data"]); sd["name"] != "Product SKU-1" {
		t.Fatalf("fallback name %v", sd["name"])
	}
	// Only imported or shopping-experience reviews: nothing to mark up.
	f.seed(seedRev{variant: "IMP", imported: true}, seedRev{variant: "IMP", process: true})
	if sd := f.mustSSR("product=IMP&name=X").JSON["structured_data"]; sd != nil {
		t.Fatalf("structured data without own reviews: %v", sd)
	}
	// A product without reviews has none either.
	if sd := f.mustSSR("product=NONE&name=X").JSON["structured_data"]; sd != nil {
		t.Fatalf("structured data without reviews: %v", sd)
	}
}

// checkProductJSONLD checks a JSON-LD object against the review-snippet rules of
// the structured-data reference (Part A).
func checkProductJSONLD(t *testing.T, sd map[string]any) {
	t.Helper()
	if sd["@context"] != "https://schema.org" || sd["@type"] != "Product" || sd["name"] == "" || sd["name"] == nil {
		t.Fatalf("Product needs @context, @type and name: %v", sd)
	}
	if sd["review"] == nil && sd["aggregateRating"] == nil && sd["offers"] == nil {
		t.Fatalf("Product needs review, aggregateRating or offers")
	}
	decimal := regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	if a := obj(sd["aggregateRating"]); a != nil {
		n, err := strconv.Atoi(a["reviewCount"].(string))
		if a["@type"] != "AggregateRating" || !decimal.MatchString(a["ratingValue"].(string)) || err != nil || n < 1 {
			t.Fatalf("AggregateRating %v", a)
		}
	}
	for _, x := range asList(sd["review"]) {
		rv := obj(x)
		author := obj(rv["author"])
		name, _ := author["name"].(string)
		if rv["@type"] != "Review" || (author["@type"] != "Person" && author["@type"] != "Organization") || name == "" ||
			len([]rune(name)) >= 100 {
			t.Fatalf("Review author %v", rv)
		}
		rating := obj(rv["reviewRating"])
		if rating["@type"] != "Rating" || !decimal.MatchString(rating["ratingValue"].(string)) {
			t.Fatalf("reviewRating %v", rating)
		}
		if d, _ := rv["datePublished"].(string); d != "" {
			if _, err := time.Parse("2006-01-02", d); err != nil {
				t.Fatalf("datePublished %q", d)
			}
		}
		if rv["itemReviewed"] != nil {
			t.Fatalf("nested reviews need no itemReviewed")
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ty := x["@type"]; ty == "Organization" && x["aggregateRating"] != nil || ty == "LocalBusiness" {
				t.Fatalf("self-serving %v rating", ty)
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(sd)
}

func asList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	default:
		return []any{x}
	}
}

// TestSSRTransparencyLine: the "publicly verifiable" line is opt-in
// (data-review-transparency, docs/page-contract.md): the server-rendered component
// never carries it, as the script's default render does not, and it keeps the links
// paragraph the script adds the line to when a store opts in.
func TestSSRTransparencyLine(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{ago: time.Hour})
	html, _ := f.mustSSR("product=SKU-1&name=Red+mug").JSON["html"].(string)
	if !strings.Contains(html, `<p class="rvw-links">`) || strings.Contains(html, `data-review-link="transparency"`) {
		t.Fatalf("links paragraph of the server-rendered component:\n%s", html)
	}
}

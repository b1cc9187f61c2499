package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"reviewd/app/platform/platformtest"
)

const merchantXML = `<?xml version="1.0"?>
<rss xmlns:g="http://base.google.com/ns/1.0" version="2.0"><channel><title>Acme</title>
<item><g:id>KETTLE-1</g:id><title>Steel kettle</title><link>https://shop.example/kettle</link>
<g:image_link>https://shop.example/kettle.jpg</g:image_link><g:brand>Acme</g:brand><g:gtin>8690000000042</g:gtin>
<g:mpn>AC-K1</g:mpn><g:item_group_id>KETTLE</g:item_group_id></item>
<item><g:id>KETTLE-2</g:id><g:title>Red kettle</g:title><g:link>https://shop.example/kettle-red</g:link><g:gtin>86900000000</g:gtin></item>
</channel></rss>`

const merchantTSV = "id\ttitle\tlink\timage link\tbrand\tgtin\tmpn\titem group id\n" +
	"TEA-1\tGreen tea\thttps://shop.example/tea\thttps://shop.example/tea.jpg\tAcme\t8690000000059\tT1\tTEA\n"

// TestProductFeeds: product feeds in Google's XML and TSV forms and our JSON form
// are read on schedule through an https server, paged by Link header or next; a
// repeated cursor and too many pages are recorded as the feed's failure.
func TestProductFeeds(t *testing.T) {
	f := newMarketFx(t)
	srv := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/merchant.xml":
			w.Header().Set("Link", `</merchant2.xml>; rel="next"`)
			_, _ = w.Write([]byte(merchantXML))
		case "/merchant2.xml":
			_, _ = w.Write([]byte(`<feed xmlns="http://www.w3.org/2005/Atom" xmlns:g="http://base.google.com/ns/1.0"><entry>
<g:id>CUP-9</g:id><title>Tea cup</title><link href="https://shop.example/cup"/></entry></feed>`))
		case "/merchant.tsv":
			_, _ = w.Write([]byte(merchantTSV))
		case "/loop.json":
			_ = json.NewEncoder(w).Encode(map[string]any{"products": []any{map[string]any{"variant_key": "LOOP"}}, "next": "/loop2.json"})
		case "/loop2.json":
			_ = json.NewEncoder(w).Encode(map[string]any{"products": []any{}, "next": "/loop.json"})
		case "/endless.json":
			n, _ := strconv.Atoi(r.URL.Query().Get("p"))
			_ = json.NewEncoder(w).Encode(map[string]any{"products": []any{}, "next": fmt.Sprintf("/endless.json?p=%d", n+1)})
		default:
			http.NotFound(w, r)
		}
	}), "feeds.shop.example")
	f.env.App.Catalogue.Outbound = srv.Client
	for _, c := range []struct{ url, format string }{
		{"https://feeds.shop.example/merchant.xml", "google_xml"},
		{"https://feeds.shop.example/merchant.tsv", "google_tsv"},
		{"https://feeds.shop.example/loop.json", "json"},
		{"https://feeds.shop.example/endless.json", "json"},
		{"https://feeds.shop.example/missing.json", "json"},
	} {
		expect(t, f.do("POST", "/admin/v1/product-feeds", map[string]any{"url": c.url, "format": c.format}), 201, "")
	}
	expect(t, f.do("POST", "/admin/v1/product-feeds", map[string]any{"url": "https://feeds.shop.example/loop.json", "format": "json"}), 409, "feed_exists / feed_exists")
	expect(t, f.do("POST", "/admin/v1/product-feeds", map[string]any{"url": "http://feeds.shop.example/x", "format": "json"}), 400, "invalid / url_invalid")
	expect(t, f.do("POST", "/admin/v1/product-feeds", map[string]any{"url": "https://feeds.shop.example/x", "format": "csv"}), 400, "invalid / format")

	read, failed, err := f.env.App.Catalogue.RunDueFeeds(context.Background(), f.env.Clock.Now())
	if err != nil || read != 5 || failed != 3 {
		t.Fatalf("read %d, failed %d, %v", read, failed, err)
	}
	res := f.do("GET", "/admin/v1/product-feeds", nil)
	expect(t, res, 200, "")
	errs := map[string]string{}
	for _, it := range res.JSON["items"].([]any) {
		it := it.(map[string]any)
		errs[it["url"].(string)] = it["last_error"].(string)
		if it["url"] == "https://feeds.shop.example/merchant.xml" && (it["last_pages"] != float64(2) || it["last_products"] != float64(2)) {
			t.Fatalf("merchant feed read: %v", it)
		}
	}
	want := map[string]string{"https://feeds.shop.example/merchant.xml": "", "https://feeds.shop.example/merchant.tsv": "", "https://feeds.shop.example/loop.json": "cursor_repeated",
		"https://feeds.shop.example/endless.json": "page_limit_reached: 100", "https://feeds.shop.example/missing.json": "http_status: 404"}
	for u, e := range want {
		if errs[u] != e {
			t.Fatalf("%s: last_error %q, want %q", u, errs[u], e)
		}
	}
	q := f.env.App.DB.Read()
	ctx := context.Background()
	if p, err := q.ProductByVariant(ctx, "KETTLE-1"); err != nil || p.Name != "Steel kettle" || p.GTIN != "8690000000042" ||
		p.GroupKey != "KETTLE" || p.ImageURL != "https://shop.example/kettle.jpg" || p.CatalogID != "KETTLE-1" || p.Source != "feed" {
		t.Fatalf("xml product: %+v %v", p, err)
	}
	if p, err := q.ProductByVariant(ctx, "CUP-9"); err != nil || p.Name != "Tea cup" || p.URL != "https://shop.example/cup" {
		t.Fatalf("atom product: %+v %v", p, err)
	}
	if _, err := q.ProductByVariant(ctx, "KETTLE-2"); err == nil {
		t.Fatalf("an item with an invalid gtin was saved")
	}
	if p, err := q.ProductByVariant(ctx, "TEA-1"); err != nil || p.Name != "Green tea" || p.MPN != "T1" || p.GroupKey != "TEA" {
		t.Fatalf("tsv product: %+v %v", p, err)
	}
	// Read again only after the interval.
	if read, _, _ := f.env.App.Catalogue.RunDueFeeds(ctx, f.env.Clock.Now()); read != 0 {
		t.Fatalf("read again at once: %d", read)
	}
	id := res.JSON["items"].([]any)[0].(map[string]any)["id"].(string)
	expect(t, f.do("DELETE", "/admin/v1/product-feeds/"+id, nil), 204, "")
	expect(t, f.do("DELETE", "/admin/v1/product-feeds/"+id, nil), 404, "")
	// Each saved and each removed definition is in the activity history, refusals are not.
	if n := len(activityEntries(t, f.env, "product_feed.created")); n != 5 {
		t.Fatalf("product_feed.created entries: %d", n)
	}
	if got := activityEntries(t, f.env, "product_feed.removed"); len(got) != 1 || got[0].TargetID != id {
		t.Fatalf("product_feed.removed entries: %+v", got)
	}
}

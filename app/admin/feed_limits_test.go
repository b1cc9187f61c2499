package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"reviewd/app/outbound"
	"reviewd/app/platform/platformtest"
)

// TestFeedPageBombs: a 49 MB product feed page of empty JSON objects or empty XML
// items, and a 19 MB marketplace page of empty objects, are read as streams and
// refused at 10000 items with a failure the owner sees; a page over the byte limit
// is too_large. The read holds little memory, and the feed was made due again
// before its page was requested, so a read that ends the process is not repeated
// at every start.
func TestFeedPageBombs(t *testing.T) {
	f := newMarketFx(t)
	ctx := context.Background()
	// Under the race detector every token costs several times as much and a 49 MB
	// page outlasts the read's time limit: the pages are a third as large there,
	// still far over the item limit.
	page := 49 << 20
	if raceEnabled {
		page = 16 << 20
	}
	var mu sync.Mutex
	dueDuringRead := map[string]int{}
	srv := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		due, _ := f.env.App.DB.Read().DueProductFeeds(ctx, f.env.Clock.Now())
		mu.Lock()
		dueDuringRead[r.URL.Path] = len(due)
		mu.Unlock()
		switch r.URL.Path {
		case "/empty.json":
			platformtest.WriteRepeated(w, `{"products":[`, `{}`, true, page, `],"next":null}`)
		case "/empty.xml":
			platformtest.WriteRepeated(w, `<rss version="2.0"><channel>`, `<item/>`, false, page, `</channel></rss>`)
		case "/links.xml":
			platformtest.WriteRepeated(w, `<rss version="2.0"><channel><item><link>https://shop.example/a</link>`, `<link/>`, false, page, `</item></channel></rss>`)
		case "/huge.json":
			platformtest.WriteRepeated(w, `{"products":[],"pad":[`, `0`, true, 51<<20, `]}`)
		}
	}), "feeds.shop.example")
	f.env.App.Catalogue.Outbound = srv.Client

	want := map[string]string{
		"https://feeds.shop.example/empty.json": "page_item_limit_reached: 10000",
		"https://feeds.shop.example/empty.xml":  "page_item_limit_reached: 10000",
		"https://feeds.shop.example/huge.json":  "too_large",
		"https://feeds.shop.example/links.xml":  "",
	}
	for u := range want {
		format := "json"
		if strings.HasSuffix(u, ".xml") {
			format = "google_xml"
		}
		expect(t, f.do("POST", "/admin/v1/product-feeds", map[string]any{"url": u, "format": format}), 201, "")
		// One feed a read, so each is measured alone.
		var read, failed int
		var err error
		peak, alloc := platformtest.MemUse(t, func() { read, failed, err = f.env.App.Catalogue.RunDueFeeds(ctx, f.env.Clock.Now()) })
		t.Logf("%s: heap peak +%d MB, allocated %d MB", u, peak>>20, alloc>>20)
		if err != nil || read != 1 || failed != min(1, len(want[u])) {
			t.Fatalf("%s: read %d, failed %d, %v", u, read, failed, err)
		}
		if peak > 64<<20 {
			t.Fatalf("%s: heap grew by %d MB during the read", u, peak>>20)
		}
	}
	res := f.do("GET", "/admin/v1/product-feeds", nil)
	expect(t, res, 200, "")
	for _, it := range res.JSON["items"].([]any) {
		it := it.(map[string]any)
		u := it["url"].(string)
		if it["last_error"] != want[u] || it["last_products"] != float64(0) || it["last_pages"] != float64(1) {
			t.Fatalf("%s: %v", u, it)
		}
		if next, _ := time.Parse(time.RFC3339, it["next_run_at"].(string)); !next.After(f.env.Clock.Now()) {
			t.Fatalf("%s due again at once: %v", u, it)
		}
	}
	for path, n := range dueDuringRead {
		if n != 0 {
			t.Fatalf("%s was requested while its feed was still due", path)
		}
	}

	// Marketplace: one real review, then empty objects.
	rows, head := marketRows("trendyol"), header("trendyol", false)
	first := map[string]any{}
	for i, h := range head {
		first[h] = rows[0][i]
	}
	firstJSON, _ := json.Marshal(first)
	var srcDue int
	msrv := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		due, _ := f.env.App.DB.Read().DueMarketplaceSources(ctx, f.env.Clock.Now())
		srcDue = len(due)
		platformtest.WriteRepeated(w, `[`+string(firstJSON)+`,`, `{}`, true, 19<<20, `]`)
	}), "feeds.trendyol.com")
	f.env.App.Marketplace.Outbound = msrv.Client
	src := f.source("trendyol", "feed", map[string]any{"feed_url": "https://feeds.trendyol.com/reviews"})
	var read, failed int
	var err error
	peak, alloc := platformtest.MemUse(t, func() { read, failed, err = f.env.App.Marketplace.RunDue(ctx, f.env.Clock.Now()) })
	t.Logf("marketplace page: heap peak +%d MB, allocated %d MB", peak>>20, alloc>>20)
	if err != nil || read != 1 || failed != 1 || srcDue != 0 {
		t.Fatalf("marketplace job: %d read, %d failed, %v; due during the read: %d", read, failed, err, srcDue)
	}
	if peak > 64<<20 {
		t.Fatalf("marketplace page: heap grew by %d MB during the read", peak>>20)
	}
	run := f.waitRun(src)
	if run["state"] != "failed" || run["error"] != "page_item_limit_reached: 10000" {
		t.Fatalf("marketplace run: %v", run)
	}
	res = f.do("GET", "/admin/v1/marketplace/sources/"+src, nil)
	if att, _ := res.JSON["attention"].(map[string]any); att["kind"] != "failed" || att["error"] != "page_item_limit_reached: 10000" {
		t.Fatalf("attention: %s", res)
	}
}

// TestFeedSecretStaysOnOrigin: a marketplace feed's bearer secret is sent to the
// feed's own origin only; a next page on another host is read without it.
func TestFeedSecretStaysOnOrigin(t *testing.T) {
	f := newMarketFx(t)
	rows, head := marketRows("trendyol"), header("trendyol", false)
	page := func(part [][]string, next string) []byte {
		objs := []map[string]any{}
		for _, r := range part {
			o := map[string]any{}
			for i, h := range head {
				o[h] = r[i]
			}
			objs = append(objs, o)
		}
		b, _ := json.Marshal(map[string]any{"reviews": objs, "next": next})
		return b
	}
	var mu sync.Mutex
	auth := map[string]string{}
	record := func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth[r.Host+r.URL.Path] = r.Header.Get("Authorization")
	}
	own := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		_, _ = w.Write(page(rows[:3], "https://cdn.elsewhere.example/reviews-2"))
	}), "feeds.trendyol.com")
	other := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		_, _ = w.Write(page(rows[3:], ""))
	}), "cdn.elsewhere.example")
	// One client that reaches both servers.
	var pem []byte
	for _, s := range []*platformtest.TLSServer{own, other} {
		b, err := os.ReadFile(s.CAFile)
		if err != nil {
			t.Fatal(err)
		}
		pem = append(pem, b...)
	}
	ca := filepath.Join(t.TempDir(), "both.pem")
	if err := os.WriteFile(ca, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	client, err := outbound.New(outbound.Config{CAFile: ca, Resolve: []string{
		"feeds.trendyol.com:443=127.0.0.1:" + own.Port, "cdn.elsewhere.example:443=127.0.0.1:" + other.Port}})
	if err != nil {
		t.Fatal(err)
	}
	f.env.App.Marketplace.Outbound = client
	src := f.source("trendyol", "feed", map[string]any{"feed_url": "https://feeds.trendyol.com/reviews", "secret": "tok-123"})
	expect(t, f.do("POST", "/admin/v1/marketplace/sources/"+src+"/runs", map[string]any{"scope": "full"}), 202, "")
	run := f.waitRun(src)
	if run["state"] != "succeeded" || counts(run)["imported"] != float64(3) {
		t.Fatalf("run: %v", run)
	}
	mu.Lock()
	defer mu.Unlock()
	if auth["feeds.trendyol.com/reviews"] != "Bearer tok-123" || auth["cdn.elsewhere.example/reviews-2"] != "" || len(auth) != 2 {
		t.Fatalf("Authorization headers sent: %v", auth)
	}
}

package storefront_test

import (
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/web"
)

// TestRepeatedReadsKeepTheirChecks: a list or SSR request sent again exactly as
// before is answered from what its first answer was worked out from, yet every
// check of spec 2 still applies to it: the same headers (CORS, security headers,
// Cache-Control, ETag), the server key's request limit on every request, and a
// revoked key, an unverified page address or a bad query refused each time.
func TestRepeatedReadsKeepTheirChecks(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{title: "First mug"})
	listPath := "/v1/reviews/list?key=" + url.QueryEscape(f.site) + "&product=SKU-1"
	page := map[string]string{"Origin": "https://shop.example"}

	// The same list request three times: the same answer and headers each time.
	var etag, body string
	for i := 0; i < 3; i++ {
		res := f.Do("GET", listPath, nil, page)
		if res.Status != 200 {
			t.Fatalf("list %d: %s", i, res)
		}
		for name, want := range map[string]string{"Access-Control-Allow-Origin": "*",
			"Access-Control-Expose-Headers": "X-Request-Id, ETag", "Cache-Control": "private, max-age=30",
			"Content-Type": "application/json; charset=utf-8", "X-Content-Type-Options": "nosniff",
			"Content-Security-Policy": web.APICSP} {
			if got := res.Header.Values(name); len(got) != 1 || got[0] != want {
				t.Fatalf("list %d: %s %q, want %q", i, name, got, want)
			}
		}
		if res.Header.Get("X-Request-Id") == "" || res.Header.Get("Content-Length") != itoa(len(res.Body)) {
			t.Fatalf("list %d: request id %q, length %q for %d bytes", i, res.Header.Get("X-Request-Id"),
				res.Header.Get("Content-Length"), len(res.Body))
		}
		if i > 0 && (res.Header.Get("ETag") != etag || string(res.Body) != body) {
			t.Fatalf("list %d: another answer to the same request", i)
		}
		etag, body = res.Header.Get("ETag"), string(res.Body)
	}
	held := map[string]string{"Origin": "https://shop.example", "If-None-Match": `"other", W/` + etag}
	for i := 0; i < 2; i++ {
		if res := f.Do("GET", listPath, nil, held); res.Status != 304 || len(res.Body) != 0 ||
			res.Header.Get("ETag") != etag || res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("list held %d: %d %q %v", i, res.Status, res.Body, res.Header)
		}
	}
	// Another page address with the same query and key is checked on its own.
	for i := 0; i < 2; i++ {
		wantCode(t, f.Do("GET", listPath, nil, map[string]string{"Origin": "https://other.example"}), 403,
			"refused / origin_unverified: other.example")
	}
	// A query with a character that cannot be stored is refused every time.
	for i := 0; i < 2; i++ {
		wantCode(t, f.Do("GET", listPath+"&q=%00", nil, page), 400, "invalid / invalid")
	}

	// The server key's limit counts every SSR request, remembered or not.
	f.Server.Limits.StoreServer = web.NewLimiter(4, time.Minute, f.Clock.Now)
	for i := 0; i < 4; i++ {
		if res := f.ssr("product=SKU-1&name=Mug", nil); res.Status != 200 ||
			res.Header.Get("Cache-Control") != "private, max-age=60" {
			t.Fatalf("ssr %d: %s", i, res)
		}
	}
	wantCode(t, f.ssr("product=SKU-1&name=Mug", nil), 429, "rate_limited / rate_limited")
	f.Clock.Advance(time.Minute)
	ssr := f.ssr("product=SKU-1&name=Mug", nil)
	if ssr.Status != 200 {
		t.Fatalf("ssr after a minute: %s", ssr)
	}
	if res := f.ssr("product=SKU-1&name=Mug", map[string]string{"If-None-Match": ssr.Header.Get("ETag")}); res.Status != 304 {
		t.Fatalf("ssr held: %s", res)
	}

	// A revoked key is refused at its very next request, however often it was
	// answered before.
	keys, err := f.App.DB.Read().ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := f.App.Access.RevokeKey(ctx, core.Console(), k.PublicID); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, f.Do("GET", listPath, nil, held), 403, "refused / revoked_site_key")
	if res := f.ssr("product=SKU-1&name=Mug", map[string]string{"If-None-Match": ssr.Header.Get("ETag")}); res.Status != 403 {
		t.Fatalf("ssr with a revoked key: %s", res)
	}
}

// TestRepeatedReadsFollowWritesUnderLoad: while several clients send the same list
// request over and over, a review is published; every request sent after the
// publishing returned lists it.
func TestRepeatedReadsFollowWritesUnderLoad(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{title: "First mug"})
	listPath := "/v1/reviews/list?key=" + url.QueryEscape(f.site) + "&product=SKU-1"
	page := map[string]string{"Origin": "https://shop.example"}
	var written atomic.Bool
	stop := make(chan struct{})
	errs := make(chan string, 8)
	var wg sync.WaitGroup
	// The clients stop before the test ends, whether it fails or not (the server
	// closes after).
	var once sync.Once
	halt := func() { once.Do(func() { close(stop); wg.Wait() }) }
	defer halt()
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				after := written.Load()
				res := f.Do("GET", listPath, nil, page)
				if res.Status != 200 {
					errs <- res.String()
					return
				}
				if after && !strings.Contains(string(res.Body), "Second mug") {
					errs <- "a request sent after the write got the old list"
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ { // let the clients answer from memory for a while
		f.Do("GET", listPath, nil, page)
	}
	f.seed(seedRev{title: "Second mug", ago: time.Minute})
	written.Store(true)
	for i := 0; i < 20; i++ {
		if res := f.Do("GET", listPath, nil, page); !strings.Contains(string(res.Body), "Second mug") {
			t.Fatalf("after the write: %s", res)
		}
	}
	halt()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

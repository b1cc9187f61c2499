package storefront_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cdn"
	"reviewd/app/core"
	"reviewd/app/platform/platformtest"
)

// purgeFake plays a CDN's purge API: it records the tags of every call and answers
// with the statuses queued in fail (then 200).
type purgeFake struct {
	mu    sync.Mutex
	calls [][]string
	heads []http.Header
	fail  []int
}

func (p *purgeFake) record(tags []string, h http.Header) (status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, tags)
	p.heads = append(p.heads, h.Clone())
	if len(p.fail) > 0 {
		status, p.fail = p.fail[0], p.fail[1:]
		return status
	}
	return 200
}

func (p *purgeFake) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, c := range p.calls {
		out = append(out, c...)
	}
	return out
}

func (p *purgeFake) reset() {
	p.mu.Lock()
	p.calls, p.heads = nil, nil
	p.mu.Unlock()
}

// cloudflareFake answers POST /client/v4/zones/ZONE/purge_cache as Cloudflare does.
func cloudflareFake(t *testing.T, p *purgeFake) *platformtest.TLSServer {
	return platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/client/v4/zones/zone123/purge_cache" || r.Header.Get("Authorization") != "Bearer cf-token" {
			w.WriteHeader(404)
			return
		}
		var body struct {
			Tags []string `json:"tags"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Tags) == 0 || len(body.Tags) > 100 {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"success":false,"errors":[{"code":1012,"message":"bad tags"}]}`)
			return
		}
		st := p.record(body.Tags, r.Header)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		_, _ = io.WriteString(w, `{"success":`+map[bool]string{true: "true", false: "false"}[st == 200]+`,"errors":[],"messages":[],"result":{"id":"zone123"}}`)
	}), "api.cloudflare.com")
}

func (f *fx) drainer(p cdn.Purger) *cdn.Drainer { return &cdn.Drainer{DB: f.App.DB, Purger: p} }

// TestCDNHeaders: the public read answers carry s-maxage and stale-while-revalidate
// besides what browsers keep, and name the product and channel in Cache-Tag and
// Surrogate-Key; answers to a server key stay private.
func TestCDNHeaders(t *testing.T) {
	f := newCDNFx(t)
	f.seed(seedRev{})
	product, channel := cdn.ProductTag("variant", "SKU-1"), "reviewd-c-web"
	if !regexp.MustCompile(`^reviewd-p-[0-9a-f]{20}$`).MatchString(product) || cdn.ProductTag("", "SKU-1") != product ||
		cdn.ProductTag("group", "SKU-1") == product {
		t.Fatalf("product tag %q", product)
	}
	wantTags := func(what string, res interface{ Get(string) string }, tags ...string) {
		t.Helper()
		if got := strings.Split(res.Get("Cache-Tag"), ","); !slices.Equal(got, tags) {
			t.Errorf("%s: Cache-Tag %q, want %q", what, got, tags)
		}
		if got := strings.Fields(res.Get("Surrogate-Key")); !slices.Equal(got, tags) {
			t.Errorf("%s: Surrogate-Key %q, want %q", what, got, tags)
		}
	}
	pub := "public, max-age=30, s-maxage=300, stale-while-revalidate=60"
	res := f.list("product=SKU-1")
	if res.Status != 200 || res.Header.Get("Cache-Control") != pub {
		t.Fatalf("list: %d %q", res.Status, res.Header.Get("Cache-Control"))
	}
	wantTags("list", res.Header, "reviewd", product, channel)
	// The same request again is answered from memory with the same headers; and a
	// conditional one with 304 and the same headers.
	again := f.Do("GET", "/v1/reviews/list?key="+url.QueryEscape(f.site)+"&product=SKU-1", nil,
		map[string]string{"Origin": "https://shop.example", "If-None-Match": res.Header.Get("ETag")})
	if again.Status != 304 || again.Header.Get("Cache-Control") != pub {
		t.Fatalf("list again: %d %q", again.Status, again.Header.Get("Cache-Control"))
	}
	wantTags("list 304", again.Header, "reviewd", product, channel)
	res = f.list("product=SKU-1&scope=group")
	wantTags("group list", res.Header, "reviewd", cdn.ProductTag("group", "SKU-1"), channel)

	srv := f.Do("GET", "/v1/reviews/list?product=SKU-1&channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if srv.Status != 200 || srv.Header.Get("Cache-Control") != "private, max-age=30" {
		t.Fatalf("server key list: %d %q", srv.Status, srv.Header.Get("Cache-Control"))
	}

	ssr := f.Do("GET", "/v1/ssr?key="+url.QueryEscape(f.site)+"&product=SKU-1", nil, map[string]string{"Origin": "https://shop.example"})
	if ssr.Status != 200 || ssr.Header.Get("Cache-Control") != "public, max-age=60, s-maxage=300, stale-while-revalidate=60" {
		t.Fatalf("ssr: %d %q", ssr.Status, ssr.Header.Get("Cache-Control"))
	}
	wantTags("ssr", ssr.Header, "reviewd", product, channel)

	f.questionsOn()
	qs := f.Do("GET", "/v1/questions?key="+url.QueryEscape(f.site)+"&product=SKU-1", nil, map[string]string{"Origin": "https://shop.example"})
	if qs.Status != 200 || qs.Header.Get("Cache-Control") != pub {
		t.Fatalf("questions: %d %q", qs.Status, qs.Header.Get("Cache-Control"))
	}
	wantTags("questions", qs.Header, "reviewd", product, channel)
	qsrv := f.Do("GET", "/v1/questions?product=SKU-1&channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if qsrv.Status != 200 || qsrv.Header.Get("Cache-Control") != "private, max-age=30" {
		t.Fatalf("questions, server key: %d %q", qsrv.Status, qsrv.Header.Get("Cache-Control"))
	}

	ms := f.Do("GET", "/v1/method-statement?channel=web&format=json", nil, nil)
	if ms.Status != 200 || ms.Header.Get("Cache-Control") != "public, max-age=300, s-maxage=300, stale-while-revalidate=60" {
		t.Fatalf("method statement: %d %q %s", ms.Status, ms.Header.Get("Cache-Control"), ms.Body)
	}
	wantTags("method statement", ms.Header, "reviewd", channel)
}

// TestNoCDNKeepsV1Headers: without a CDN purge route every public answer carries
// the Cache-Control spec 2 names and no CDN tags.
func TestNoCDNKeepsV1Headers(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{})
	f.questionsOn()
	site := map[string]string{"Origin": "https://shop.example"}
	k := url.QueryEscape(f.site)
	for path, want := range map[string]string{
		"/v1/reviews/list?key=" + k + "&product=SKU-1":    "private, max-age=30",
		"/v1/ssr?key=" + k + "&product=SKU-1":             "public, max-age=60",
		"/v1/questions?key=" + k + "&product=SKU-1":       "private, max-age=30",
		"/v1/reviews/badges?key=" + k + "&products=SKU-1": "private, max-age=30",
		"/v1/method-statement?channel=web&format=json":    "public, max-age=300",
	} {
		res := f.Do("GET", path, nil, site)
		if res.Status != 200 || res.Header.Get("Cache-Control") != want {
			t.Errorf("%s: %d Cache-Control %q, want %q", path, res.Status, res.Header.Get("Cache-Control"), want)
		}
		if res.Header.Get("Cache-Tag") != "" || res.Header.Get("Surrogate-Key") != "" {
			t.Errorf("%s: CDN tags without a CDN: %q %q", path, res.Header.Get("Cache-Tag"), res.Header.Get("Surrogate-Key"))
		}
	}
}

// TestCDNPurgeCloudflare: a product whose reviews change is purged by its tag at
// Cloudflare, in calls of at most 100 tags; a failed call is held back and sent
// again after its backoff; a product changed again while its purge was out is
// purged again.
func TestCDNPurgeCloudflare(t *testing.T) {
	f := newFx(t)
	ids := f.seed(seedRev{})
	p := &purgeFake{}
	ts := cloudflareFake(t, p)
	d := f.drainer(&cdn.Cloudflare{Out: ts.Client, ZoneID: "zone123", Token: "cf-token"})
	if _, err := d.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := p.all(); !slices.Contains(got, cdn.ProductTag("variant", "SKU-1")) || !slices.Contains(got, "reviewd") {
		t.Fatalf("first purge: %q", got)
	}
	p.reset()
	if n, err := d.Drain(ctx); n != 0 || err != nil {
		t.Fatalf("an empty queue sent %d (%v)", n, err)
	}

	// Hiding the review changes the product's answers: its tag is purged.
	f.moderate(ids[0], core.ReviewHidden)
	if n, err := d.Drain(ctx); n != 1 || err != nil || !slices.Equal(p.all(), []string{cdn.ProductTag("variant", "SKU-1")}) {
		t.Fatalf("after hiding: %d %v %q", n, err, p.all())
	}
	p.reset()

	// 150 products at once go out in two calls (100 + 50).
	var many []seedRev
	for i := range 150 {
		many = append(many, seedRev{variant: "V-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)})
	}
	f.seed(many...)
	if n, err := d.Drain(ctx); n != 150 || err != nil {
		t.Fatalf("150 products: sent %d (%v)", n, err)
	}
	if len(p.calls) != 2 || len(p.calls[0]) != 100 || len(p.calls[1]) != 50 {
		t.Fatalf("calls: %d", len(p.calls))
	}
	p.reset()

	// A failing call (503) is held back one second, then sent again.
	p.fail = []int{503}
	f.seed(seedRev{variant: "SKU-2"})
	if n, err := d.Drain(ctx); n != 0 || err == nil {
		t.Fatalf("failed call: sent %d, err %v", n, err)
	}
	if n, _ := d.Drain(ctx); n != 0 || len(p.calls) != 1 {
		t.Fatalf("sent again before its backoff: %d calls", len(p.calls))
	}
	f.Clock.Advance(cdn.Backoff(0))
	if n, err := d.Drain(ctx); n != 1 || err != nil || len(p.calls) != 2 || p.calls[1][0] != cdn.ProductTag("variant", "SKU-2") {
		t.Fatalf("after the backoff: %d %v %q", n, err, p.calls)
	}
	if cdn.Backoff(1) != 2*time.Second || cdn.Backoff(30) != 10*time.Minute {
		t.Fatalf("backoff %s %s", cdn.Backoff(1), cdn.Backoff(30))
	}
}

// TestCDNPurgeFastlyAndWebhook: the same queue goes to Fastly as a Surrogate-Key
// purge, and to a generic webhook as a signed notice.
func TestCDNPurgeFastlyAndWebhook(t *testing.T) {
	f := newFx(t)
	ids := f.seed(seedRev{})
	fastly := &purgeFake{}
	fs := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/service/svc9/purge" || r.Header.Get("Fastly-Key") != "fastly-key" {
			w.WriteHeader(404)
			return
		}
		w.WriteHeader(fastly.record(strings.Fields(r.Header.Get("Surrogate-Key")), r.Header))
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	}), "api.fastly.com")
	d := f.drainer(&cdn.Fastly{Out: fs.Client, ServiceID: "svc9", Key: "fastly-key"})
	if _, err := d.Drain(ctx); err != nil || !slices.Contains(fastly.all(), cdn.ProductTag("variant", "SKU-1")) {
		t.Fatalf("fastly: %v %q", err, fastly.all())
	}

	secret := "a-webhook-secret-of-32-characters"
	hook := &purgeFake{}
	var bodies [][]byte
	ws := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Service-Signature") != core.Sign([]byte(secret), r.Header.Get("X-Service-Timestamp"), b) {
			w.WriteHeader(401)
			return
		}
		var body struct {
			Tags []string `json:"tags"`
		}
		_ = json.Unmarshal(b, &body)
		bodies = append(bodies, b)
		w.WriteHeader(hook.record(body.Tags, r.Header))
	}), "cdn-hook.example")
	d = f.drainer(&cdn.Webhook{Out: ws.Client, URL: "https://cdn-hook.example/purge", Secret: []byte(secret)})
	f.moderate(ids[0], core.ReviewHidden)
	if n, err := d.Drain(ctx); n != 1 || err != nil || !slices.Equal(hook.all(), []string{cdn.ProductTag("variant", "SKU-1")}) {
		t.Fatalf("webhook: %d %v %q", n, err, hook.all())
	}
	if h := hook.heads[0]; h.Get("X-Service-Event-Id") == "" || h.Get("X-Service-Timestamp") == "" {
		t.Fatalf("webhook headers: %v", h)
	}
	// A wrong secret is refused by the receiver: the purge stays queued.
	f.moderate(ids[0], core.ReviewPublished)
	bad := f.drainer(&cdn.Webhook{Out: ws.Client, URL: "https://cdn-hook.example/purge", Secret: []byte("another-secret-of-32-characters!")})
	if n, err := bad.Drain(ctx); n != 0 || err == nil {
		t.Fatalf("wrong secret: %d %v", n, err)
	}
	f.Clock.Advance(cdn.Backoff(0))
	if n, err := d.Drain(ctx); n != 1 || err != nil {
		t.Fatalf("after the backoff: %d %v", n, err)
	}
}

// TestCDNPurgeQuestionsAndRun: a question on a product purges its tag; a settings
// change (the read generation) purges every answer; and the drainer, running as
// serve runs it, sends them without being asked.
func TestCDNPurgeQuestionsAndRun(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{})
	p := &purgeFake{}
	ts := cloudflareFake(t, p)
	d := f.drainer(&cdn.Cloudflare{Out: ts.Client, ZoneID: "zone123", Token: "cf-token"})
	d.Interval = 20 * time.Millisecond
	if _, err := d.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	p.reset()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { d.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()

	f.questionsOn() // a settings change: every answer
	apptest.Eventually(t, "the purge of every answer", 5*time.Second, func() (bool, string) {
		return slices.Contains(p.all(), "reviewd"), strings.Join(p.all(), " ")
	})
	f.mustAsk(map[string]any{"product": "SKU-7", "body": "Does it fit a small kitchen?"})
	apptest.Eventually(t, "the purge of the asked product", 5*time.Second, func() (bool, string) {
		return slices.Contains(p.all(), cdn.ProductTag("variant", "SKU-7")), strings.Join(p.all(), " ")
	})
}

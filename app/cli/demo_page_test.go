package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"reviewd/app"
)

// TestDemoPages: the pretend store's pages use the page script as a store would
// (loader with the site key, data-review-* containers, the server-rendered
// component with its state), under a CSP without inline scripts.
func TestDemoPages(t *testing.T) {
	a := openTestApp(t, t.TempDir())
	info, err := seedDemo(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	srv := app.NewServer(a.Config, a.Clock, a.Log, a.Access, func(s *app.Server) []app.Surface {
		return append(Surfaces(a, s), &demoSurface{info: info, base: "http://localhost:8080", db: a.DB, acc: a.Access, read: a.Read, buyer: a.Buyer})
	})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	get := func(path string) (*http.Response, string) {
		t.Helper()
		res, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	en := info.Channels[1]
	loader := `<script src="/v1/widget.js" data-key="` + en.SiteKey + `" async></script>`
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/demo/", []string{`href="/demo/demo-en/demo-mug-blue"`, `href="/demo/demo-tr/demo-tshirt"`, `href="/demo/index.json"`}},
		{"/demo/demo-en/", []string{loader, `href="/demo/demo-en/demo-candle"`}},
		{"/demo/demo-en/demo-mug-blue", []string{loader, `data-review-version="3"`, `data-review-product="demo-mug-blue"`,
			`rvw--cards rvw-theme-warm`, `<script type="application/json" data-review-state>{"reviews":`,
			`<script type="application/ld+json">{`, `data-review-write`, `£18.00`}},
		{"/demo/demo-en/demo-tshirt?render=client&style=sidebar&theme=night", []string{loader,
			`<div data-review-product="demo-tshirt" data-review-scope="group" data-review-style="sidebar" data-review-theme="night"></div>`}},
		{"/demo/demo-en/demo-candle?render=headless", []string{`data-review-shown="headless"`,
			`<script src="/demo/assets/headless.js"></script>`}},
	} {
		res, body := get(c.path)
		csp := res.Header.Get("Content-Security-Policy")
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Fatalf("%s: %d %v", c.path, res.StatusCode, res.Header)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %s", c.path, w)
			}
		}
		// Inline scripts: only JSON data blocks.
		for _, s := range strings.Split(body, "<script")[1:] {
			if !strings.HasPrefix(s, ` src=`) && !strings.HasPrefix(s, ` type="application/json"`) &&
				!strings.HasPrefix(s, ` type="application/ld+json"`) {
				t.Errorf("%s: inline script <script%.40s", c.path, s)
			}
		}
		if strings.Contains(body, ` style="`) || strings.Contains(body, "<style") {
			t.Errorf("%s: inline style", c.path)
		}
	}
	for _, p := range []string{"/demo/demo-xx/", "/demo/demo-en/nope", "/demo/demo-en/demo-tshirt-s"} {
		if res, _ := get(p); res.StatusCode != 404 {
			t.Errorf("%s: %d", p, res.StatusCode)
		}
	}
	res, _ := get("/demo/demo-en/?prerender=" + "/demo/demo-en/demo-candle")
	if h := res.Header.Get("Speculation-Rules"); h != `"/demo/speculationrules?url=%2Fdemo%2Fdemo-en%2Fdemo-candle"` {
		t.Fatalf("Speculation-Rules %q", h)
	}
	res, body := get("/demo/speculationrules?url=%2Fdemo%2Fdemo-en%2Fdemo-candle")
	if res.Header.Get("Content-Type") != "application/speculationrules+json" ||
		!strings.Contains(body, `"urls":["/demo/demo-en/demo-candle"]`) {
		t.Fatalf("rules: %v %s", res.Header, body)
	}
	if res, _ := get("/demo/speculationrules?url=https://elsewhere.example/"); res.StatusCode != 400 {
		t.Fatalf("foreign rule: %d", res.StatusCode)
	}
	if res, body := get("/demo/assets/demo.css"); res.StatusCode != 200 || !strings.Contains(body, ".pdp") {
		t.Fatalf("demo.css: %d", res.StatusCode)
	}
}

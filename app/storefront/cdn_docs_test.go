package storefront_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// fenced returns the body of the first ``` block of kind in doc.
func fenced(t *testing.T, doc, kind string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "```"+kind+"\n")
	if !ok {
		t.Fatalf("docs/cdn.md has no %s block", kind)
	}
	body, _, _ := strings.Cut(rest, "```")
	return body
}

// TestCDNDocs: the headers docs/cdn.md shows for a list answer are those of a real
// answer, and its nginx example keys the cache on what the answers depend on (the
// whole URI, the Origin), keeps nothing asked with a server key, hides the tags
// and leaves the answers' own Cache-Control in charge (which nginx reads:
// s-maxage first, then max-age; private is never kept).
func TestCDNDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/cdn.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	f := newCDNFx(t)
	f.seed(seedRev{})
	res := f.list("product=SKU-1")
	if res.Status != 200 {
		t.Fatalf("list: %s", res)
	}
	for _, line := range strings.Split(strings.TrimSpace(fenced(t, doc, "http")), "\n") {
		name, want, _ := strings.Cut(line, ": ")
		if got := res.Header.Get(name); got != want {
			t.Errorf("docs/cdn.md: %s: %q, the answer says %q", name, want, got)
		}
	}
	cc := res.Header.Get("Cache-Control")
	if m := regexp.MustCompile(`s-maxage=(\d+)`).FindStringSubmatch(cc); m == nil || m[1] != "300" ||
		strings.Contains(cc, "private") || strings.Contains(cc, "no-store") {
		t.Errorf("a shared cache would not keep %q for five minutes", cc)
	}
	srv := f.Do("GET", "/v1/reviews/list?product=SKU-1&channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if !strings.HasPrefix(srv.Header.Get("Cache-Control"), "private") {
		t.Errorf("a server-key answer is %q", srv.Header.Get("Cache-Control"))
	}

	nginx := fenced(t, doc, "nginx")
	key := regexp.MustCompile(`proxy_cache_key\s+"([^"]+)"`).FindStringSubmatch(nginx)
	if key == nil || !strings.Contains(key[1], "$request_uri") || !strings.Contains(key[1], "$http_origin") {
		t.Errorf("nginx cache key %q must hold $request_uri (site key, product, parameters) and $http_origin (domain check)", key)
	}
	for _, want := range []string{"proxy_no_cache $http_authorization;", "proxy_cache_bypass $http_authorization;",
		"proxy_hide_header Cache-Tag;", "proxy_hide_header Surrogate-Key;", "X-Forwarded-For"} {
		if !strings.Contains(nginx, want) {
			t.Errorf("nginx example lacks %q", want)
		}
	}
	if strings.Contains(nginx, "proxy_ignore_headers") || strings.Contains(nginx, "proxy_cache_valid") {
		t.Error("the nginx example must leave the answers' Cache-Control in charge")
	}
	// Every path the example caches is a public GET of the storefront.
	for _, p := range []string{"/v1/reviews/list", "/v1/ssr", "/v1/questions", "/v1/method-statement"} {
		if !strings.Contains(nginx, strings.TrimPrefix(p, "/")) {
			t.Errorf("nginx example does not cache %s", p)
		}
	}
}

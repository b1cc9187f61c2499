package storefront_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestMethodStatementPage: the public page of the site key's channel, without a
// domain check: HTML with its own strict policy (its stylesheet only, no
// scripts), or JSON built from the market rule and the publishing method, in tr
// and en, with the SHA-256 fingerprint of the text.
func TestMethodStatementPage(t *testing.T) {
	f := newFx(t)
	page := f.Do("GET", "/v1/method-statement?key="+f.site+"&lang=en", nil, nil)
	if page.Status != 200 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %v %s", page.Status, page.Header, page.Body)
	}
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "style-src 'self'") || strings.Contains(csp, "script") {
		t.Fatalf("csp = %q", csp)
	}
	body := string(page.Body)
	if strings.Contains(body, "<script") || !strings.Contains(body, `href="/v1/method-statement.css"`) ||
		!strings.Contains(body, "Only customers who bought the product") || !strings.Contains(body, "180 days") ||
		!strings.Contains(body, `<a href="/v1/transparency/report">Transparency report`) {
		t.Fatalf("page body: %s", body)
	}
	css := f.Do("GET", "/v1/method-statement.css", nil, nil)
	if css.Status != 200 || !strings.HasPrefix(css.Header.Get("Content-Type"), "text/css") || len(css.Body) == 0 {
		t.Fatalf("css: %d %v", css.Status, css.Header)
	}

	js := f.Do("GET", "/v1/method-statement?key="+f.site+"&format=json", nil, nil)
	if js.Status != 200 {
		t.Fatalf("json: want 200, got %s", js)
	}
	text := js.JSON["text"].(string)
	sum := sha256.Sum256([]byte(text))
	if js.JSON["fingerprint"] != hex.EncodeToString(sum[:]) || js.JSON["language"] != "tr" || js.JSON["market"] != "TR" ||
		js.JSON["verification_required"] != true || js.JSON["review_window_days"] != float64(180) ||
		js.JSON["publishing_method"] != "hybrid" || js.JSON["policy_version"] != "TR-2026-10" ||
		js.JSON["imported_reviews"] != false || js.JSON["syndicated_reviews"] != false || len(js.JSON["sections"].([]any)) != 4 {
		t.Fatalf("json = %s", js.Body)
	}
	if s := js.JSON["sort"].(map[string]any); s["locked"] != true || s["default"] != "newest" {
		t.Fatalf("sort = %v", s)
	}
	// The text follows the publishing method: another method, another fingerprint.
	f.setMethod("manual")
	js2 := f.Do("GET", "/v1/method-statement?key="+f.site+"&format=json&lang=tr", nil, nil)
	if js2.JSON["fingerprint"] == js.JSON["fingerprint"] || !strings.Contains(js2.JSON["text"].(string), "ekibimiz okur") {
		t.Fatalf("manual statement: %s", js2.Body)
	}
	// Also by channel code (the hosted address of the panel).
	if res := f.Do("GET", "/v1/method-statement?channel=web&lang=tr&format=json", nil, nil); res.JSON["fingerprint"] != js2.JSON["fingerprint"] {
		t.Fatalf("by channel: %s", res.Body)
	}
	wantCode(t, f.Do("GET", "/v1/method-statement?channel=nope", nil, nil), 403, "refused / unknown_channel")
	wantCode(t, f.Do("GET", "/v1/method-statement", nil, nil), 403, "refused / unknown_site_key")
	wantCode(t, f.Do("GET", "/v1/method-statement?key="+f.site+"&format=pdf", nil, nil), 400, "invalid / format")
}

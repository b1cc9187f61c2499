package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"reviewd/app/core"
	"reviewd/app/platform/platformtest"
)

// TestMethodStatementAdmin: rows for every channel and language with the
// verified domains, the own-page address rules, and the confirmation flow with
// its fingerprint.
func TestMethodStatementAdmin(t *testing.T) {
	o := newOwnerEnv(t)
	res := o.env.Do("GET", "/admin/v1/method-statement", nil, o.read)
	expect(t, res, 200, "")
	items := res.JSON["items"].([]any)
	domains := res.JSON["domains"].([]any)
	if len(items) != 2 || len(domains) != 1 || domains[0].(map[string]any)["domain"] != "shop.example" {
		t.Fatalf("list = %s", res.Body)
	}
	row := items[0].(map[string]any)
	if row["channel"] != "web-tr" || row["channel_label"] != "web-tr store" || row["market"] != "TR" || row["language"] != "tr" ||
		row["state"] != "unconfirmed" || row["confirmed"] != false || row["external_url"] != "" ||
		row["hosted_url"] != "http://reviewd.test/v1/method-statement?channel=web-tr&lang=tr" ||
		row["effective_url"] != row["hosted_url"] || row["current_fingerprint"] == "" {
		t.Fatalf("row = %v", row)
	}
	fp := row["current_fingerprint"].(string)
	one := func() map[string]any {
		t.Helper()
		r := o.env.Do("GET", "/admin/v1/method-statement?channel=web-tr&lang=tr", nil, o.read)
		expect(t, r, 200, "")
		return r.JSON["items"].([]any)[0].(map[string]any)
	}
	expect(t, o.env.Do("GET", "/admin/v1/method-statement?channel=nope&lang=tr", nil, o.read), 400, "invalid / channel")
	expect(t, o.env.Do("GET", "/admin/v1/method-statement?channel=web-tr&lang=de", nil, o.read), 400, "invalid / lang")

	confirm := func(body map[string]any) (int, string) {
		r := o.env.Do("POST", "/admin/v1/method-statement/confirm", body, o.write)
		return r.Status, r.Code()
	}
	expect(t, o.env.Do("POST", "/admin/v1/method-statement/confirm", map[string]any{"channel": "web-tr", "language": "tr",
		"fingerprint": fp}, o.read), 403, "forbidden / scope_missing")
	if s, c := confirm(map[string]any{"channel": "web-tr", "language": "tr", "fingerprint": "0000"}); s != 409 || c != "statement_changed / statement_changed" {
		t.Fatalf("wrong fingerprint: %d %s", s, c)
	}
	if s, c := confirm(map[string]any{"channel": "web-tr", "language": "tr"}); s != 400 || c != "invalid / fingerprint_required" {
		t.Fatalf("no fingerprint: %d %s", s, c)
	}
	if s, c := confirm(map[string]any{"channel": "web-tr", "language": "xx", "fingerprint": fp}); s != 400 || c != "invalid / language" {
		t.Fatalf("bad language: %d %s", s, c)
	}
	r := o.env.Do("POST", "/admin/v1/method-statement/confirm", map[string]any{"channel": "web-tr", "language": "tr", "fingerprint": fp}, o.write)
	expect(t, r, 200, "")
	if r.JSON["state"] != "confirmed" || r.JSON["confirmed"] != true || r.JSON["confirmed_at"] == nil {
		t.Fatalf("confirmed = %s", r.Body)
	}
	// A change of the publishing method changes the text: the confirmation no
	// longer matches, and confirming the old fingerprint is refused.
	if _, err := o.env.App.Brand.UpdateSettings(context.Background(), core.Console(), map[string]json.RawMessage{
		"publishing_method": json.RawMessage(`"manual"`)}); err != nil {
		t.Fatal(err)
	}
	if row := one(); row["state"] != "changed" || row["confirmed"] != false || row["current_fingerprint"] == fp {
		t.Fatalf("after a change: %v", row)
	}
	if s, c := confirm(map[string]any{"channel": "web-tr", "language": "tr", "fingerprint": fp}); s != 409 || c != "statement_changed / statement_changed" {
		t.Fatalf("old fingerprint: %d %s", s, c)
	}

	// Own page address: https on a verified domain of the channel, readable there
	// (fetched over the outbound client; www.shop.example is a local https server).
	var mu sync.Mutex
	var fetched []string
	pages := func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), fetched...) }
	page := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fetched = append(fetched, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/how-we-collect-reviews":
			_, _ = w.Write([]byte("<h1>How we collect reviews</h1>"))
		case "/moved":
			http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
		case "/broken":
			w.WriteHeader(http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}), "www.shop.example")
	o.env.App.SetOutbound(page.Client)
	for path, want := range map[string]string{"/missing": "page_unreadable / http_status: 404",
		"/broken": "page_unreadable / http_status: 500", "/moved": "page_unreadable / redirect_refused"} {
		expect(t, o.env.Do("POST", "/admin/v1/method-statement", map[string]any{"channel": "web-tr", "language": "tr",
			"external_url": "https://www.shop.example" + path}, o.write), 502, want)
	}
	if row := one(); row["external_url"] != "" {
		t.Fatalf("an unreadable page was saved: %v", row)
	}
	save := func(url string) map[string]any {
		t.Helper()
		r := o.env.Do("POST", "/admin/v1/method-statement", map[string]any{"channel": "web-tr", "language": "tr", "external_url": url}, o.write)
		expect(t, r, 200, "")
		return r.JSON
	}
	for url, want := range map[string]string{"http://shop.example/reviews": "invalid / url_invalid", "reviews page": "invalid / url_invalid",
		"https://other.example/reviews": "invalid / host_unverified", "https://notshop.example/x": "invalid / host_unverified"} {
		expect(t, o.env.Do("POST", "/admin/v1/method-statement", map[string]any{"channel": "web-tr", "language": "tr",
			"external_url": url}, o.write), 400, want)
	}
	n := len(pages())
	expect(t, o.env.Do("POST", "/admin/v1/method-statement", map[string]any{"channel": "zz", "language": "tr"}, o.write), 400, "invalid / channel")
	if got := save("https://www.shop.example/how-we-collect-reviews"); got["external_url"] != "https://www.shop.example/how-we-collect-reviews" ||
		got["effective_url"] != got["external_url"] {
		t.Fatalf("saved = %v", got)
	}
	// Refused addresses were never fetched; the saved one was, once.
	if got := pages(); len(got) != n+1 || got[n] != "/how-we-collect-reviews" {
		t.Fatalf("pages fetched: %v", got)
	}
	if got := save(""); got["external_url"] != "" || got["effective_url"] != got["hosted_url"] {
		t.Fatalf("back to hosted = %v", got)
	}
}

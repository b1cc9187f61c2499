package storefront_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/web"
)

// viewer calls GET /v1/viewer for product as the store server; name is the
// percent-encoded X-Service-Customer-Name ("" for none).
func (f *fx) viewer(product, customer, name string) apptest.Response {
	f.T.Helper()
	h := map[string]string{"Authorization": "Bearer " + f.server}
	if customer != "" {
		h["X-Service-Customer"] = customer
	}
	if name != "" {
		h["X-Service-Customer-Name"] = name
	}
	return f.Do("GET", "/v1/viewer?channel=web&product="+url.QueryEscape(product), nil, h)
}

// viewerOrder calls GET /v1/viewer/order as the store server.
func (f *fx) viewerOrder(order, customer string) apptest.Response {
	f.T.Helper()
	h := map[string]string{"Authorization": "Bearer " + f.server, "X-Service-Customer": customer}
	return f.Do("GET", "/v1/viewer/order?channel=web&order="+url.QueryEscape(order), nil, h)
}

// TestViewerAccess: server key only, the customer header rules, no-store and the
// rate limit shared by both viewer endpoints.
func TestViewerAccess(t *testing.T) {
	f := newFx(t)
	for _, path := range []string{"/v1/viewer?product=SKU-1&key=" + f.site, "/v1/viewer/order?order=A-1&key=" + f.site} {
		res := f.Do("GET", path, nil, map[string]string{"Origin": "https://shop.example", "X-Service-Customer": "a@example.com"})
		wantCode(t, res, 403, "refused / server_only")
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("cache-control of a refusal = %q", res.Header.Get("Cache-Control"))
		}
	}
	res := f.Do("GET", "/v1/viewer?product=SKU-1&channel=nope", nil, map[string]string{"Authorization": "Bearer " + f.server,
		"X-Service-Customer": "a@example.com"})
	wantCode(t, res, 403, "refused / unknown_channel")
	for _, c := range []string{"", "no-at-sign", strings.Repeat("a", 243) + "@example.com", "@example.com"} {
		wantCode(t, f.viewer("SKU-1", c, ""), 400, "invalid / customer")
		wantCode(t, f.viewerOrder("A-1", c), 400, "invalid / customer")
	}
	wantCode(t, f.viewer("", "a@example.com", ""), 400, "invalid / product")
	wantCode(t, f.viewer(strings.Repeat("p", 129), "a@example.com", ""), 400, "invalid / product")
	wantCode(t, f.viewerOrder("", "a@example.com"), 400, "invalid / order")
	wantCode(t, f.viewerOrder(strings.Repeat("1", 129), "a@example.com"), 400, "invalid / order_too_long")
	ok := f.viewer("SKU-1", "a@example.com", "")
	if ok.Status != 200 || ok.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("viewer: %d %v", ok.Status, ok.Header)
	}

	// Shared limit: three calls allowed per minute, spread over both endpoints.
	f.Server.Limits.Viewer = web.NewLimiter(3, time.Minute, f.Clock.Now)
	f.viewer("SKU-1", "a@example.com", "")
	f.viewerOrder("A-1", "a@example.com")
	f.viewer("SKU-1", "a@example.com", "")
	wantCode(t, f.viewerOrder("A-1", "a@example.com"), 429, "rate_limited / rate_limited")
	wantCode(t, f.viewer("SKU-1", "a@example.com", ""), 429, "rate_limited / rate_limited")
	f.Clock.Advance(time.Minute)
	if res := f.viewer("SKU-1", "a@example.com", ""); res.Status != 200 {
		t.Fatalf("after a minute: want 200, got %s", res)
	}
}

// TestViewerStates: none without a purchase, can_write with one token and the
// products for a reviewable line, written once reviewed; the customer's own
// reviews; the asker object only while questions are on.
func TestViewerStates(t *testing.T) {
	f := newFx(t)
	f.order("V-1", "Ayse@Example.com", line{ref: "1"}, line{ref: "2", variant: "SKU-2", state: "shipped"})
	f.order("V-2", "someone@example.com", line{ref: "1"})

	none := f.viewer("SKU-1", "new@example.com", "")
	if none.JSON["state"] != "none" || len(none.JSON["reviews"].([]any)) != 0 || none.JSON["token"] != nil ||
		none.JSON["asker"] != nil || none.JSON["limits"].(map[string]any)["body_length"] != float64(5000) {
		t.Fatalf("none = %s", none.Body)
	}
	if res := f.viewer("SKU-2", "ayse@example.com", ""); res.JSON["state"] != "none" {
		t.Fatalf("shipped line: %s", res.Body)
	}
	can := f.viewer("SKU-1", "ayse@example.com", "")
	if can.JSON["state"] != "can_write" {
		t.Fatalf("can_write = %s", can.Body)
	}
	tok := can.JSON["token"].(string)
	products := can.JSON["products"].([]any)
	if len(products) != 1 || products[0].(map[string]any)["line_reference"] != "1" ||
		products[0].(map[string]any)["variant_key"] != "SKU-1" {
		t.Fatalf("products = %v", products)
	}
	// The same page view within the hour gets the same token, stored once.
	again := f.viewer("SKU-1", "ayse@example.com", "")
	if again.JSON["token"] != tok {
		t.Fatalf("token changed within the hour")
	}
	var n int
	if err := f.App.DB.Read().QueryRowForTest(ctx, `SELECT count(*) FROM tokens WHERE kind = 'order_check'`, &n); err != nil || n != 1 {
		t.Fatalf("order_check tokens = %d %v", n, err)
	}
	// The token writes the review (an order-check proof).
	id, _ := f.mustWrite(tok, row("1", map[string]any{"author_name": "Ayşe"}))
	if r := f.review(id); r.VerificationMethod != "order_check" {
		t.Fatalf("proof = %q", r.VerificationMethod)
	}
	written := f.viewer("SKU-1", "ayse@example.com", "")
	reviews := written.JSON["reviews"].([]any)
	if written.JSON["state"] != "written" || written.JSON["token"] != nil || len(reviews) != 1 ||
		reviews[0].(map[string]any)["id"] != id || reviews[0].(map[string]any)["state"] == "" {
		t.Fatalf("written = %s", written.Body)
	}
	// Another customer's purchase does not count.
	if res := f.viewer("SKU-1", "ayse@example.com", ""); strings.Contains(string(res.Body), "someone") {
		t.Fatalf("leak: %s", res.Body)
	}
	// The asker object appears while questions are on, with the decoded name.
	f.questionsOn()
	q := f.viewer("SKU-1", "ayse@example.com", "Ay%C5%9Fe")
	asker, ok := q.JSON["asker"].(map[string]any)
	if !ok || asker["name"] != "Ayşe" || asker["token"] == "" {
		t.Fatalf("asker = %s", q.Body)
	}
	// A review window that has closed ends can_write.
	f.order("V-3", "late@example.com", line{ref: "1", variant: "SKU-3"})
	f.Clock.Advance(200 * 24 * time.Hour)
	if res := f.viewer("SKU-3", "late@example.com", ""); res.JSON["state"] != "none" {
		t.Fatalf("window closed: %s", res.Body)
	}
}

// TestViewerOrder: the state of each line of a customer's order, one token for
// the lines that can be reviewed with their rating topics, the rating of reviewed
// lines; another customer's or an unknown order answers empty lines.
func TestViewerOrder(t *testing.T) {
	f := newFx(t)
	f.fitTemplate()
	f.order("O-1", "ayse@example.com", line{ref: "1", variant: "SKU-A"}, line{ref: "2"}, line{ref: "3", state: "shipped"},
		line{ref: "4", state: "cancelled"}, line{ref: "5"})
	f.orderWith("O-2", "ayse@example.com", "pending", line{ref: "1"})

	for _, tc := range []struct{ order, customer string }{{"O-1", "someone@example.com"}, {"NOPE", "ayse@example.com"}} {
		res := f.viewerOrder(tc.order, tc.customer)
		if res.Status != 200 || len(res.JSON["lines"].([]any)) != 0 || res.JSON["token"] != "" {
			t.Fatalf("%s/%s: %d %s", tc.order, tc.customer, res.Status, res.Body)
		}
	}
	res := f.viewerOrder("O-1", "AYSE@example.com")
	if res.Status != 200 || res.JSON["order"] != "O-1" || res.JSON["language"] != "tr" || res.JSON["theme"] != "warm" ||
		res.JSON["privacy_url"] != "" || res.JSON["words"].(map[string]any)["privacy_notice"] == nil ||
		res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("order = %d %s", res.Status, res.Body)
	}
	tok := res.JSON["token"].(string)
	states := map[string]map[string]any{}
	for _, l := range res.JSON["lines"].([]any) {
		m := l.(map[string]any)
		states[m["line_reference"].(string)] = m
	}
	want := map[string]string{"1": "can_write", "2": "can_write", "3": "waiting", "4": "closed", "5": "can_write"}
	for ref, st := range want {
		if states[ref]["state"] != st {
			t.Fatalf("line %s: %v", ref, states[ref])
		}
	}
	if a, ok := states["1"]["aspects"].([]any); !ok || len(a) != 1 || a[0].(map[string]any)["key"] != "fit" {
		t.Fatalf("aspects of a can_write line: %v", states["1"])
	}
	if _, ok := states["3"]["aspects"]; ok {
		t.Fatalf("aspects on a waiting line: %v", states["3"])
	}
	// Reviewing with the token moves the lines to their review's state and shows the
	// rating; the token covers only reviewable lines.
	f.mustWrite(tok, row("2", map[string]any{"rating": 4}))
	wantCode(t, f.write(tok, row("3")), 403, "token_refused / token_spent")
	res = f.viewerOrder("O-1", "ayse@example.com")
	tok2 := res.JSON["token"].(string)
	if tok2 == "" || tok2 == tok {
		t.Fatalf("new token expected: %q", tok2)
	}
	l2 := res.JSON["lines"].([]any)[1].(map[string]any)
	if l2["state"] != "published" || l2["rating"] != float64(4) {
		t.Fatalf("reviewed line: %v", l2)
	}
	id, _ := f.mustWrite(tok2, row("5", map[string]any{"body": "Mail me at x@example.com"}))
	res = f.viewerOrder("O-1", "ayse@example.com")
	if l5 := res.JSON["lines"].([]any)[4].(map[string]any); l5["state"] != "pending" || l5["rating"] != float64(5) {
		t.Fatalf("pending line: %v", l5)
	}
	f.setState(id, "rejected")
	res = f.viewerOrder("O-1", "ayse@example.com")
	if l5 := res.JSON["lines"].([]any)[4].(map[string]any); l5["state"] != "rejected" {
		t.Fatalf("rejected line: %v", l5)
	}
	if l1 := res.JSON["lines"].([]any)[0].(map[string]any); l1["rating"] != nil {
		t.Fatalf("rating on an unreviewed line: %v", l1)
	}
	// An unpaid order waits.
	res = f.viewerOrder("O-2", "ayse@example.com")
	if l := res.JSON["lines"].([]any)[0].(map[string]any); l["state"] != "waiting" || res.JSON["token"] != "" {
		t.Fatalf("unpaid: %s", res.Body)
	}
	// Once the review window is over, unreviewed lines are closed.
	f.Clock.Advance(200 * 24 * time.Hour)
	res = f.viewerOrder("O-1", "ayse@example.com")
	if l := res.JSON["lines"].([]any)[0].(map[string]any); l["state"] != "closed" || res.JSON["token"] != "" {
		t.Fatalf("window over: %s", res.Body)
	}
}

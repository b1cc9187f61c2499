package storefront_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
)

// eligible posts an order check.
func (f *fx) eligible(order, email string) (int, string, map[string]any) {
	f.T.Helper()
	res := f.post("/v1/eligibility", map[string]any{"order": order, "email": email})
	return res.Status, res.Code(), res.JSON
}

// mustEligible passes the order check and returns the token.
func (f *fx) mustEligible(order, email string) string {
	f.T.Helper()
	st, code, body := f.eligible(order, email)
	if st != 200 {
		f.T.Fatalf("eligibility %s: %d %s", order, st, code)
	}
	return body["token"].(string)
}

// TestEligibilityGeneralRefusal: every failure is the same 403 token_refused /
// not_eligible, whatever the reason.
func TestEligibilityGeneralRefusal(t *testing.T) {
	f := newFx(t)
	f.order("E-1", "ayse@example.com")
	f.orderWith("E-2", "ayse@example.com", "pending")
	f.order("E-3", "ayse@example.com", line{ref: "1", state: "shipped"})
	f.order("E-4", "ayse@example.com")
	f.mustWrite(f.issue(buyer.TokenInvitation, "E-4", "1"), row("1"))
	f.order("E-5", "ayse@example.com", line{ref: "1", state: "returned"})
	// An order of another market (a GB channel) on the TR site.
	f.Channel("web-gb", "GB", "en")
	res := f.Do("POST", "/v1/ingest/orders", map[string]any{"channel": "web-gb", "external_id": "E-6", "payment_state": "paid",
		"placed_at": "2026-05-20T09:00:00Z", "customer_email": "ayse@example.com", "items": []any{map[string]any{
			"line_reference": "1", "variant_key": "SKU-1", "fulfilment_state": "delivered", "delivered_at": "2026-05-30T10:00:00Z"}}},
		map[string]string{"Authorization": "Bearer " + f.server})
	if res.Status >= 300 {
		t.Fatalf("gb order: want a 2xx answer, got %s", res)
	}
	// Review window over: delivered 181 days ago on a TR channel (180 days).
	f.Clock.Advance(-200 * 24 * time.Hour)
	f.order("E-7", "ayse@example.com")
	f.Clock.Advance(200 * 24 * time.Hour)

	for _, c := range []struct{ name, order, email string }{
		{"unknown order", "E-404", "ayse@example.com"},
		{"wrong address", "E-1", "other@example.com"},
		{"unpaid", "E-2", "ayse@example.com"},
		{"not delivered", "E-3", "ayse@example.com"},
		{"already reviewed", "E-4", "ayse@example.com"},
		{"returned", "E-5", "ayse@example.com"},
		{"another market", "E-6", "ayse@example.com"},
		{"window over", "E-7", "ayse@example.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, code, _ := f.eligible(c.order, c.email)
			if st != 403 || code != "token_refused / not_eligible" {
				t.Fatalf("got %d %s", st, code)
			}
		})
	}
	// Malformed requests are told apart (they reveal nothing about orders).
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"email": "a@b.example"}, "invalid / order"},
		{map[string]any{"order": fmt.Sprintf("%0129d", 1), "email": "a@b.example"}, "invalid / order_too_long"},
		{map[string]any{"order": "E-1", "email": "nope"}, "invalid / email_invalid"},
	} {
		wantCode(t, f.post("/v1/eligibility", c.body), 400, c.want)
	}
	// Address case is ignored; the token is for the lines not yet reviewed.
	if st, code, body := f.eligible("E-1", "  AYSE@Example.com "); st != 200 || body["mode"] != "write" || body["expires_at"] == nil {
		t.Fatalf("eligible: %d %s %v", st, code, body)
	}
}

// TestEligibilityTokenSingleUse: an order-check token writes once; it lasts 24
// hours at most.
func TestEligibilityTokenSingleUse(t *testing.T) {
	f := newFx(t)
	f.order("S-1", "ayse@example.com", line{ref: "1"}, line{ref: "2"})
	st, _, body := f.eligible("S-1", "ayse@example.com")
	if st != 200 {
		t.Fatal(st)
	}
	exp, _ := time.Parse(time.RFC3339, body["expires_at"].(string))
	if !exp.Equal(f.Clock.T.Add(24 * time.Hour)) {
		t.Fatalf("expires_at %v", exp)
	}
	tok := body["token"].(string)
	res := f.post("/v1/eligibility/token", map[string]any{"token": tok})
	if res.Status != 200 || len(res.JSON["products"].([]any)) != 2 {
		t.Fatalf("token check: want 200, got %s", res)
	}
	id, _ := f.mustWrite(tok, row("1"))
	if r := f.review(id); r.VerificationMethod != "order_check" || r.Experience != "product" {
		t.Fatalf("review %+v", r)
	}
	wantCode(t, f.write(tok, row("2")), 403, "token_refused / token_spent")
	// The line not reviewed yet can be reached with a new check.
	tok2 := f.mustEligible("S-1", "ayse@example.com")
	res = f.post("/v1/eligibility/token", map[string]any{"token": tok2})
	if ps := res.JSON["products"].([]any); len(ps) != 1 || ps[0].(map[string]any)["line_reference"] != "2" {
		t.Fatalf("products: %s", res.Body)
	}
	f.Clock.Advance(25 * time.Hour)
	wantCode(t, f.write(tok2, row("2")), 403, "token_refused / token_expired")
}

// TestEligibilityRateLimit: 10 failed attempts per hour per address and per order
// number, then 429 even for the right pair; an hour later it works again.
func TestEligibilityRateLimit(t *testing.T) {
	f := newFx(t)
	f.order("R-1", "ayse@example.com")
	for i := 0; i < 10; i++ {
		if st, code, _ := f.eligible("R-1", fmt.Sprintf("guess%d@example.com", i)); st != 403 {
			t.Fatalf("attempt %d: %d %s", i, st, code)
		}
	}
	if st, code, _ := f.eligible("R-1", "guess@example.com"); st != 429 || code != "rate_limited / rate_limited" {
		t.Fatalf("11th: %d %s", st, code)
	}
	if st, _, _ := f.eligible("R-1", "ayse@example.com"); st != 429 {
		t.Fatalf("right pair after 10 failures: %d", st)
	}
	// Per address: ten unknown orders for one address.
	for i := 0; i < 10; i++ {
		f.eligible(fmt.Sprintf("X-%d", i), "mehmet@example.com")
	}
	if st, _, _ := f.eligible("X-99", "MEHMET@example.com"); st != 429 {
		t.Fatalf("address limit: %d", st)
	}
	f.Clock.Advance(time.Hour)
	if st, code, _ := f.eligible("R-1", "ayse@example.com"); st != 200 {
		t.Fatalf("after an hour: %d %s", st, code)
	}
}

// TestEligibilityEqualWork: an unknown order does the same work as a wrong address
// (one look-up and one keyed comparison), so it is not measurably faster.
func TestEligibilityEqualWork(t *testing.T) {
	f := newFx(t)
	f.order("T-1", "ayse@example.com")
	ch, err := f.App.DB.Read().ChannelByCode(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	once := func(order, email string) time.Duration {
		start := time.Now()
		_, err := f.App.Buyer.CheckEligibility(ctx, core.Console(), ch, buyer.EligibilityInput{Order: order, Email: email})
		d := time.Since(start)
		if err != buyer.ErrNotEligible {
			t.Fatalf("got %v", err)
		}
		return d
	}
	// Interleaved, so a change of machine load hits both alike; medians.
	var unknown, wrong []time.Duration
	for i := 0; i < 400; i++ {
		if i%2 == 0 {
			unknown = append(unknown, once("T-404", "ayse@example.com"))
			wrong = append(wrong, once("T-1", "other@example.com"))
		} else {
			wrong = append(wrong, once("T-1", "other@example.com"))
			unknown = append(unknown, once("T-404", "ayse@example.com"))
		}
	}
	median := func(ds []time.Duration) time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	u, w := median(unknown), median(wrong)
	t.Logf("median: unknown order %v, wrong address %v", u, w)
	if float64(u) < 0.8*float64(w) {
		t.Fatalf("unknown order answers faster: %v vs %v", u, w)
	}
}

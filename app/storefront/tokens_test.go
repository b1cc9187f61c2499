package storefront_test

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/buyer"
)

// TestTokenRefusals: every token_refused detail of spec 2, on the token check and
// on review writing.
func TestTokenRefusals(t *testing.T) {
	f := newFx(t)
	f.order("1001", "ayse@example.com", line{ref: "1"}, line{ref: "2"})
	f.Channel("web-gb", "GB", "en")
	gbSite := f.Key("site", "web-gb")

	// A token tagged by another installation (another brand).
	other := apptest.New(t, cli.TestSurfaces)
	foreign := other.App.Buyer.TagToken(core.RandomToken(buyer.TokenBytes))

	invite := f.issue(buyer.TokenInvitation, "1001", "1")
	expired := f.issueUntil(buyer.TokenInvitation, "1001", f.Clock.T.Add(time.Hour), "1")
	written := f.issue(buyer.TokenInvitation, "1001", "2")
	if res := f.write(written, row("2")); res.Status != 201 {
		t.Fatalf("write: want 201, got %s", res)
	}
	id, _ := f.mustWrite(f.issue(buyer.TokenInvitation, "1001", "1"), row("1"))
	correction := f.correction(id)
	f.order("1002", "ayse@example.com")
	spent := f.mustEligible("1002", "ayse@example.com")
	if res := f.write(spent, row("1")); res.Status != 201 {
		t.Fatalf("order check write: want 201, got %s", res)
	}
	f.Clock.Advance(2 * time.Hour)

	cases := []struct {
		name, path, token string
		body              map[string]any
		site              string
		want              string
	}{
		{"unknown", "/v1/eligibility/token", core.RandomToken(32), nil, "", "token_refused / token_unknown"},
		{"unknown tagged", "/v1/eligibility/token", f.App.Buyer.TagToken("nope"), nil, "", "token_refused / token_unknown"},
		{"foreign tenant", "/v1/eligibility/token", foreign, nil, "", "token_refused / token_foreign_tenant"},
		{"expired", "/v1/eligibility/token", expired, nil, "", "token_refused / token_expired"},
		{"spent", "/v1/eligibility/token", spent, nil, "", "token_refused / token_spent"},
		{"foreign market", "/v1/eligibility/token", invite, nil, gbSite, "token_refused / token_foreign_market"},
		{"all written", "/v1/eligibility/token", written, nil, "", "token_refused / token_spent"},
		{"wrong kind: correction writes", "/v1/reviews", correction, map[string]any{"reviews": []any{row("1")}}, "", "token_refused / token_wrong_kind"},
		{"wrong kind: invitation revises", "/v1/reviews/revise", invite, map[string]any{"rating": 4}, "", "token_refused / token_wrong_kind"},
		{"line already written", "/v1/reviews", written, map[string]any{"reviews": []any{row("2")}}, "", "token_refused / line_already_written"},
		{"line out of scope", "/v1/reviews", written, map[string]any{"reviews": []any{row("1")}}, "", "token_refused / line_out_of_scope"},
		{"line unknown", "/v1/reviews", invite, map[string]any{"reviews": []any{row("9")}}, "", "token_refused / line_out_of_scope"},
		{"expired write", "/v1/reviews", expired, map[string]any{"reviews": []any{row("1")}}, "", "token_refused / token_expired"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := map[string]any{"token": c.token}
			for k, v := range c.body {
				body[k] = v
			}
			h := f.browser()
			if c.site != "" {
				h["X-Service-Site-Key"] = c.site
			}
			wantCode(t, f.Do("POST", c.path, body, h), 403, c.want)
		})
	}
}

// TestTokenCheckModes: write lists the writable lines with rating topics, feedback
// (shopping experience) lists lines without topics, revise returns the review.
func TestTokenCheckModes(t *testing.T) {
	f := newFx(t)
	f.order("2001", "ayse@example.com", line{ref: "1"}, line{ref: "2", state: "shipped"}, line{ref: "3", state: "returned"})

	res := f.post("/v1/eligibility/token", map[string]any{"token": f.issue(buyer.TokenInvitation, "2001", "1", "2"), "language": "en"})
	if res.Status != 200 || res.JSON["mode"] != "write" || res.JSON["order_reference"] != "2001" || res.JSON["channel"] != "web" ||
		res.JSON["language"] != "en" {
		t.Fatalf("write: %s", res)
	}
	products := res.JSON["products"].([]any)
	if len(products) != 1 {
		t.Fatalf("only the delivered line is writable: %s", res.Body)
	}
	p := products[0].(map[string]any)
	aspects := p["aspects"].([]any)
	if p["line_reference"] != "1" || p["variant_key"] != "SKU-1" || len(aspects) != 2 {
		t.Fatalf("product: %v", p)
	}
	if a := aspects[0].(map[string]any); a["key"] != "quality" || a["label"] != "Quality" || a["scale"] != 5.0 ||
		len(a["steps"].([]any)) != 5 || a["kind"] != "rating" || a["required"] != false {
		t.Fatalf("aspect: %v", a)
	}
	if lim := res.JSON["limits"].(map[string]any); lim["media_count"] != 6.0 || lim["body_length"] != 5000.0 {
		t.Fatalf("limits: %v", lim)
	}

	res = f.post("/v1/eligibility/token", map[string]any{"token": f.issue(buyer.TokenExperience, "2001", "3")})
	if res.Status != 200 || res.JSON["mode"] != "feedback" || res.JSON["language"] != "tr" {
		t.Fatalf("feedback: want 200, got %s", res)
	}
	p = res.JSON["products"].([]any)[0].(map[string]any)
	if p["line_reference"] != "3" || len(p["aspects"].([]any)) != 0 {
		t.Fatalf("feedback product carries no topics: %v", p)
	}

	photo := f.issue(buyer.TokenInvitation, "2001", "1")
	mid := f.mustUpload(photo, "1", testJPEG(t, 64, 48))
	id, _ := f.mustWrite(photo, row("1", map[string]any{"author_name": "Ayşe Yılmaz", "hide_name": true,
		"aspects": map[string]any{"quality": 4}, "media": []string{mid}}))
	res = f.post("/v1/eligibility/token", map[string]any{"token": f.correction(id)})
	if res.Status != 200 || res.JSON["mode"] != "revise" {
		t.Fatalf("revise: want 200, got %s", res)
	}
	rv := res.JSON["review"].(map[string]any)
	if rv["id"] != id || rv["author_name"] != "Ayşe Yılmaz" || rv["hide_name"] != true || rv["rating"] != 5.0 {
		t.Fatalf("review: %v", rv)
	}
	if ms := rv["media"].([]any); len(ms) != 1 || ms[0].(map[string]any)["id"] != mid || ms[0].(map[string]any)["kind"] != "image" {
		t.Fatalf("media: %v", rv["media"])
	}
	// A correction link of a review that is no longer rejected cannot be used.
	tok := f.correction(id)
	f.setState(id, core.ReviewPending)
	wantCode(t, f.post("/v1/eligibility/token", map[string]any{"token": tok}), 400, "invalid / review_not_revisable")
}

// TestTokensStoredHashed: tokens are 256-bit random values with the installation's
// tag; only their SHA-256 is stored.
func TestTokensStoredHashed(t *testing.T) {
	f := newFx(t)
	f.order("3001", "ayse@example.com")
	tok := f.mustEligible("3001", "ayse@example.com")
	tag, plain, ok := strings.Cut(tok, ".")
	if !ok || tag != f.App.Buyer.TenantTag() || len(plain) != 43 {
		t.Fatalf("token form %q", tok)
	}
	var n int
	if err := f.App.DB.Read().QueryRowForTest(ctx, `SELECT count(*) FROM tokens WHERE token_hash = x'`+
		hex.EncodeToString(core.HashToken(plain))+`' AND kind = 'order_check'`, &n); err != nil || n != 1 {
		t.Fatalf("hashed token not found: %d %v", n, err)
	}
}

package storefront_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/store"
)

// rejectionNotices are the rejection notices queued for an order, to whom.
func (f *fx) rejectionNotices(ext string) []store.Invitation {
	f.T.Helper()
	o, err := f.App.DB.Read().OrderByExternalID(ctx, ext)
	if err != nil {
		f.T.Fatal(err)
	}
	all, err := f.App.DB.Read().InvitationsOfOrder(ctx, o.ID)
	if err != nil {
		f.T.Fatal(err)
	}
	var out []store.Invitation
	for _, m := range all {
		if m.Kind == sending.MsgRejection {
			out = append(out, m)
		}
	}
	return out
}

// TestEligibilityReviewedHint: an order check of an order whose review was
// rejected gets the one general refusal, byte for byte the same as a stranger's,
// and the order's own address is sent the correction link (revise mode) again;
// a wrong address, an unknown order and an order whose review is published send
// nothing; a repeat within the hour sends nothing more, and the check's failure
// limit stops it like any check.
func TestEligibilityReviewedHint(t *testing.T) {
	f := newFx(t)
	f.order("H-1", "ayse@example.com")
	id, _ := f.mustWrite(f.issue(buyer.TokenInvitation, "H-1", "1"), row("1"))
	if _, err := f.App.Reviews.TransitionReview(ctx, core.Console(), id, reviews.ReviewTransitionInput{Event: reviews.EventReject,
		Reason: "off_topic"}); err != nil {
		t.Fatal(err)
	}
	before := len(f.rejectionNotices("H-1")) // the rejection's own notice
	f.Clock.Advance(61 * time.Minute)        // a notice within the hour is not sent again
	f.order("H-2", "can@example.com")
	f.mustWrite(f.issue(buyer.TokenInvitation, "H-2", "1"), row("1"))

	stranger := f.post("/v1/eligibility", map[string]any{"order": "H-404", "email": "ayse@example.com"})
	for _, c := range []struct{ name, order, email string }{
		{"wrong address", "H-1", "other@example.com"},
		{"published review", "H-2", "can@example.com"},
		{"rejected review, the order's address", "H-1", "Ayse@Example.com"},
	} {
		res := f.post("/v1/eligibility", map[string]any{"order": c.order, "email": c.email})
		if res.Status != 403 || res.Code() != "token_refused / not_eligible" || !bytes.Equal(res.Body, stranger.Body) {
			t.Fatalf("%s: %d %s, a stranger gets %s", c.name, res.Status, res.Body, stranger.Body)
		}
	}
	if n := len(f.rejectionNotices("H-2")); n != 0 {
		t.Fatalf("a published review's order got %d notices", n)
	}
	notices := f.rejectionNotices("H-1")
	if len(notices) != before+1 {
		t.Fatalf("rejection notices of H-1: %d, want %d", len(notices), before+1)
	}
	hint := notices[len(notices)-1]
	if hint.Address != "ayse@example.com" || hint.State != sending.StateQueued {
		t.Fatalf("hint = %+v", hint)
	}
	// The notice carries a fresh correction link: it opens in revise mode.
	var p struct {
		Token string `json:"token"`
	}
	raw, err := f.App.Keys.Decrypt(hint.PayloadEnc)
	if err != nil || json.Unmarshal(raw, &p) != nil || p.Token == "" {
		t.Fatalf("hint payload: %s %v", raw, err)
	}
	tok := f.post("/v1/eligibility/token", map[string]any{"token": p.Token})
	if tok.Status != 200 || tok.JSON["mode"] != buyer.ModeRevise {
		t.Fatalf("the hint's link: %s", tok)
	}

	// The page's refusal text says where the link went, in both languages.
	for lang, want := range map[string]string{
		"en": "If this order was already reviewed and the review can still be changed, we have sent a link to change it to the order's e-mail address.",
		"tr": "Bu sipariş zaten değerlendirildiyse ve değerlendirme hâlâ değiştirilebiliyorsa, değiştirme bağlantısını siparişin e-posta adresine gönderdik.",
	} {
		list := f.Do("GET", "/v1/reviews/list?product=SKU-1&lang="+lang, nil, f.browser())
		words, _ := list.JSON["words"].(map[string]any)
		if got, _ := words["not_eligible"].(string); !strings.HasSuffix(got, want) {
			t.Fatalf("%s refusal text %q (%d)", lang, got, list.Status)
		}
	}

	// Again within the hour: the same refusal, no second e-mail.
	f.post("/v1/eligibility", map[string]any{"order": "H-1", "email": "ayse@example.com"})
	if n := len(f.rejectionNotices("H-1")); n != before+1 {
		t.Fatalf("a repeat sent another notice: %d", n)
	}
	// The failure limit of the check (10 per hour per order) stops the check, and
	// with it the hint, once the hour has passed.
	f.Clock.Advance(61 * time.Minute)
	for i := 0; i < 20; i++ {
		f.post("/v1/eligibility", map[string]any{"order": "H-1", "email": "x" + string(rune('a'+i)) + "@example.com"})
	}
	if res := f.post("/v1/eligibility", map[string]any{"order": "H-1", "email": "ayse@example.com"}); res.Status != 429 {
		t.Fatalf("over the limit: %s", res)
	}
	if n := len(f.rejectionNotices("H-1")); n != before+1 {
		t.Fatalf("a check over the limit sent a notice: %d", n)
	}
}

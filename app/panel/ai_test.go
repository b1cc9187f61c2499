package panel_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"reviewd/app"
	"reviewd/app/core/ai"
)

// TestAIPanel: with ai.provider builtin the settings page shows the AI package's
// provider, usage and queue and turns summaries on and sets the reply tone; the
// review page offers a reply draft that fills the reply form (nothing is
// published). While off, neither is shown.
func TestAIPanel(t *testing.T) {
	f := newFixtureWith(t, func(c *app.Config) {
		c.AI = ai.Config{Provider: ai.ProviderBuiltin, DailyRequests: ai.DefaultDailyRequests, MinReviews: ai.DefaultMinReviews}
	})
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	page := b.do("GET", "/panel/settings", nil, nil)
	if page.status != 200 || !strings.Contains(page.body, "data-ai") || !strings.Contains(page.body, "Model calls today") ||
		!strings.Contains(page.body, `name="ai_summary_enabled"`) || strings.Contains(page.body, `name="ai_translation_enabled"`) {
		t.Fatalf("settings page:\n%.3000s", page.body)
	}
	res := b.do("POST", "/panel/settings", url.Values{"csrf": {csrf}, "ai_summary_enabled_shown": {"1"}, "ai_summary_enabled": {"1"},
		"reply_tone": {"warm"}}, nil)
	if res.status != http.StatusSeeOther {
		t.Fatalf("save: %d\n%.300s", res.status, res.body)
	}
	s, err := f.env.App.Brand.SettingsOf(context.Background())
	if err != nil || !s.AISummaryEnabled || s.ReplyTone != "warm" {
		t.Fatalf("settings after save: %+v %v", s, err)
	}

	id := f.waiting(1)[0]
	review := b.do("GET", "/panel/reviews/"+id, nil, nil)
	if !strings.Contains(review.body, "/seller-response/draft") {
		t.Fatalf("no draft form:\n%.300s", review.body)
	}
	draft := b.do("POST", "/panel/reviews/"+id+"/seller-response/draft", url.Values{"csrf": {csrf}}, nil)
	if draft.status != 200 || !strings.Contains(draft.body, "data-reply-draft") || !strings.Contains(draft.body, "Hi Author") {
		t.Fatalf("draft page: %d\n%.3000s", draft.status, draft.body)
	}
	if d, err := f.env.App.Reviews.AdminReviewDetailOf(context.Background(), nil, id); err == nil && d.SellerResponse != nil {
		t.Fatal("a draft was published")
	}

	off := newFixture(t)
	ob := newBrowser(t, off.env)
	ob.signIn("olive", "owner-password-1")
	if p := ob.do("GET", "/panel/settings", nil, nil); strings.Contains(p.body, "data-ai") {
		t.Fatal("AI settings shown while off")
	}
	oid := off.waiting(1)[0]
	if p := ob.do("GET", "/panel/reviews/"+oid, nil, nil); strings.Contains(p.body, "/seller-response/draft") {
		t.Fatal("draft form shown while off")
	}
}

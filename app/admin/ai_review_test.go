package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/reviews"
	"reviewd/store"
	"reviewd/store/storetest"
)

// TestAIReviewCheck: with ai.provider builtin every checked review gets an
// ai_review row in its detail: pass for an ordinary text, hold with
// near_duplicate: <id> for a near copy of another review and spam for an
// advertisement (never for a low rating); a hold flags the review. Off: no row.
func TestAIReviewCheck(t *testing.T) {
	for _, provider := range []string{ai.ProviderBuiltin, ai.ProviderOff} {
		env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
			c.AI = ai.Config{Provider: provider, DailyRequests: 10, MinReviews: 10}
		})
		env.Channel("web", "TR", "tr")
		key := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read", "moderate")}
		ctx := context.Background()
		ch, err := env.App.DB.Read().ChannelByCode(ctx, "web")
		if err != nil {
			t.Fatal(err)
		}
		check := func(rating int, body string) (string, bool) {
			r := storetest.Review(ch, reviews.NewReviewID(), core.ReviewPending, env.Clock.T)
			r.VariantKey, r.Experience, r.Origin, r.Rating, r.Body, r.Language = "SKU-1", core.ExperienceProduct, core.OriginOwn, rating, body, "en"
			r = storetest.CreateReview(t, env.App.DB, r)
			var flagged bool
			if err := env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
				var err error
				flagged, err = env.App.Checks.RunChecks(ctx, tx, r)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return r.PublicID, flagged
		}
		aiRow := func(id string) map[string]any {
			res := env.Do("GET", "/admin/v1/reviews/"+id, nil, key)
			apptest.Expect(t, res, 200, "")
			for _, c := range res.JSON["checks"].([]any) {
				if m := c.(map[string]any); m["check"] == "ai_review" {
					return m
				}
			}
			return nil
		}
		first, flagged := check(1, "The kettle started leaking from the base after one week and the lid never closed properly.")
		row := aiRow(first)
		if provider == ai.ProviderOff {
			if row != nil || flagged {
				t.Fatalf("off: ai_review row %v, flagged %v", row, flagged)
			}
			continue
		}
		if flagged || row == nil || row["outcome"] != "pass" || len(row["reasons"].([]any)) != 0 {
			t.Fatalf("a one-star review: flagged %v, row %v", flagged, row)
		}
		copyID, flagged := check(5, "The kettle started leaking from the base after one week, and the lid never closed properly!")
		row = aiRow(copyID)
		if !flagged || row["outcome"] != "hold" || row["reasons"].([]any)[0] != "near_duplicate: "+first {
			t.Fatalf("near copy: flagged %v, row %v", flagged, row)
		}
		spamID, _ := check(5, "Use my discount code KETTLE20 at checkout, click here for the best price today.")
		if row = aiRow(spamID); row["outcome"] != "hold" || !strings.Contains(fmt.Sprint(row["reasons"]), "spam") {
			t.Fatalf("spam: row %v", row)
		}
	}
}

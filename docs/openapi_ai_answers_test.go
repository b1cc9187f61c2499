package docs_test

import (
	"context"
	"testing"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/reviews"
	"reviewd/docs"
	"reviewd/store/storetest"
)

// TestOpenAPIAIAnswers validates the AI package's answers (ai.provider builtin)
// against the document: status, queue, requests and a reply draft.
func TestOpenAPIAIAnswers(t *testing.T) {
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.AI = ai.Config{Provider: ai.ProviderBuiltin, DailyRequests: 5, MinReviews: 10}
	})
	f := &flow{t: t, v: newValidator(t, docs.OpenAPI), env: env, checked: map[string]bool{}}
	do := f.do
	env.Channel("web", "TR", "tr")
	admin := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read", "moderate")}
	ch, err := env.App.DB.Read().ChannelByCode(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	r := storetest.Review(ch, reviews.NewReviewID(), core.ReviewPublished, env.Clock.T)
	r.VariantKey, r.Experience, r.Origin, r.Rating, r.Body, r.Language = "SKU-1", core.ExperienceProduct, core.OriginOwn, 2, "The lid broke.", "en"
	id := storetest.CreateReview(t, env.App.DB, r).PublicID
	if _, err := env.App.Read.RebuildProductStats(context.Background()); err != nil {
		t.Fatal(err)
	}

	st := do("GET", "/admin/v1/ai", nil, admin, 200)
	if st.JSON["provider"] != "builtin" || st.JSON["last_error"] != nil {
		t.Errorf("status = %s", st)
	}
	q := do("POST", "/admin/v1/ai/requests", map[string]any{"kind": "summary", "product": "SKU-1"}, admin, 202)
	do("POST", "/admin/v1/ai/requests", map[string]any{"kind": "poem"}, admin, 400)
	do("POST", "/admin/v1/ai/requests", map[string]any{"kind": "translation", "review": "r_aaaaaaaaaaaaaaaaaaaa", "language": "en"}, admin, 404)
	tr := do("POST", "/admin/v1/ai/requests", map[string]any{"kind": "translation", "review": id, "language": "tr"}, admin, 202)
	if err := env.App.AI.RunJob(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := do("GET", "/admin/v1/ai/requests/"+q.JSON["id"].(string), nil, admin, 200)
	if done.JSON["state"] != "done" {
		t.Errorf("summary request = %s", done)
	}
	// The builtin provider has no model: a translation fails with its reason.
	failed := do("GET", "/admin/v1/ai/requests/"+tr.JSON["id"].(string), nil, admin, 200)
	if failed.JSON["state"] != "failed" || failed.JSON["error"] != ai.ErrNoModel.Error() {
		t.Errorf("translation request = %s", failed)
	}
	do("GET", "/admin/v1/ai/requests/aireq_999", nil, admin, 404)

	d := do("POST", "/admin/v1/reviews/"+id+"/seller-response/draft", map[string]any{"tone": "warm"}, admin, 200)
	if d.JSON["tone"] != "warm" || d.JSON["generated_by"] != "builtin" || d.JSON["body"] == "" {
		t.Errorf("draft = %s", d)
	}
	do("POST", "/admin/v1/reviews/"+id+"/seller-response/draft", map[string]any{"tone": "rude"}, admin, 400)
	formal := do("POST", "/admin/v1/reviews/"+id+"/seller-response/draft", nil, admin, 200)
	if formal.JSON["tone"] != "formal" { // reply_tone's default
		t.Errorf("draft without a tone = %s", formal)
	}
}

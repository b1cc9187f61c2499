package docs_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/reviews"
	"reviewd/store"
	"reviewd/store/storetest"
)

// TestOpenAPIRepliesAnswers checks the answers of the seller responses, resolution
// notes, reply draft, invitation templates and brand export against the document.
func TestOpenAPIRepliesAnswers(t *testing.T) {
	f := newFlow(t)
	env, do := f.env, f.do
	ctx := context.Background()
	env.Channel("web", "TR", "tr")
	admin := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read", "moderate", "export", "write")}
	env.User(access.NewUser{Username: "olcay", Email: "olcay@shop.example", Role: "owner", Password: "Amber-Kettle-Lighthouse-42"})
	panel := f.signIn("olcay", "Amber-Kettle-Lighthouse-42")

	ch, err := env.App.DB.Read().ChannelByCode(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	r := storetest.Review(ch, reviews.NewReviewID(), core.ReviewPublished, env.Clock.T)
	r.VariantKey, r.Experience, r.Origin, r.Rating, r.Body = "SKU-1", core.ExperienceProduct, core.OriginOwn, 4, "Good kettle."
	id := storetest.CreateReview(t, env.App.DB, r).PublicID
	rv := "/admin/v1/reviews/" + id

	do("POST", rv+"/seller-response", map[string]any{"body": ""}, admin, 400)
	do("POST", rv+"/seller-response", map[string]any{"body": "Change your review to five stars please."}, admin, 409)
	do("POST", rv+"/seller-response", map[string]any{"body": "Thank you for your review."}, admin, 201)
	do("POST", rv+"/seller-response", map[string]any{"body": "Again"}, admin, 409)
	do("PATCH", rv+"/seller-response", map[string]any{"body": "Thank you!"}, admin, 200)
	do("POST", rv+"/resolution", map[string]any{"body": "We sent a replacement."}, admin, 201)
	do("GET", rv+"/trace", nil, admin, 200)
	do("DELETE", rv+"/resolution", nil, admin, 204)
	do("DELETE", rv+"/seller-response", nil, admin, 204)
	do("DELETE", rv+"/seller-response", nil, admin, 404)
	do("POST", rv+"/seller-response/draft", nil, admin, 409)
	do("PUT", rv+"/featured", nil, admin, 200)
	do("PUT", rv+"/featured", nil, admin, 200)
	do("DELETE", rv+"/featured", nil, admin, 204)
	do("DELETE", rv+"/featured", nil, admin, 404)

	tpl := map[string]any{"type": "invitation", "language": "tr", "channel": "web", "subject": "{{brand}}",
		"html": "<p>Merhaba {{customer_name}}</p>{{review_button}}"}
	do("GET", "/admin/v1/invite-templates", nil, admin, 200)
	saved := do("POST", "/admin/v1/invite-templates", tpl, admin, 201)
	do("POST", "/admin/v1/invite-templates", tpl, admin, 400)
	tpl["id"] = saved.JSON["id"]
	do("POST", "/admin/v1/invite-templates", tpl, admin, 200)
	do("POST", "/admin/v1/invite-templates/preview", map[string]any{"id": saved.JSON["id"]}, admin, 200)
	do("POST", "/admin/v1/invite-templates/preview", map[string]any{"type": "invitation", "language": "en", "html": "<p>x</p>",
		"subject": "x"}, admin, 400)
	do("DELETE", "/admin/v1/invite-templates/"+saved.JSON["id"].(string), nil, admin, 204)

	do("GET", "/admin/v1/brand-export", nil, panel, 200)
	do("POST", "/admin/v1/brand-export", nil, admin, 403)
	started := do("POST", "/admin/v1/brand-export", nil, panel, 202)
	xid := started.JSON["id"].(string)
	apptest.Eventually(t, "the archive", 20*time.Second, func() (bool, string) {
		res := env.Do("GET", "/admin/v1/brand-export", nil, panel)
		return strings.Contains(string(res.Body), `"state":"ready"`), string(res.Body)
	})
	do("GET", "/admin/v1/brand-export", nil, panel, 200)
	do("GET", "/admin/v1/brand-export/"+xid+"/download", nil, panel, 200)
	do("GET", "/admin/v1/brand-export/bx_999/download", nil, panel, 404)
	var building store.BrandExport
	if err := env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		building, err = tx.CreateBrandExport(ctx, "", tx.Now.Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	do("GET", "/admin/v1/brand-export/bx_"+strconv.FormatInt(building.ID, 10)+"/download", nil, panel, 404)
}

package admin_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app/sendtest"
)

var reToken = regexp.MustCompile(`#review_token=([A-Za-z0-9_.~-]+)`)

// TestInviteTemplateIncentive: a template tying its reward to the rating or to a
// positive review is refused with invalid / incentive_conditional (tr and en, in
// the subject or the HTML, marked or not); a template marked as carrying an
// incentive for any review is saved with incentive true; the invitation sent from
// it makes the review written with its token incentivised in the admin rows and
// the review-list export, whatever its rating; a template without the mark
// answers as before (no incentive key).
func TestInviteTemplateIncentive(t *testing.T) {
	o := newOwnerEnv(t)
	env := o.env
	smtp := sendtest.StartSMTP(t)
	env.App.SetMailer(smtp.Mailer())
	body := func(subject, html string, incentive bool) map[string]any {
		return map[string]any{"type": "invitation", "language": "tr", "channel": "web-tr", "subject": subject, "html": html,
			"incentive": incentive}
	}
	for _, b := range []map[string]any{
		body("Yorumunuza %10 indirim", "<p>5 yıldızlı yorum bırakın, kupon sizin.</p>{{review_button}}", true),
		body("Olumlu yorumunuza hediye", "<p>{{review_button}}</p>", true),
		body("Yorum", "<p>Olumlu yorum yazana kargo bedava.</p>{{review_button}}", false),
		body("Review", "<p>Get a coupon for a 5-star review!</p>{{review_button}}", true),
		body("Review", "<p>A gift for every <b>positive review</b>.</p>{{review_button}}", true),
		body("Review", "<p>Rate us 5 and save 10%.</p>{{review_button}}", true),
	} {
		expect(t, env.Do("POST", "/admin/v1/invite-templates", b, o.write), 400, "invalid / incentive_conditional")
	}

	plain := env.Do("POST", "/admin/v1/invite-templates", map[string]any{"type": "reminder", "language": "tr", "channel": "web-tr",
		"subject": "Hatırlatma", "html": "<p>{{review_button}}</p>"}, o.write)
	expect(t, plain, 201, "")
	if _, ok := plain.JSON["incentive"]; ok {
		t.Fatalf("a template without an incentive answers with the field: %s", plain)
	}
	saved := env.Do("POST", "/admin/v1/invite-templates", body("{{brand}}: yorumunuza %10 indirim",
		"<p>Olumlu ya da olumsuz, her yoruma %10 indirim kuponu.</p>{{review_button}}", true), o.write)
	expect(t, saved, 201, "")
	if saved.JSON["incentive"] != true {
		t.Fatalf("saved = %s", saved)
	}

	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	o.sendOrders(t, delivered, map[string]string{"INC-1": "ayse@mail.example"})
	msgs := smtp.Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0].HTML, "her yoruma") {
		t.Fatalf("invitations: %v", texts(msgs))
	}
	m := reToken.FindStringSubmatch(msgs[0].Text)
	if m == nil {
		t.Fatalf("no token in %s", msgs[0].Text)
	}
	browser := map[string]string{"X-Service-Site-Key": env.Key("site", "web-tr"), "Origin": "https://shop.example"}
	res := env.Do("POST", "/v1/reviews", map[string]any{"token": m[1], "reviews": []any{map[string]any{"line_reference": "L1",
		"rating": 2, "title": "Idare eder", "body": "Su ısıtıcısı biraz yavaş ısıtıyor.", "author_name": "Ayşe"}}}, browser)
	expect(t, res, 201, "")
	id := res.JSON["reviews"].([]any)[0].(map[string]any)["id"].(string)
	r, err := env.App.DB.Read().ReviewByPublicID(context.Background(), id)
	if err != nil || !r.Incentivized {
		t.Fatalf("review written through an incentive invitation: %+v %v", r, err)
	}
	list := env.Do("GET", "/admin/v1/reviews", nil, o.write)
	expect(t, list, 200, "")
	items := list.JSON["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["incentivized"] != true {
		t.Fatalf("admin rows: %s", list)
	}
	csv := env.Do("GET", "/admin/v1/reviews?export=csv", nil, o.export)
	if csv.Status != 200 || !strings.Contains(strings.SplitN(string(csv.Body), "\n", 2)[0], ",incentivized") ||
		!strings.Contains(string(csv.Body), ",true\n") && !strings.Contains(string(csv.Body), ",true\r\n") {
		t.Fatalf("export: %d %s", csv.Status, csv.Body)
	}
}

// TestNoIncentiveAnswersUnchanged: without an incentive anywhere the admin rows
// and the review-list export carry no incentivized field or column.
func TestNoIncentiveAnswersUnchanged(t *testing.T) {
	o := newOwnerEnv(t)
	env := o.env
	smtp := sendtest.StartSMTP(t)
	env.App.SetMailer(smtp.Mailer())
	o.sendOrders(t, time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC), map[string]string{"N-1": "ayse@mail.example"})
	m := reToken.FindStringSubmatch(smtp.Messages()[0].Text)
	browser := map[string]string{"X-Service-Site-Key": env.Key("site", "web-tr"), "Origin": "https://shop.example"}
	expect(t, env.Do("POST", "/v1/reviews", map[string]any{"token": m[1], "reviews": []any{map[string]any{"line_reference": "L1",
		"rating": 5, "title": "Güzel", "body": "Çok memnunum.", "author_name": "Ayşe"}}}, browser), 201, "")
	list := env.Do("GET", "/admin/v1/reviews", nil, o.write)
	if list.Status != 200 || strings.Contains(string(list.Body), "incentiv") {
		t.Fatalf("admin rows: %s", list)
	}
	csv := env.Do("GET", "/admin/v1/reviews?export=csv", nil, o.export)
	if csv.Status != 200 || strings.Contains(string(csv.Body), "incentiv") {
		t.Fatalf("export: %s", csv.Body)
	}
}

// TestLineIncentiveReview: a review written (through the order check) for a line
// the store sent with "incentive": true is incentivised; one for an unmarked line
// of the same order is not, whatever the ratings.
func TestLineIncentiveReview(t *testing.T) {
	o := newOwnerEnv(t)
	env := o.env
	server := map[string]string{"Authorization": "Bearer " + env.Key("server", "web-tr")}
	browser := map[string]string{"X-Service-Site-Key": env.Key("site", "web-tr"), "Origin": "https://shop.example"}
	expect(t, env.Do("POST", "/v1/ingest/orders", map[string]any{"channel": "web-tr", "external_id": "LI-1", "payment_state": "paid",
		"placed_at": "2026-05-25T12:00:00+03:00", "customer_email": "deniz@mail.example", "items": []any{
			map[string]any{"line_reference": "L1", "variant_key": "LAMP-1", "title": "Desk lamp", "fulfilment_state": "delivered",
				"delivered_at": "2026-05-30T09:00:00Z", "incentive": true},
			map[string]any{"line_reference": "L2", "variant_key": "MUG-1", "title": "Mug", "fulfilment_state": "delivered",
				"delivered_at": "2026-05-30T09:00:00Z"}}}, server), 200, "")
	res := env.Do("POST", "/v1/eligibility", map[string]any{"order": "LI-1", "email": "deniz@mail.example"}, browser)
	expect(t, res, 200, "")
	res = env.Do("POST", "/v1/reviews", map[string]any{"token": res.JSON["token"], "reviews": []any{
		map[string]any{"line_reference": "L1", "rating": 1, "title": "Dim", "body": "Too dim for reading.", "author_name": "Deniz"},
		map[string]any{"line_reference": "L2", "rating": 5, "title": "Nice", "body": "A good mug.", "author_name": "Deniz"}}}, browser)
	expect(t, res, 201, "")
	for i, want := range []bool{true, false} {
		id := res.JSON["reviews"].([]any)[i].(map[string]any)["id"].(string)
		r, err := env.App.DB.Read().ReviewByPublicID(context.Background(), id)
		if err != nil || r.Incentivized != want {
			t.Fatalf("review %d: incentivized %v, want %v (%v)", i, r.Incentivized, want, err)
		}
	}
}

package admin_test

import (
	"encoding/json"
	"mime"
	"net/url"
	"strings"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/core/access"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// storefrontRow returns the list row of review id on the storefront (nil when not
// listed), with the answer.
func storefrontRow(t *testing.T, env *apptest.Env, site, product, id string, headers map[string]string) (map[string]any, apptest.Response) {
	t.Helper()
	h := map[string]string{"Origin": "https://shop.example"}
	for k, v := range headers {
		h[k] = v
	}
	res := env.Do("GET", "/v1/reviews/list?key="+url.QueryEscape(site)+"&product="+product, nil, h)
	if res.Status == 304 {
		return nil, res
	}
	apptest.Expect(t, res, 200, "")
	rows, _ := res.JSON["reviews"].([]any)
	for _, r := range rows {
		if row := r.(map[string]any); row["id"] == id {
			return row, res
		}
	}
	return nil, res
}

// subjectOf decodes an e-mail's subject.
func subjectOf(m sendtest.Mail) string {
	s, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		return m.Header.Get("Subject")
	}
	return s
}

// notices are the e-mails sent other than the writers' confirmations (which
// every POST /v1/reviews sends to the order's address).
func notices(smtp *sendtest.SMTPServer) []sendtest.Mail {
	var out []sendtest.Mail
	for _, m := range smtp.Messages() {
		if s := subjectOf(m); s != "Yorumunuz için teşekkürler" && !strings.HasPrefix(s, "Thank you for your review") {
			out = append(out, m)
		}
	}
	return out
}

func texts(msgs []sendtest.Mail) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, subjectOf(m)+"\n"+m.Text)
	}
	return out
}

// TestSellerResponseFlow writes, changes and withdraws a seller response and a
// resolution note through HTTP with a moderate key and a panel session, with every
// refusal of spec 3, and follows them to the storefront list (no stale cached
// answer), the server-rendered HTML and structured data, the trace, the review
// history, the activity history and the reviewer's e-mail.
func TestSellerResponseFlow(t *testing.T) {
	m := newModEnv(t)
	env := m.env
	smtp := sendtest.StartSMTP(t)
	env.App.SetMailer(smtp.Mailer())
	site := env.Key("site", "web")
	server := env.Key("server", "web")
	id, _ := m.write(review{email: "ayse@mail.example", author: "Ayşe Yılmaz", title: "Gürültülü ama hızlı",
		body: "Suyu çabuk kaynatıyor ama biraz gürültülü.", variant: "SKU-K", product: "Kettle"})
	path := "/admin/v1/reviews/" + id

	// A review waiting for approval takes neither note.
	apptest.Expect(t, env.Do("POST", path+"/seller-response", map[string]any{"body": "Teşekkürler!"}, m.mod), 409,
		"seller_response_refused / parent_review_not_published")
	apptest.Expect(t, env.Do("POST", path+"/resolution", map[string]any{"body": "Sorun çözüldü."}, m.mod), 409,
		"resolution_refused / review_not_live")
	apptest.Expect(t, env.Do("POST", path+"/transition", map[string]any{"event": "approve"}, m.mod), 200, "")

	_, before := storefrontRow(t, env, site, "SKU-K", id, nil)
	etag := before.Header.Get("ETag")
	bearer := map[string]string{"Authorization": "Bearer " + server}
	ssrPath := "/v1/ssr?channel=web&product=SKU-K&name=Kettle"
	ssrBefore := env.Do("GET", ssrPath, nil, bearer)
	apptest.Expect(t, ssrBefore, 200, "")
	apptest.Expect(t, env.Do("GET", ssrPath, nil, map[string]string{"Authorization": "Bearer " + server,
		"If-None-Match": ssrBefore.Header.Get("ETag")}), 304, "")

	// Refusals: body, rights, unknown review, and the text checks.
	apptest.Expect(t, env.Do("POST", path+"/seller-response", map[string]any{"body": "  "}, m.mod), 400, "invalid / body_required")
	apptest.Expect(t, env.Do("POST", path+"/seller-response", map[string]any{"body": strings.Repeat("a", 2001)}, m.mod), 400,
		"invalid / body_too_long")
	apptest.Expect(t, env.Do("POST", path+"/seller-response", map[string]any{"body": "Hi"}, m.read), 403, "forbidden / scope_missing")
	apptest.Expect(t, env.Do("POST", "/admin/v1/reviews/r_aaaaaaaaaaaaaaaaaaaa/seller-response", map[string]any{"body": "Hi"}, m.mod),
		404, "not_found / not_found")
	for _, c := range []struct{ body, code string }{
		{"Yorumunuzu silerseniz size indirim yaparız.", "text_steering"},
		{"Please change your review to five stars and we will refund you.", "text_steering"},
		{"Bize 0532 123 45 67 numarasından ulaşın.", "text_personal_data"},
		{"Write to support@acme.example and we will help.", "text_personal_data"},
		{"This is bullshit, the kettle is fine.", "text_profanity"},
	} {
		apptest.Expect(t, env.Do("POST", path+"/seller-response", map[string]any{"body": c.body}, m.mod), 409,
			"seller_response_refused / "+c.code)
		apptest.Expect(t, env.Do("POST", path+"/resolution", map[string]any{"body": c.body}, m.mod), 409,
			"resolution_refused / "+c.code)
	}
	if n := len(notices(smtp)); n != 0 {
		t.Fatalf("refused replies sent %d e-mails", n)
	}

	// The reply: published at once, the reviewer is told by e-mail (in Turkish).
	reply := "Geri bildiriminiz için teşekkürler, sessiz model yeniden stokta."
	created := env.Do("POST", path+"/seller-response", map[string]any{"body": reply}, m.mod)
	apptest.Expect(t, created, 201, "")
	if created.JSON["body"] != reply || created.JSON["published_at"] == nil || created.JSON["notice"] != "sent" {
		t.Fatalf("created = %s", created)
	}
	msgs := notices(smtp)
	if len(msgs) != 1 || msgs[0].To[0] != "ayse@mail.example" || !strings.Contains(msgs[0].Text, reply) ||
		!strings.Contains(msgs[0].Text, "Gürültülü ama hızlı") || !strings.Contains(subjectOf(msgs[0]), "yanıtladı") ||
		!strings.Contains(msgs[0].HTML, "sessiz model") || !strings.Contains(msgs[0].Text, "/v1/unsubscribe?t=") {
		t.Fatalf("reviewer e-mail: %d messages %v", len(msgs), texts(msgs))
	}
	apptest.Expect(t, env.Do("POST", path+"/seller-response", map[string]any{"body": "Bir daha"}, m.mod), 409,
		"seller_response_refused / seller_response_open")

	// The storefront shows it at once: the old ETag is not answered 304 and the
	// cached list is not served.
	row, res := storefrontRow(t, env, site, "SKU-K", id, map[string]string{"If-None-Match": etag})
	if res.Status != 200 || res.Header.Get("ETag") == etag {
		t.Fatalf("list after the reply kept its ETag: %s", res)
	}
	resp, _ := row["seller_response"].(map[string]any)
	if resp["body"] != reply || resp["published_at"] == nil || row["resolution"] != nil {
		t.Fatalf("row after the reply = %v", row)
	}
	ssrAfter := env.Do("GET", ssrPath, nil, map[string]string{"Authorization": "Bearer " + server,
		"If-None-Match": ssrBefore.Header.Get("ETag")})
	if ssrAfter.Status != 200 || !strings.Contains(string(ssrAfter.Body), "sessiz model") {
		t.Fatalf("ssr after the reply served the old answer: %s", ssrAfter)
	}

	// Changed (no second e-mail), then a resolution note.
	changed := "Teşekkürler; sessiz model yeniden stokta."
	apptest.Expect(t, env.Do("PATCH", path+"/seller-response", map[string]any{"body": "Call 0532 123 45 67"}, m.mod), 409,
		"seller_response_refused / text_personal_data")
	up := env.Do("PATCH", path+"/seller-response", map[string]any{"body": changed}, m.mod)
	apptest.Expect(t, up, 200, "")
	if up.JSON["body"] != changed || up.JSON["published_at"] != created.JSON["published_at"] {
		t.Fatalf("changed = %s (created %s)", up, created)
	}
	resolution := "Ürünü değiştirdik, müşterimiz memnun."
	rs := env.Do("POST", path+"/resolution", map[string]any{"body": resolution}, m.mod)
	apptest.Expect(t, rs, 201, "")
	if rs.JSON["body"] != resolution || rs.JSON["created_at"] == nil {
		t.Fatalf("resolution = %s", rs)
	}
	if n := len(notices(smtp)); n != 1 {
		t.Fatalf("a change or a resolution note sent e-mails: %d", n)
	}
	row, _ = storefrontRow(t, env, site, "SKU-K", id, nil)
	resp, _ = row["seller_response"].(map[string]any)
	res2, _ := row["resolution"].(map[string]any)
	if resp["body"] != changed || res2["body"] != resolution || res2["created_at"] == nil {
		t.Fatalf("row after the change and the note = %v", row)
	}

	// Server-rendered HTML and structured data (Comment by the brand).
	ssr := env.Do("GET", ssrPath, nil, bearer)
	apptest.Expect(t, ssr, 200, "")
	html, _ := ssr.JSON["html"].(string)
	if !strings.Contains(html, `data-review-response="seller"`) || !strings.Contains(html, "sessiz model yeniden stokta") ||
		!strings.Contains(html, `data-review-response="resolution"`) || !strings.Contains(html, "müşterimiz memnun") {
		t.Fatalf("ssr html lacks the notes: %s", html)
	}
	sd, _ := json.Marshal(ssr.JSON["structured_data"])
	if !strings.Contains(string(sd), `"@type":"Comment"`) || !strings.Contains(string(sd), `"text":"`+changed+`"`) ||
		!strings.Contains(string(sd), `"author":{"@type":"Organization","name":"Acme"}`) {
		t.Fatalf("structured data lacks the reply: %s", sd)
	}

	// A temporarily hidden review keeps its notes and takes a resolution note; a
	// reply needs it published.
	apptest.Expect(t, env.Do("POST", path+"/transition", map[string]any{"event": "hide", "reason": "checking"}, m.mod), 200, "")
	apptest.Expect(t, env.Do("POST", path+"/resolution", map[string]any{"body": resolution + " Teşekkürler."}, m.mod), 201, "")
	apptest.Expect(t, env.Do("PATCH", path+"/seller-response", map[string]any{"body": changed}, m.mod), 409,
		"seller_response_refused / parent_review_not_published")
	if row, _ := storefrontRow(t, env, site, "SKU-K", id, nil); row != nil {
		t.Fatalf("hidden review listed: %v", row)
	}
	apptest.Expect(t, env.Do("POST", path+"/transition", map[string]any{"event": "unhide"}, m.mod), 200, "")

	// Trace, history and activity.
	trace := env.Do("GET", path+"/trace", nil, m.export)
	apptest.Expect(t, trace, 200, "")
	if d := env.Do("GET", path, nil, m.mod); d.JSON["seller_response"].(map[string]any)["body"] != changed ||
		d.JSON["resolution"].(map[string]any)["body"] != resolution+" Teşekkürler." {
		t.Fatalf("review detail notes: %s", d)
	}
	tr, _ := trace.JSON["seller_response"].(map[string]any)
	tn, _ := trace.JSON["resolution"].(map[string]any)
	if tr["body"] != changed || tn["body"] != resolution+" Teşekkürler." {
		t.Fatalf("trace notes = %v / %v", tr, tn)
	}
	var kinds []string
	for _, e := range trace.JSON["timeline"].([]any) {
		e := e.(map[string]any)
		if st := e["subject_type"].(string); st == "seller_response" || st == "resolution_note" {
			kinds = append(kinds, st+":"+e["event"].(string))
		}
	}
	if strings.Join(kinds, ",") != "seller_response:seller_response_published,seller_response:seller_response_changed,"+
		"resolution_note:resolution_created,resolution_note:resolution_created" {
		t.Fatalf("trace timeline notes = %v", kinds)
	}
	csv := env.Do("GET", path+"/trace?format=csv", nil, m.export)
	apptest.Expect(t, csv, 200, "")
	if !strings.Contains(string(csv.Body), "seller_response_changed") {
		t.Fatalf("trace csv lacks the reply: %s", csv.Body)
	}

	// Withdrawn, then gone everywhere; withdrawing again is 404.
	apptest.Expect(t, env.Do("DELETE", path+"/seller-response", nil, m.mod), 204, "")
	apptest.Expect(t, env.Do("DELETE", path+"/seller-response", nil, m.mod), 404, "not_found / not_found")
	apptest.Expect(t, env.Do("DELETE", path+"/resolution", nil, m.mod), 204, "")
	apptest.Expect(t, env.Do("DELETE", path+"/resolution", nil, m.mod), 404, "not_found / not_found")
	apptest.Expect(t, env.Do("PATCH", path+"/seller-response", map[string]any{"body": changed}, m.mod), 404, "not_found / not_found")
	row, _ = storefrontRow(t, env, site, "SKU-K", id, nil)
	if row == nil || row["seller_response"] != nil || row["resolution"] != nil {
		t.Fatalf("row after withdrawing = %v", row)
	}
	detail := env.Do("GET", path, nil, m.mod)
	var events []string
	for _, h := range detail.JSON["history"].([]any) {
		events = append(events, h.(map[string]any)["event"].(string))
	}
	for _, want := range []string{"seller_response_published", "seller_response_changed", "seller_response_withdrawn",
		"resolution_created", "resolution_withdrawn"} {
		if !strings.Contains(strings.Join(events, ","), want) {
			t.Fatalf("history lacks %s: %v", want, events)
		}
	}
	log := env.Do("GET", "/admin/v1/audit-log?page_size=200", nil, m.export)
	for _, action := range []string{"seller_response.created", "seller_response.changed", "seller_response.withdrawn",
		"resolution.created", "resolution.withdrawn"} {
		if !strings.Contains(string(log.Body), `"`+action+`"`) {
			t.Fatalf("activity history lacks %s: %s", action, log.Body)
		}
	}

	// A panel session (moderator) replies too; without the CSRF token it is refused.
	env.User(access.NewUser{Username: "mira", Email: "mira@shop.example", Role: "moderator", Password: "Quiet-Lantern-Orchard-9"})
	b := newBrowser(t, env)
	expect(t, b.signIn("mira", "Quiet-Lantern-Orchard-9"), 200, "")
	expect(t, b.do("POST", path+"/seller-response", map[string]any{"body": "Teşekkür ederiz."}, false), 403, "forbidden / csrf_missing")
	panel := b.do("POST", path+"/seller-response", map[string]any{"body": "Teşekkür ederiz."}, true)
	expect(t, panel, 201, "")
	if n := len(notices(smtp)); n != 2 {
		t.Fatalf("second reply: %d e-mails", n)
	}
}

// TestSellerResponseMailSkips: imported reviews and opted-out reviewers get no
// e-mail; the reply is published and the notice says why. An English review gets
// the English e-mail.
func TestSellerResponseMailSkips(t *testing.T) {
	m := newModEnv(t)
	env := m.env
	smtp := sendtest.StartSMTP(t)
	env.App.SetMailer(smtp.Mailer())
	imported := m.raw("web", "published", func(r *store.Review) { r.Origin = "imported" })
	res := env.Do("POST", "/admin/v1/reviews/"+imported+"/seller-response", map[string]any{"body": "Thank you!"}, m.mod)
	apptest.Expect(t, res, 201, "")
	if res.JSON["notice"] != "no_address" {
		t.Fatalf("imported review reply = %s", res)
	}
	gb, _ := m.write(review{channel: "web-gb", email: "sam@mail.example", title: "Quiet enough", body: "Does the job."})
	m.setState(gb, "published")
	en := env.Do("POST", "/admin/v1/reviews/"+gb+"/seller-response", map[string]any{"body": "Thanks, Sam."}, m.mod)
	apptest.Expect(t, en, 201, "")
	msgs := notices(smtp)
	if len(msgs) != 1 || !strings.Contains(subjectOf(msgs[0]), "replied to your review") {
		t.Fatalf("english reply e-mail: %v", texts(msgs))
	}
	optedOut, _ := m.write(review{email: "out@mail.example", title: "Fine", body: "Works."})
	m.setState(optedOut, "published")
	apptest.Expect(t, env.Do("POST", "/v1/unsubscribe?t="+url.QueryEscape(env.App.Sending.UnsubscribeToken("email", "tr", "out@mail.example")),
		nil, nil), 200, "")
	out := env.Do("POST", "/admin/v1/reviews/"+optedOut+"/seller-response", map[string]any{"body": "Teşekkürler."}, m.mod)
	apptest.Expect(t, out, 201, "")
	if out.JSON["notice"] != "opted_out" || len(notices(smtp)) != 1 {
		t.Fatalf("opted-out reply = %s, %d e-mails", out, len(notices(smtp)))
	}

	// A refused e-mail is not retried; the reply stays published and the reason is
	// recorded on it.
	smtp.FailData(550)
	refused, _ := m.write(review{email: "deniz@mail.example", title: "Good", body: "Fine kettle."})
	m.setState(refused, "published")
	failed := env.Do("POST", "/admin/v1/reviews/"+refused+"/seller-response", map[string]any{"body": "Teşekkürler."}, m.mod)
	apptest.Expect(t, failed, 201, "")
	if failed.JSON["notice"] != "failed: smtp_status: 550" {
		t.Fatalf("reply with a refused e-mail = %s", failed)
	}
	again := env.Do("GET", "/admin/v1/reviews/"+refused, nil, m.mod)
	apptest.Expect(t, again, 200, "")
	if !strings.Contains(string(again.Body), "failed: smtp_status: 550") {
		t.Fatalf("review after a refused reply e-mail = %s", again)
	}
}

// TestV2RoutesOff: the reply draft answers 409 seller_response_refused /
// ai_package_off and the /admin/v1/ai routes do not exist in v1.
func TestV2RoutesOff(t *testing.T) {
	m := newModEnv(t)
	id := m.raw("web", "published")
	apptest.Expect(t, m.env.Do("POST", "/admin/v1/reviews/"+id+"/seller-response/draft", nil, m.mod), 409,
		"seller_response_refused / ai_package_off")
	apptest.Expect(t, m.env.Do("POST", "/admin/v1/reviews/r_aaaaaaaaaaaaaaaaaaaa/seller-response/draft", nil, m.mod), 404, "not_found / not_found")
	apptest.Expect(t, m.env.Do("GET", "/admin/v1/ai", nil, m.read), 404, "")
	apptest.Expect(t, m.env.Do("POST", "/admin/v1/ai/requests", map[string]any{}, m.read), 404, "")
}

package admin_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// qaEnv is an owner environment with questions on, a site key and a moderate key.
type qaEnv struct {
	*ownerEnv
	site     string
	moderate map[string]string
}

func newQAEnv(t *testing.T) *qaEnv {
	t.Helper()
	o := newOwnerEnv(t)
	if _, err := o.env.App.Brand.UpdateSettings(context.Background(), core.Console(), map[string]json.RawMessage{
		"questions_enabled": json.RawMessage(`true`)}); err != nil {
		t.Fatal(err)
	}
	return &qaEnv{ownerEnv: o, site: o.env.Key("site", "web-tr"),
		moderate: map[string]string{"Authorization": "Api-Key " + o.env.Key("api", "", "moderate")}}
}

// ask posts a question on the store page and returns its id and state.
func (e *qaEnv) ask(t *testing.T, body map[string]any) (string, string) {
	t.Helper()
	b := map[string]any{"product": "SKU-1", "body": "Does it come with a lid?"}
	for k, v := range body {
		b[k] = v
	}
	res := e.env.Do("POST", "/v1/questions", b, map[string]string{"X-Service-Site-Key": e.site, "Origin": "https://shop.example"})
	expect(t, res, 201, "")
	return res.JSON["id"].(string), res.JSON["state"].(string)
}

// buyerToken ingests a delivered order of SKU-1 and issues an invitation token.
func (e *qaEnv) buyerToken(t *testing.T, ext string) string {
	t.Helper()
	delivered := e.env.Clock.T.Add(-48 * time.Hour)
	_, err := e.env.App.Orders.IngestOrders(context.Background(), core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{
		Channel: "web-tr", ExternalID: ext, PaymentState: "paid", PlacedAt: delivered.Add(-24 * time.Hour).Format(time.RFC3339),
		CustomerEmail: "buyer@mail.example", Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1", Title: "Kettle",
			FulfilmentState: "delivered", DeliveredAt: delivered.Format(time.RFC3339)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var tok string
	err = e.env.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
		o, err := tx.OrderByExternalID(context.Background(), ext)
		if err != nil {
			return err
		}
		lines, err := tx.LinesOfOrder(context.Background(), o.ID)
		if err != nil {
			return err
		}
		plain, _, err := buyer.IssueToken(context.Background(), tx, buyer.TokenInvitation, o, []int64{lines[0].ID},
			e.env.Clock.T.Add(30*24*time.Hour), 0)
		tok = e.env.App.Buyer.TagToken(plain)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// buyerAnswer posts a customer answer and returns its id and state.
func (e *qaEnv) buyerAnswer(t *testing.T, qid, tok, body string) (string, string) {
	t.Helper()
	res := e.env.Do("POST", "/v1/questions/"+qid+"/answers", map[string]any{"body": body, "name": "Deniz Ak"},
		map[string]string{"X-Service-Site-Key": e.site, "Origin": "https://shop.example", "X-Service-Token": tok})
	expect(t, res, 201, "")
	return res.JSON["id"].(string), res.JSON["state"].(string)
}

// TestQuestionAdminListAndDetail: filters, counters, enabled, the detail with the
// asker's full name, answers, notice, events and ledger, and the access log.
func TestQuestionAdminListAndDetail(t *testing.T) {
	e := newQAEnv(t)
	e.env.Channel("web-uk", "GB", "en")
	live, _ := e.ask(t, map[string]any{"name": "Elif Şahin", "email": "elif@mail.example", "hide_name": true})
	waiting, st := e.ask(t, map[string]any{"body": "Visit www.other-shop.com for the answer"})
	if st != "pending" {
		t.Fatalf("flagged question state = %s", st)
	}
	e.env.Clock.Advance(time.Minute)
	answered, _ := e.ask(t, map[string]any{"body": "Which colours are there?"})
	tok := e.buyerToken(t, "Q-1")
	e.buyerAnswer(t, answered, tok, "Red and blue.")
	e.buyerAnswer(t, live, tok, "Call me: 0532 111 22 33")

	res := e.env.Do("GET", "/admin/v1/questions", nil, e.read)
	expect(t, res, 200, "")
	c := res.JSON["counters"].(map[string]any)
	if res.JSON["total"] != float64(3) || res.JSON["enabled"] != true || c["waiting"] != float64(1) ||
		c["unanswered"] != float64(1) || c["answers_waiting"] != float64(1) {
		t.Fatalf("list = %s", res.Body)
	}
	first := res.JSON["items"].([]any)[0].(map[string]any)
	if first["id"] != answered || first["answers"] != float64(1) || first["channel"] != "web-tr" {
		t.Fatalf("newest = %v", first)
	}
	for q, want := range map[string]int{"state=pending": 1, "state=published": 2, "unanswered=1": 1, "answers_waiting=1": 1,
		"q=colours": 1, "q=Elif": 1, "market=TR": 3, "market=GB": 0, "channel=web-tr": 3, "page_size=1&page=3": 1} {
		r := e.env.Do("GET", "/admin/v1/questions?"+q, nil, e.read)
		expect(t, r, 200, "")
		if got := len(r.JSON["items"].([]any)); got != want {
			t.Fatalf("%s: %d items (%s)", q, got, r.Body)
		}
	}
	expect(t, e.env.Do("GET", "/admin/v1/questions?state=lost", nil, e.read), 400, "invalid / state")
	expect(t, e.env.Do("GET", "/admin/v1/questions?channel=nope", nil, e.read), 400, "invalid / channel")
	expect(t, e.env.Do("GET", "/admin/v1/questions?channel=web-uk&market=TR", nil, e.read), 400, "invalid / channel_market_mismatch")
	expect(t, e.env.Do("GET", "/admin/v1/questions?unanswered=yes", nil, e.read), 400, "invalid / unanswered")

	d := e.env.Do("GET", "/admin/v1/questions/"+live, nil, e.read)
	expect(t, d, 200, "")
	answers := d.JSON["answers"].([]any)
	if d.JSON["asker_name"] != "Elif Şahin" || d.JSON["name_hidden"] != true || d.JSON["has_email"] != true ||
		len(answers) != 1 || answers[0].(map[string]any)["author_name"] != "Deniz Ak" ||
		answers[0].(map[string]any)["state"] != "pending" || len(d.JSON["ledger"].([]any)) != 2 {
		t.Fatalf("detail = %s", d.Body)
	}
	if ev := d.JSON["available_events"].([]any); len(ev) != 2 || ev[0] != "rereview" || ev[1] != "hide" {
		t.Fatalf("events = %v", ev)
	}
	if strings.Contains(string(d.Body), "elif@mail.example") {
		t.Fatalf("address shown: %s", d.Body)
	}
	if w := e.env.Do("GET", "/admin/v1/questions/"+waiting, nil, e.read); len(w.JSON["checks"].([]any)) == 0 || w.JSON["flag_open"] != true {
		t.Fatalf("checks of a flagged question: %s", w.Body)
	}
	expect(t, e.env.Do("GET", "/admin/v1/questions/q_aaaaaaaaaaaaaaaaaaaa", nil, e.read), 404, "not_found / not_found")
	if accessCount(t, e.ownerEnv, "questions.listed") == 0 || accessCount(t, e.ownerEnv, "question.viewed") != 2 {
		t.Fatalf("access log: listed %d viewed %d", accessCount(t, e.ownerEnv, "questions.listed"),
			accessCount(t, e.ownerEnv, "question.viewed"))
	}
}

// TestQuestionTransitions: the moderation events of questions and answers, their
// refusals, and the answer e-mail when an answer is approved.
func TestQuestionTransitions(t *testing.T) {
	e := newQAEnv(t)
	smtp := sendtest.StartSMTP(t)
	e.env.App.SetMailer(smtp.Mailer())
	qid, _ := e.ask(t, map[string]any{"body": "Is it safe? see www.x-shop.com", "email": "asker@mail.example"})
	tr := func(path, event string, h map[string]string) map[string]any {
		t.Helper()
		res := e.env.Do("POST", path, map[string]any{"event": event, "reason": "checked"}, h)
		expect(t, res, 200, "")
		return res.JSON
	}
	qpath := "/admin/v1/questions/" + qid + "/transition"
	expect(t, e.env.Do("POST", qpath, map[string]any{"event": "approve"}, e.read), 403, "forbidden / scope_missing")
	expect(t, e.env.Do("POST", qpath, map[string]any{"event": "fly"}, e.moderate), 400, "invalid / event")
	expect(t, e.env.Do("POST", qpath, map[string]any{}, e.moderate), 400, "invalid / event_required")
	expect(t, e.env.Do("POST", qpath, map[string]any{"event": "hide"}, e.moderate), 409, "transition_refused / event_not_available")
	expect(t, e.env.Do("POST", qpath, map[string]any{"event": "reject", "reason": strings.Repeat("r", 1001)}, e.moderate), 400,
		"invalid / reason_too_long")
	if got := tr(qpath, "approve", e.moderate); got["state"] != "published" || got["flag_open"] != false {
		t.Fatalf("approved = %v", got)
	}
	if got := tr(qpath, "hide", e.moderate); got["state"] != "hidden" {
		t.Fatalf("hidden = %v", got)
	}
	// A signed-in owner moderates too.
	if got := e.owner.do("POST", qpath, map[string]any{"event": "unhide"}, true); got.Status != 200 || got.JSON["state"] != "published" {
		t.Fatalf("unhidden = %d %s", got.Status, got.Body)
	}

	tok := e.buyerToken(t, "T-1")
	aid, st := e.buyerAnswer(t, qid, tok, "It is, my kids use it. Mail me x@y.example")
	if st != "pending" || len(smtp.Messages()) != 0 {
		t.Fatalf("flagged answer: %s, %d e-mails", st, len(smtp.Messages()))
	}
	apath := "/admin/v1/answers/" + aid + "/transition"
	expect(t, e.env.Do("POST", apath, map[string]any{"event": "unhide"}, e.moderate), 409, "transition_refused / event_not_available")
	got := tr(apath, "approve", e.moderate)
	if got["state"] != "published" || got["notice"] != "sent" || len(smtp.Messages()) != 1 {
		t.Fatalf("approved answer = %v, %d e-mails", got, len(smtp.Messages()))
	}
	// Hiding and showing it again sends nothing more.
	tr(apath, "hide", e.moderate)
	tr(apath, "unhide", e.moderate)
	if n := len(smtp.Messages()); n != 1 {
		t.Fatalf("e-mails after unhide = %d", n)
	}
	d := e.env.Do("GET", "/admin/v1/questions/"+qid, nil, e.read)
	if n := d.JSON["notice"].(map[string]any); n["result"] != "sent" || n["answer"] != aid {
		t.Fatalf("notice = %v", d.JSON["notice"])
	}
	if l := d.JSON["ledger"].([]any); len(l) != 8 {
		t.Fatalf("ledger = %v", l)
	}
	tr(qpath, "rereview", e.moderate)
	if got := tr(qpath, "reject", e.moderate); got["state"] != "rejected" {
		t.Fatalf("rejected = %v", got)
	}
	if list, _, err := e.env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{Action: "question.reject"}); err != nil || len(list) != 1 {
		t.Fatalf("activity entries = %d %v", len(list), err)
	}
	expect(t, e.env.Do("POST", "/admin/v1/answers/a_aaaaaaaaaaaaaaaaaaaa/transition", map[string]any{"event": "approve"}, e.moderate),
		404, "not_found / not_found")
}

// TestBrandAnswer: the brand answers a live question and publishes at once; the
// asker gets the e-mail; refusals carry answer_refused details.
func TestBrandAnswer(t *testing.T) {
	e := newQAEnv(t)
	smtp := sendtest.StartSMTP(t)
	e.env.App.SetMailer(smtp.Mailer())
	live, _ := e.ask(t, map[string]any{"email": "asker@mail.example", "language": "en"})
	waiting, _ := e.ask(t, map[string]any{"body": "Contact me on asker@mail.example"})
	path := "/admin/v1/questions/" + live + "/answer"
	for _, tc := range []struct{ body, want string }{
		{"", "invalid / body_required"},
		{strings.Repeat("a", 2001), "invalid / body_too_long"},
		{"Please change your review to five stars and we will refund you.", "answer_refused / text_steering"},
		{"Yorumunuzu silerseniz indirim veririz.", "answer_refused / text_steering"},
		{"This kettle cures cancer.", "answer_refused / text_health_claim"},
		{"Write to support@acme.example for details.", "answer_refused / text_personal_data"},
		{"Damn good question, shit happens.", "answer_refused / text_profanity"},
	} {
		status := 409
		if strings.HasPrefix(tc.want, "invalid") {
			status = 400
		}
		expect(t, e.env.Do("POST", path, map[string]any{"body": tc.body}, e.moderate), status, tc.want)
	}
	expect(t, e.env.Do("POST", "/admin/v1/questions/"+waiting+"/answer", map[string]any{"body": "Yes."}, e.moderate), 409,
		"answer_refused / question_not_published")
	expect(t, e.env.Do("POST", path, map[string]any{"body": "Yes."}, e.read), 403, "forbidden / scope_missing")

	res := e.env.Do("POST", path, map[string]any{"body": "Yes, a steel lid is included. See https://shop.example/lid"}, e.moderate)
	expect(t, res, 201, "")
	if res.JSON["kind"] != "brand" || res.JSON["author_name"] != "Acme" || res.JSON["state"] != "published" ||
		res.JSON["verified"] != false || res.JSON["notice"] != "sent" {
		t.Fatalf("brand answer = %s", res.Body)
	}
	msgs := smtp.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "asker@mail.example" || !strings.Contains(msgs[0].Text, "a steel lid is included") {
		t.Fatalf("e-mails = %v", msgs)
	}
	list := e.env.Do("GET", "/v1/questions?product=SKU-1&key="+e.site, nil, map[string]string{"Origin": "https://shop.example"})
	a := list.JSON["questions"].([]any)[0].(map[string]any)["answers"].([]any)[0].(map[string]any)
	if a["kind"] != "brand" || a["author"] != "Acme" || a["verified"] != false {
		t.Fatalf("public brand answer = %v", a)
	}

	// A refused e-mail is not retried: the answer stays published with the reason.
	smtp.FailData(554)
	other, _ := e.ask(t, map[string]any{"email": "second@mail.example", "language": "en"})
	failed := e.env.Do("POST", "/admin/v1/questions/"+other+"/answer", map[string]any{"body": "Yes, it is."}, e.moderate)
	expect(t, failed, 201, "")
	if failed.JSON["state"] != "published" || failed.JSON["notice"] != "failed: smtp_status: 554" {
		t.Fatalf("answer with a refused e-mail = %s", failed.Body)
	}
}

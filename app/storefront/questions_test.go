package storefront_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// questionsOn turns questions and answers on.
func (f *fx) questionsOn() {
	f.T.Helper()
	if _, err := f.App.Brand.UpdateSettings(ctx, core.Console(), map[string]json.RawMessage{
		"questions_enabled": json.RawMessage(`true`)}); err != nil {
		f.T.Fatal(err)
	}
}

// ask posts a question from the store page and returns the answer.
func (f *fx) ask(body any) apptest.Response {
	f.T.Helper()
	return f.post("/v1/questions", body)
}

// mustAsk asks about product SKU-1 and returns the id and state.
func (f *fx) mustAsk(body map[string]any) (string, string) {
	f.T.Helper()
	b := map[string]any{"product": "SKU-1", "body": "Is it dishwasher safe?"}
	for k, v := range body {
		b[k] = v
	}
	res := f.ask(b)
	if res.Status != 201 {
		f.T.Fatalf("ask: want 201, got %s", res)
	}
	return res.JSON["id"].(string), res.JSON["state"].(string)
}

// answer posts a customer answer with a token.
func (f *fx) answer(id, token string, body map[string]any) apptest.Response {
	f.T.Helper()
	h := f.browser()
	if token != "" {
		h["X-Service-Token"] = token
	}
	return f.Do("POST", "/v1/questions/"+id+"/answers", body, h)
}

// questions reads GET /v1/questions with the site key.
func (f *fx) questions(query string) apptest.Response {
	f.T.Helper()
	return f.Do("GET", "/v1/questions?key="+f.site+"&"+query, nil, map[string]string{"Origin": "https://shop.example"})
}

func (f *fx) question(id string) store.Question {
	f.T.Helper()
	x, err := f.App.DB.Read().QuestionByPublicID(ctx, id)
	if err != nil {
		f.T.Fatal(err)
	}
	return x
}

func (f *fx) answerRow(id string) store.Answer {
	f.T.Helper()
	x, err := f.App.DB.Read().AnswerByPublicID(ctx, id)
	if err != nil {
		f.T.Fatal(err)
	}
	return x
}

// TestQuestionsDisabled: while questions are off all three endpoints answer 403
// refused / questions_disabled.
func TestQuestionsDisabled(t *testing.T) {
	f := newFx(t)
	wantCode(t, f.questions("product=SKU-1"), 403, "refused / questions_disabled")
	wantCode(t, f.ask(map[string]any{"product": "SKU-1", "body": "Hello?"}), 403, "refused / questions_disabled")
	wantCode(t, f.answer("q_aaaaaaaaaaaaaaaaaaaa", "x", map[string]any{"body": "Yes"}), 403, "refused / questions_disabled")
	// Turned on, the same calls work (or fail for their own reasons).
	f.questionsOn()
	if res := f.questions("product=SKU-1"); res.Status != 200 {
		t.Fatalf("list: want 200, got %s", res)
	}
}

// TestQuestionErrors: every refusal of POST /v1/questions with its detail; nothing
// is stored.
func TestQuestionErrors(t *testing.T) {
	f := newFx(t)
	f.questionsOn()
	ok := func(mods map[string]any) map[string]any {
		b := map[string]any{"product": "SKU-1", "body": "Is it dishwasher safe?"}
		for k, v := range mods {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	cases := []struct {
		name   string
		body   any
		status int
		want   string
	}{
		{"product missing", ok(map[string]any{"product": nil}), 400, "invalid / product_required"},
		{"product blank", ok(map[string]any{"product": "  "}), 400, "invalid / product_required"},
		{"product 129", ok(map[string]any{"product": strings.Repeat("p", 129)}), 400, "invalid / product_too_long"},
		{"scope", ok(map[string]any{"scope": "shop"}), 400, "invalid / scope"},
		{"body missing", ok(map[string]any{"body": nil}), 400, "invalid / body_required"},
		{"body blank", ok(map[string]any{"body": " \n "}), 400, "invalid / body_required"},
		{"body 1001", ok(map[string]any{"body": strings.Repeat("ğ", 1001)}), 400, "invalid / body_too_long"},
		{"name 121", ok(map[string]any{"name": strings.Repeat("a", 121)}), 400, "invalid / name_too_long"},
		{"email 255", ok(map[string]any{"email": strings.Repeat("a", 243) + "@example.com"}), 400, "invalid / email_too_long"},
		{"email no at", ok(map[string]any{"email": "ayse.example.com"}), 400, "invalid / email_invalid"},
		{"email two addresses", ok(map[string]any{"email": "a@x.com, b@y.com"}), 400, "invalid / email_invalid"},
		{"hide_name text", ok(map[string]any{"hide_name": "yes"}), 400, "invalid / hide_name"},
		{"asker too long", ok(map[string]any{"asker": strings.Repeat("a", 2049)}), 400, "invalid / asker_too_long"},
		{"asker invalid", ok(map[string]any{"asker": "ask1.bm90LWEtdG9rZW4"}), 403, "token_refused / asker_invalid"},
		{"asker garbage", ok(map[string]any{"asker": "hello"}), 403, "token_refused / asker_invalid"},
		{"product number", ok(map[string]any{"product": 12}), 400, "invalid / product"},
		{"not json", "{", 400, "invalid_json / invalid_json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, f.ask(tc.body), tc.status, tc.want)
		})
	}
	var n int
	if err := f.App.DB.Read().QueryRowForTest(ctx, `SELECT count(*) FROM questions`, &n); err != nil || n != 0 {
		t.Fatalf("questions stored: %d %v", n, err)
	}
	// The store page's key and domain rules apply.
	res := f.Do("POST", "/v1/questions", ok(nil), map[string]string{"X-Service-Site-Key": f.site, "Origin": "https://evil.example"})
	wantCode(t, res, 403, "refused / origin_unverified: evil.example")
}

// TestQuestionPublication: a clean question goes live by itself with hybrid and
// automatic, waits with manual; a question with a link, an address, swearing or a
// health claim waits for approval instead of being refused. Published questions
// are pooled per market, newest first, without e-mail addresses.
func TestQuestionPublication(t *testing.T) {
	f := newFx(t)
	f.questionsOn()
	f.Channel("web2", "TR", "en")
	f.Channel("uk", "GB", "en")
	site2, siteUK := f.Key("site", "web2"), f.Key("site", "uk")

	clean, state := f.mustAsk(map[string]any{"name": "Ayşe Yılmaz", "email": "ayse@example.com", "hide_name": true})
	if state != "published" {
		t.Fatalf("hybrid clean question: %s", state)
	}
	for _, body := range []string{"See https://other.example/deal", "Write me at ayse@example.com", "Bu ürün kanseri tedavi eder mi?",
		"Is this shit waterproof?"} {
		if _, state := f.mustAsk(map[string]any{"body": body}); state != "pending" {
			t.Fatalf("flagged %q: %s", body, state)
		}
	}
	f.setMethod("manual")
	if _, state := f.mustAsk(nil); state != "pending" {
		t.Fatalf("manual: %s", state)
	}
	f.setMethod("automatic")
	f.Clock.Advance(time.Minute)
	newest, state := f.mustAsk(map[string]any{"name": "Can", "body": "What is the warranty?"})
	if state != "published" {
		t.Fatalf("automatic: %s", state)
	}
	if x := f.question(clean); x.AskerEmail != "ayse@example.com" || !x.HideName || x.Market != "TR" {
		t.Fatalf("stored question: %+v", x)
	}

	res := f.questions("product=SKU-1&lang=en")
	if res.Status != 200 || res.Header.Get("Cache-Control") != "private, max-age=30" {
		t.Fatalf("list: %d %v %s", res.Status, res.Header, res.Body)
	}
	if strings.Contains(string(res.Body), "example.com") {
		t.Fatalf("an e-mail address is public: %s", res.Body)
	}
	qs := res.JSON["questions"].([]any)
	if len(qs) != 2 || res.JSON["total"] != float64(2) || res.JSON["pages"] != float64(1) || res.JSON["page_size"] != float64(5) ||
		res.JSON["language"] != "en" {
		t.Fatalf("list = %s", res.Body)
	}
	first, second := qs[0].(map[string]any), qs[1].(map[string]any)
	if first["id"] != newest || first["author"] != "Can" || second["id"] != clean || second["author"] != "A*** Y***" {
		t.Fatalf("order or authors: %v / %v", first, second)
	}
	limits := res.JSON["limits"].(map[string]any)
	if limits["question_length"] != float64(1000) || limits["answer_length"] != float64(2000) ||
		limits["name_length"] != float64(120) || limits["email_length"] != float64(254) {
		t.Fatalf("limits = %v", limits)
	}
	// Pooled per market: another TR channel sees them, the GB channel does not.
	r2 := f.Do("GET", "/v1/questions?product=SKU-1&key="+site2, nil, map[string]string{"Origin": "https://shop.example"})
	if r2.JSON["total"] != float64(2) || r2.JSON["language"] != "en" {
		t.Fatalf("other TR channel: %s", r2.Body)
	}
	ruk := f.Do("GET", "/v1/questions?product=SKU-1&key="+siteUK, nil, map[string]string{"Origin": "https://shop.example"})
	if ruk.JSON["total"] != float64(0) {
		t.Fatalf("GB channel: %s", ruk.Body)
	}
	// A server key with channel reads the same list; product is required.
	rs := f.Do("GET", "/v1/questions?product=SKU-1&channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if rs.JSON["total"] != float64(2) {
		t.Fatalf("server key: %s", rs.Body)
	}
	wantCode(t, f.questions("scope=variant"), 400, "invalid / product_required")
	// Paging clamps: page_size at most 20, page at least 1.
	p := f.questions("product=SKU-1&page_size=500&page=0")
	if p.JSON["page_size"] != float64(20) || p.JSON["page"] != float64(1) {
		t.Fatalf("clamped: %s", p.Body)
	}
	p = f.questions("product=SKU-1&page_size=1&page=2")
	if p.JSON["pages"] != float64(2) || len(p.JSON["questions"].([]any)) != 1 ||
		p.JSON["questions"].([]any)[0].(map[string]any)["id"] != clean {
		t.Fatalf("page 2: %s", p.Body)
	}
	// A group question is listed under its group.
	gid, _ := f.mustAsk(map[string]any{"product": "GRP-1", "scope": "group"})
	g := f.questions("product=GRP-1&scope=group")
	if g.JSON["total"] != float64(1) || g.JSON["questions"].([]any)[0].(map[string]any)["id"] != gid {
		t.Fatalf("group list: %s", g.Body)
	}
}

// TestAskerToken: the asker token from GET /v1/viewer replaces name and e-mail,
// is valid for one hour, and cannot be forged or used on another installation.
func TestAskerToken(t *testing.T) {
	f := newFx(t)
	f.questionsOn()
	v := f.viewer("SKU-1", "Ayse@Example.com", "Ay%C5%9Fe%20Y%C4%B1lmaz")
	asker := v.JSON["asker"].(map[string]any)
	if asker["name"] != "Ayşe Yılmaz" || asker["token"] == "" {
		t.Fatalf("asker = %v", asker)
	}
	tok := asker["token"].(string)
	if strings.Contains(tok, "Example") || strings.Contains(tok, "Ay") && strings.Contains(tok, "lmaz") {
		t.Fatalf("asker token readable: %s", tok)
	}
	id, _ := f.mustAsk(map[string]any{"asker": tok, "name": "ignored", "email": "other@example.com"})
	x := f.question(id)
	if x.AskerName != "Ayşe Yılmaz" || x.AskerEmail != "Ayse@Example.com" || !x.SignedIn {
		t.Fatalf("asked with token: %+v", x)
	}
	// Tampered: the last characters changed.
	bad := tok[:len(tok)-4] + "AAAA"
	if bad == tok {
		bad = tok[:len(tok)-4] + "BBBB"
	}
	wantCode(t, f.ask(map[string]any{"product": "SKU-1", "body": "Hi?", "asker": bad}), 403, "token_refused / asker_invalid")
	// Another installation cannot open it.
	other := newFx(t)
	other.questionsOn()
	wantCode(t, other.ask(map[string]any{"product": "SKU-1", "body": "Hi?", "asker": tok}), 403, "token_refused / asker_invalid")
	// Valid until one hour after issue.
	f.Clock.Advance(59 * time.Minute)
	f.mustAsk(map[string]any{"asker": tok})
	f.Clock.Advance(time.Minute)
	wantCode(t, f.ask(map[string]any{"product": "SKU-1", "body": "Hi?", "asker": tok}), 403, "token_refused / asker_expired")
}

// TestAnswerRules: a customer answers only with a review-invitation (or
// order-check) token whose order holds the question's product on a line that was
// not cancelled or returned; a used token still works; the question must be live
// and of the site's market.
func TestAnswerRules(t *testing.T) {
	f := newFx(t)
	f.questionsOn()
	f.order("A-1", "buyer@example.com", line{ref: "1"}, line{ref: "2", variant: "SKU-9", group: "GRP-9"})
	f.order("A-2", "other@example.com", line{ref: "1", variant: "SKU-7"})
	f.order("A-3", "gone@example.com", line{ref: "1", state: "cancelled"}, line{ref: "2", variant: "SKU-8", state: "returned"})
	f.order("A-4", "late@example.com", line{ref: "1", state: "shipped"})
	qid, _ := f.mustAsk(map[string]any{"email": "asker@example.com"})
	inv := f.issue(buyer.TokenInvitation, "A-1", "1")
	ok := map[string]any{"body": "Yes, it is.", "name": "Mehmet Kaya", "hide_name": true}

	wantCode(t, f.answer(qid, "", ok), 401, "token_required / token_required")
	wantCode(t, f.answer(qid, inv, map[string]any{"body": ""}), 400, "invalid / body_required")
	wantCode(t, f.answer(qid, inv, map[string]any{"body": strings.Repeat("a", 2001)}), 400, "invalid / body_too_long")
	wantCode(t, f.answer(qid, inv, map[string]any{"body": "ok", "name": strings.Repeat("a", 121)}), 400, "invalid / name_too_long")
	wantCode(t, f.answer(qid, inv, map[string]any{"body": "ok", "hide_name": 1}), 400, "invalid / hide_name")
	wantCode(t, f.answer("q_aaaaaaaaaaaaaaaaaaaa", inv, ok), 404, "not_found / not_found")
	wantCode(t, f.answer(qid, "nope", ok), 403, "token_refused / token_unknown")
	wantCode(t, f.answer(qid, f.issue(buyer.TokenExperience, "A-3", "1"), ok), 403, "token_refused / token_wrong_kind")
	wantCode(t, f.answer(qid, f.issue(buyer.TokenInvitation, "A-2", "1"), ok), 403, "token_refused / not_a_buyer")
	wantCode(t, f.answer(qid, f.issue(buyer.TokenInvitation, "A-3", "2"), ok), 403, "token_refused / not_a_buyer")
	wantCode(t, f.answer(qid, f.issueUntil(buyer.TokenInvitation, "A-1", f.Clock.T.Add(-time.Minute), "1"), ok), 403,
		"token_refused / token_expired")

	// An invitation token already used for a review still answers.
	if _, state := f.mustWrite(inv, row("1")); state == "" {
		t.Fatal("review not written")
	}
	res := f.answer(qid, inv, ok)
	if res.Status != 201 || res.JSON["state"] != "published" {
		t.Fatalf("answer: want 201, got %s", res)
	}
	aid := res.JSON["id"].(string)
	if a := f.answerRow(aid); a.Kind != "buyer" || a.AuthorName != "Mehmet Kaya" || a.LineID == 0 {
		t.Fatalf("stored answer: %+v", a)
	}
	// A line not yet delivered is still a purchase; an order check token works too.
	if res := f.answer(qid, f.issue(buyer.TokenInvitation, "A-4", "1"), map[string]any{"body": "Mine is on its way."}); res.Status != 201 {
		t.Fatalf("undelivered buyer: want 201, got %s", res)
	}
	oc := f.issue(buyer.TokenOrderCheck, "A-1", "1")
	if res := f.answer(qid, oc, map[string]any{"body": "Works for me."}); res.Status != 201 {
		t.Fatalf("order check token: want 201, got %s", res)
	}
	// A correction link is not a buying proof for answers.
	wantCode(t, f.answer(qid, f.correction(f.reviewOfLine("A-1", "1")), ok), 403, "token_refused / token_wrong_kind")

	// Published: verified buyer answers in publication order; the asker's address
	// and the answerer's full name stay private.
	list := f.questions("product=SKU-1")
	q := list.JSON["questions"].([]any)[0].(map[string]any)
	answers := q["answers"].([]any)
	a0 := answers[0].(map[string]any)
	if len(answers) != 3 || a0["id"] != aid || a0["kind"] != "buyer" || a0["verified"] != true || a0["author"] != "M*** K***" {
		t.Fatalf("answers = %v", answers)
	}
	if strings.Contains(string(list.Body), "@") || strings.Contains(string(list.Body), "Mehmet") {
		t.Fatalf("private data in the list: %s", list.Body)
	}

	// A group question matches the line's group; a waiting question is not found.
	gq, _ := f.mustAsk(map[string]any{"product": "GRP-9", "scope": "group"})
	if res := f.answer(gq, f.issue(buyer.TokenInvitation, "A-1", "2"), map[string]any{"body": "Same group."}); res.Status != 201 {
		t.Fatalf("group answer: want 201, got %s", res)
	}
	pending, _ := f.mustAsk(map[string]any{"body": "Mail me: x@example.com"})
	wantCode(t, f.answer(pending, inv, ok), 404, "not_found / not_found")
	// A question of another market is not found from this site.
	f.Channel("uk", "GB", "en")
	uk := f.Key("site", "uk")
	res = f.Do("POST", "/v1/questions", map[string]any{"product": "SKU-1", "body": "Fits UK plugs?"},
		map[string]string{"X-Service-Site-Key": uk, "Origin": "https://shop.example"})
	if res.Status != 201 {
		t.Fatalf("uk question: want 201, got %s", res)
	}
	wantCode(t, f.answer(res.JSON["id"].(string), inv, ok), 404, "not_found / not_found")
	// A flagged answer waits for approval.
	if res := f.answer(qid, inv, map[string]any{"body": "Call me on 0532 123 45 67"}); res.JSON["state"] != "pending" {
		t.Fatalf("flagged answer: %s", res.Body)
	}
}

// reviewOfLine returns the public id of the review of an order line.
func (f *fx) reviewOfLine(ext, ref string) string {
	f.T.Helper()
	q := f.App.DB.Read()
	o, err := q.OrderByExternalID(ctx, ext)
	if err != nil {
		f.T.Fatal(err)
	}
	l, err := q.LineByReference(ctx, o.ID, ref)
	if err != nil {
		f.T.Fatal(err)
	}
	r, err := q.ReviewByLine(ctx, l.ID)
	if err != nil {
		f.T.Fatal(err)
	}
	return r.PublicID
}

// TestAnswerEmails: when an answer goes live the asker gets an e-mail in the
// brand's name, at most 5 per address in 24 hours, never to an address on the
// opt-out list, never without an address.
func TestAnswerEmails(t *testing.T) {
	f := newFx(t)
	f.questionsOn()
	smtp := sendtest.StartSMTP(t)
	f.App.SetMailer(smtp.Mailer())
	f.order("E-1", "buyer@example.com")
	tok := f.issue(buyer.TokenInvitation, "E-1", "1")
	qid, _ := f.mustAsk(map[string]any{"email": "Asker@Example.com", "name": "Zeynep"})
	var ids []string
	for i := 0; i < 6; i++ {
		res := f.answer(qid, tok, map[string]any{"body": fmt.Sprintf("Answer number %d.", i+1)})
		if res.Status != 201 || res.JSON["state"] != "published" {
			t.Fatalf("answer %d: %d %s", i, res.Status, res.Body)
		}
		ids = append(ids, res.JSON["id"].(string))
		f.Clock.Advance(time.Minute)
	}
	msgs := smtp.Messages()
	if len(msgs) != 5 {
		t.Fatalf("answer e-mails = %d, want 5", len(msgs))
	}
	m := msgs[0]
	if m.To[0] != "Asker@Example.com" || !strings.Contains(m.Header.Get("From"), "Acme") ||
		!strings.Contains(m.Text, "Answer number 1.") || !strings.Contains(m.Text, "Is it dishwasher safe?") ||
		m.Header.Get("List-Unsubscribe") == "" {
		t.Fatalf("answer e-mail: %v\n%s", m.Header, m.Text)
	}
	if n := f.answerRow(ids[0]).Notice; n != "sent" {
		t.Fatalf("notice of the first = %q", n)
	}
	if n := f.answerRow(ids[5]).Notice; n != "skipped: daily_limit" {
		t.Fatalf("notice of the sixth = %q", n)
	}
	// The cap is per address over 24 hours: once the first e-mail is a day old,
	// one more may go.
	f.Clock.Advance(24*time.Hour - 5*time.Minute)
	f.answer(qid, tok, map[string]any{"body": "Answer number 7."})
	if n := len(smtp.Messages()); n != 6 {
		t.Fatalf("after a day: %d e-mails", n)
	}
	// An opted-out address gets nothing.
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.AddOptOut(ctx, store.OptOut{Address: "quiet@example.com", ChannelKind: "email", Reason: "unsubscribe_link", Source: "link"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	quiet, _ := f.mustAsk(map[string]any{"email": "QUIET@example.com"})
	res := f.answer(quiet, tok, map[string]any{"body": "Yes."})
	if n := f.answerRow(res.JSON["id"].(string)).Notice; n != "skipped: opted_out" {
		t.Fatalf("opted out notice = %q", n)
	}
	// No address, no e-mail.
	anon, _ := f.mustAsk(nil)
	res = f.answer(anon, tok, map[string]any{"body": "Yes."})
	if n := f.answerRow(res.JSON["id"].(string)).Notice; n != "skipped: no_address" {
		t.Fatalf("no address notice = %q", n)
	}
	if n := len(smtp.Messages()); n != 6 {
		t.Fatalf("e-mails = %d", n)
	}
}

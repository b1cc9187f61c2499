package admin_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/store"
)

// privacyEnv is a moderation installation with a signed-in owner (who handles
// personal-data requests) and a signed-in manager (who does not).
type privacyEnv struct {
	*modEnv
	owner, manager *browser
}

func newPrivacyEnv(t *testing.T) *privacyEnv {
	t.Helper()
	m := newModEnv(t)
	m.env.User(access.NewUser{Username: "olcay", Email: "olcay@shop.example", Role: "owner", Password: panelPassword})
	m.env.User(access.NewUser{Username: "mert", Email: "mert@shop.example", Role: "manager", Password: panelPassword})
	p := &privacyEnv{modEnv: m, owner: newBrowser(t, m.env), manager: newBrowser(t, m.env)}
	expect(t, p.owner.signIn("olcay", panelPassword), 200, "")
	expect(t, p.manager.signIn("mert", panelPassword), 200, "")
	return p
}

// open opens a request as the owner and returns its id.
func (p *privacyEnv) open(kind, identifier string) string {
	p.t.Helper()
	res := p.owner.do("POST", "/admin/v1/subject-requests", map[string]any{"kind": kind, "identifier": identifier, "note": "by phone call"}, true)
	expect(p.t, res, 201, "")
	if res.JSON["state"] != "received" || res.JSON["completed_at"] != nil || res.JSON["can_copy"] != false ||
		res.JSON["kind"] != kind || res.JSON["affected_reviews"] != float64(0) || res.JSON["purged_media"] != float64(0) {
		p.t.Fatalf("new request: %s", res)
	}
	return res.JSON["id"].(string)
}

// activity lists the activity entries of an action.
func (p *privacyEnv) activity(action string) []store.Activity {
	p.t.Helper()
	list, _, err := p.env.App.DB.Read().ListActivity(p.ctx, store.ActivityFilter{Action: action})
	if err != nil {
		p.t.Fatal(err)
	}
	return list
}

// question stores a question (and optionally a buyer answer with an order) directly.
func (p *privacyEnv) question(asker, email, body string) store.Question {
	p.t.Helper()
	ch := p.channel("web")
	var x store.Question
	p.tx(func(tx *store.Tx) error {
		var err error
		x, err = tx.CreateQuestion(p.ctx, store.Question{PublicID: core.NewPublicID("q_"), ChannelID: ch.ID, Market: "TR", Scope: "variant",
			VariantKey: "SKU-1", Language: "tr", AskerName: asker, AskerEmail: email, Body: body, State: "published"})
		return err
	})
	return x
}

func (p *privacyEnv) answer(questionID int64, orderExt, author, body string) store.Answer {
	p.t.Helper()
	ch := p.channel("web")
	var a store.Answer
	p.tx(func(tx *store.Tx) error {
		o, err := tx.OrderByExternalID(p.ctx, orderExt)
		if err != nil {
			return err
		}
		a, err = tx.CreateAnswer(p.ctx, store.Answer{PublicID: core.NewPublicID("a_"), QuestionID: questionID, Kind: "buyer", ChannelID: ch.ID,
			OrderID: o.ID, AuthorName: author, Body: body, Language: "tr", State: "published"})
		return err
	})
	return a
}

// TestSubjectRequestErasure: an erasure by e-mail address replaces names and contact
// details in the person's review, question and answer texts with marks, removes the
// author's, asker's and buyer answer's personal data, purges media when asked and
// pseudonymises the order through the order erasure; other people's data stays.
func TestSubjectRequestErasure(t *testing.T) {
	p := newPrivacyEnv(t)
	ext := p.order(review{channel: "web", email: "ayse.yilmaz@mail.example", variant: "SKU-1", product: "Kettle"})
	mid := p.upload(ext, photo(t, 700, 500))
	id := p.writeFor(ext, review{channel: "web", title: "Ayşe loves it", author: "Ayşe Yılmaz", media: []string{mid},
		body: "Write to ayse.yilmaz@mail.example or call +90 532 123 45 67. Yılmaz family approves."})
	p.runMedia()
	other, _ := p.write(review{email: "someone@mail.example", author: "Deniz Kaya", body: "Deniz says it boils fast."})
	x := p.question("Ayşe Yılmaz", "AYSE.YILMAZ@mail.example", "Does it fit? Ayşe, 0532 123 45 67")
	otherQ := p.question("Can Demir", "can@mail.example", "Is it loud?")
	ans := p.answer(otherQ.ID, ext, "Ayşe Yılmaz", "Not loud, says Ayşe (ayse.yilmaz@mail.example).")
	var brandAns store.Answer
	p.tx(func(tx *store.Tx) error {
		var err error
		brandAns, err = tx.CreateAnswer(p.ctx, store.Answer{PublicID: core.NewPublicID("a_"), QuestionID: otherQ.ID, Kind: "brand",
			ChannelID: otherQ.ChannelID, AuthorName: "Acme", Body: "We wrote to ayse.yilmaz@mail.example about it.", Language: "tr", State: "published"})
		return err
	})

	rid := p.open("erasure", "Ayse.Yilmaz@mail.example")
	res := p.owner.do("GET", "/admin/v1/subject-requests/"+rid+"?preview=1", nil, false)
	expect(t, res, 200, "")
	pv := res.JSON["preview"].(map[string]any)
	if pv["orders"] != float64(1) || pv["reviews"] != float64(1) || pv["questions"] != float64(1) || pv["answers"] != float64(2) ||
		pv["media"] != float64(1) || res.JSON["identifier"] != "ayse.yilmaz@mail.example" || res.JSON["note"] != "by phone call" {
		t.Fatalf("preview: %s", res)
	}
	if got := p.accessLog("subject_request.previewed"); len(got) != 1 || got[0].Via != "session" || got[0].TargetID != rid {
		t.Fatalf("previewed in the access log: %+v", got)
	}

	// A manager, a key and a request without the CSRF header are refused; nothing changes.
	expect(t, p.manager.do("POST", "/admin/v1/subject-requests/"+rid+"/complete", nil, true), 403, "forbidden / scope_missing")
	expect(t, p.do("POST", "/admin/v1/subject-requests/"+rid+"/complete", nil, p.all), 403, "forbidden / scope_missing")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+rid+"/complete", nil, false), 403, "forbidden / csrf_missing")
	if r := p.get(id); !r.AnonymizedAt.IsZero() {
		t.Fatal("refused completion changed the review")
	}

	res = p.owner.do("POST", "/admin/v1/subject-requests/"+rid+"/complete", map[string]any{"purge_media": true}, true)
	expect(t, res, 200, "")
	if res.JSON["state"] != "completed" || res.JSON["affected_reviews"] != float64(1) || res.JSON["purged_media"] != float64(1) ||
		res.JSON["completed_at"] == nil || res.JSON["can_copy"] != false || res.JSON["handler"] != "olcay" {
		t.Fatalf("completed: %s", res)
	}
	r := p.get(id)
	if r.Body != "Write to [email] or call [phone]. [name] family approves." || r.Title != "[name] loves it" || r.AuthorName != "" ||
		r.AnonymizedAt.IsZero() {
		t.Fatalf("erased review: title %q body %q author %q", r.Title, r.Body, r.AuthorName)
	}
	if o := p.get(other); o.AuthorName != "Deniz Kaya" || o.Body != "Deniz says it boils fast." || !o.AnonymizedAt.IsZero() {
		t.Fatalf("another person's review changed: %+v", o)
	}
	q := p.env.App.DB.Read()
	if got, _ := q.QuestionByID(p.ctx, x.ID); got.AskerName != "" || got.AskerEmail != "" || got.Body != "Does it fit? [name], [phone]" || got.AnonymizedAt.IsZero() {
		t.Fatalf("erased question: %+v", got)
	}
	if got, _ := q.QuestionByID(p.ctx, otherQ.ID); got.AskerName != "Can Demir" || got.AskerEmail != "can@mail.example" {
		t.Fatalf("another person's question changed: %+v", got)
	}
	if got, _ := q.AnswerByID(p.ctx, ans.ID); got.AuthorName != "" || got.Body != "Not loud, says [name] ([email])." || got.AnonymizedAt.IsZero() {
		t.Fatalf("erased answer: %+v", got)
	}
	if got, _ := q.AnswerByID(p.ctx, brandAns.ID); got.AuthorName != "Acme" || got.Body != "We wrote to [email] about it." {
		t.Fatalf("brand answer naming the address: %+v", got)
	}
	o, _ := q.OrderByExternalID(p.ctx, ext)
	if !o.Erased() || !strings.HasPrefix(o.CustomerEmail, "erased:") {
		t.Fatalf("order not pseudonymised: %+v", o)
	}
	if e := p.activity("order.erased"); len(e) != 1 || !strings.Contains(e[0].Detail, `"deletion_request"`) {
		t.Fatalf("order erasure entry: %+v", e)
	}
	if m, _ := q.MediaByPublicID(p.ctx, mid); m.State != store.MediaRemoved || m.RemovalReason != "data_subject_request" {
		t.Fatalf("media not purged: %+v", m)
	}
	expect(t, p.do("GET", "/admin/v1/reviews/"+id+"/media/"+mid+"/image.jpg", nil, p.read), 404, "not_found / not_found")
	if h := p.history(id); h[len(h)-1].Event != "anonymized" {
		t.Fatalf("review history: %+v", h)
	}
	// An erased review can no longer be approved.
	expect(t, p.transition(id, "approve", ""), 409, "transition_refused / review_anonymized")
	if e := p.activity("subject_request.completed"); len(e) != 1 || e[0].ActorName != "olcay" || e[0].TargetID != rid ||
		!strings.Contains(e[0].Detail, `"questions":1`) || !strings.Contains(e[0].Detail, `"orders":1`) {
		t.Fatalf("completion entry: %+v", e)
	}
	// A completed request cannot be completed or refused again.
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+rid+"/complete", nil, true), 409, "request_closed / request_closed")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+rid+"/refuse", map[string]any{"reason": "late"}, true), 409, "request_closed / request_closed")
	// An erasure request is never copyable.
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+rid+"/copy", map[string]any{"identifier": "ayse.yilmaz@mail.example"}, true),
		409, "not_copyable / not_copyable")
}

// TestSubjectRequestPhone: a request by phone number finds the texts that carry the
// number in another written form and erases them.
func TestSubjectRequestPhone(t *testing.T) {
	p := newPrivacyEnv(t)
	id, _ := p.write(review{author: "Ali Veli", body: "Reach me on 0 (532) 123-45-67 any time."})
	keep, _ := p.write(review{author: "Ece", body: "My number is 0532 999 88 77."})
	expect(t, p.transition(id, "approve", ""), 200, "")
	site := map[string]string{"Origin": "https://shop.example"}
	list := "/v1/reviews/list?product=SKU-1&key=" + p.env.Key("site", "web")
	if res := p.do("GET", list, nil, site); res.Status != 200 || !strings.Contains(string(res.Body), "Ali Veli") {
		t.Fatalf("published review before the erasure: %s", res)
	}
	rid := p.open("erasure", "+90 532 123 45 67")
	res := p.owner.do("POST", "/admin/v1/subject-requests/"+rid+"/complete", nil, true)
	expect(t, res, 200, "")
	if res.JSON["affected_reviews"] != float64(1) || res.JSON["identifier_kind"] != "phone" {
		t.Fatalf("completed: %s", res)
	}
	if r := p.get(id); r.Body != "Reach me on [phone] any time." || r.AuthorName != "" {
		t.Fatalf("erased: %+v", r)
	}
	if r := p.get(keep); r.Body != "My number is 0532 999 88 77." || r.AuthorName != "Ece" {
		t.Fatalf("kept: %+v", r)
	}
	// The published review stays live, masked and without the name, on the storefront.
	res = p.do("GET", list, nil, site)
	if res.Status != 200 || !strings.Contains(string(res.Body), "Reach me on [phone] any time.") ||
		strings.Contains(string(res.Body), "Ali Veli") || strings.Contains(string(res.Body), "123-45-67") {
		t.Fatalf("storefront after the erasure: %s", res)
	}
}

// TestSubjectRequestAccess: an access request, its copy with every code, the
// downloads, refusal and the list.
func TestSubjectRequestAccess(t *testing.T) {
	p := newPrivacyEnv(t)
	ext := p.order(review{channel: "web", email: "lena@mail.example", variant: "SKU-1", product: "Kettle"})
	id := p.writeFor(ext, review{channel: "web", title: "Great kettle", author: "Lena Berg", body: "Boils in a minute."})
	rid := p.open("access", "lena@mail.example")
	path := "/admin/v1/subject-requests/" + rid

	copyPath := path + "/copy"
	expect(t, p.owner.do("POST", copyPath, map[string]any{"identifier": "lena@mail.example"}, true), 409, "not_copyable / not_copyable")
	res := p.owner.do("POST", path+"/complete", nil, true)
	expect(t, res, 200, "")
	if res.JSON["can_copy"] != true || res.JSON["state"] != "completed" || res.JSON["affected_reviews"] != float64(0) {
		t.Fatalf("completed access request: %s", res)
	}
	if r := p.get(id); r.AuthorName != "Lena Berg" || !r.AnonymizedAt.IsZero() {
		t.Fatal("an access request changed data")
	}

	expect(t, p.owner.do("POST", copyPath, map[string]any{}, true), 400, "invalid / identifier_required")
	expect(t, p.owner.do("POST", copyPath, map[string]any{"identifier": "other@mail.example"}, true), 400, "identifier_mismatch / identifier_mismatch")
	expect(t, p.owner.do("POST", copyPath, map[string]any{"identifier": "+90 532 123 45 67"}, true), 400, "identifier_mismatch / identifier_mismatch")
	expect(t, p.owner.do("POST", copyPath, map[string]any{"identifier": "lena@mail.example", "format": "pdf"}, true), 400, "invalid / format")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/dsr_999/copy", map[string]any{"identifier": "lena@mail.example"}, true), 404, "not_found / not_found")
	expect(t, p.do("POST", copyPath, map[string]any{"identifier": "lena@mail.example"}, p.all), 403, "forbidden / scope_missing")
	expect(t, p.manager.do("POST", copyPath, map[string]any{"identifier": "lena@mail.example"}, true), 403, "forbidden / scope_missing")

	res = p.owner.do("POST", copyPath, map[string]any{"identifier": "LENA@mail.example"}, true)
	expect(t, res, 200, "")
	if _, ok := res.JSON["note"]; ok || res.JSON["handler"] != nil || res.JSON["id"] != rid || res.JSON["kind"] != "access" {
		t.Fatalf("copy carries note or handler: %s", res)
	}
	exp := res.JSON["export"].(map[string]any)
	revs := exp["reviews"].([]any)
	orders := exp["orders"].([]any)
	if len(revs) != 1 || revs[0].(map[string]any)["author_name"] != "Lena Berg" || revs[0].(map[string]any)["title"] != "Great kettle" ||
		len(orders) != 1 || orders[0].(map[string]any)["order_reference"] != ext {
		t.Fatalf("export: %s", res)
	}
	counts := res.JSON["export_details"].(map[string]any)["counts"].(map[string]any)
	if counts["reviews"] != float64(1) || counts["orders"] != float64(1) {
		t.Fatalf("export details: %s", res)
	}
	res = p.owner.do("POST", copyPath, map[string]any{"identifier": "lena@mail.example", "format": "csv"}, true)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(string(res.Body), "review,"+id+",author_name,Lena Berg") {
		t.Fatalf("csv copy: %s", res)
	}
	res = p.owner.do("POST", copyPath, map[string]any{"identifier": "lena@mail.example", "format": "xlsx"}, true)
	if res.Status != 200 {
		t.Fatalf("xlsx copy: %s", res)
	}
	xf, err := excelize.OpenReader(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := xf.GetRows("personal-data")
	if len(rows) < 5 || rows[0][0] != "record" {
		t.Fatalf("xlsx rows: %v", rows)
	}
	if e := p.activity("subject_request.copied"); len(e) != 3 || e[0].ActorName != "olcay" {
		t.Fatalf("copies recorded: %+v", e)
	}

	// Downloads of the record, each recorded.
	for _, f := range []string{"csv", "xlsx", "json"} {
		res := p.owner.do("GET", path+"?format="+f, nil, false)
		if res.Status != 200 || res.Header.Get("Cache-Control") != "no-store" ||
			!strings.Contains(res.Header.Get("Content-Disposition"), "subject-request-"+rid+"."+f) {
			t.Fatalf("download %s: %s", f, res)
		}
		if f == "json" && res.JSON["identifier"] != "lena@mail.example" {
			t.Fatalf("json download: %s", res)
		}
	}
	expect(t, p.owner.do("GET", path+"?format=pdf", nil, false), 400, "invalid / format")
	if e := p.activity("subject_request.downloaded"); len(e) != 3 || !strings.Contains(e[0].Detail, `"format":"json"`) {
		t.Fatalf("downloads recorded: %+v", e)
	}

	// Refusal.
	other := p.open("erasure", "nobody@mail.example")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+other+"/refuse", map[string]any{}, true), 400, "invalid / reason_required")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+other+"/refuse", map[string]any{"reason": strings.Repeat("x", 1001)}, true), 400, "invalid / reason")
	res = p.owner.do("POST", "/admin/v1/subject-requests/"+other+"/refuse", map[string]any{"reason": "Identity not confirmed"}, true)
	expect(t, res, 200, "")
	if res.JSON["state"] != "refused" || res.JSON["reason"] != "Identity not confirmed" || res.JSON["completed_at"] == nil {
		t.Fatalf("refused: %s", res)
	}
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+other+"/copy", map[string]any{"identifier": "nobody@mail.example"}, true), 409, "not_copyable / not_copyable")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/dsr_999/refuse", map[string]any{"reason": "x"}, true), 404, "not_found / not_found")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/dsr_999/complete", nil, true), 404, "not_found / not_found")

	// The list: newest first, filters, q by identifier, logged with the row count.
	res = p.owner.do("GET", "/admin/v1/subject-requests", nil, false)
	expect(t, res, 200, "")
	list := items(res)
	if res.JSON["total"] != float64(2) || len(list) != 2 || list[0]["id"] != other || list[1]["id"] != rid || list[1]["can_copy"] != true {
		t.Fatalf("list: %s", res)
	}
	for _, k := range []string{"id", "kind", "state", "received_at", "completed_at", "affected_reviews", "purged_media", "can_copy"} {
		if _, ok := list[0][k]; !ok {
			t.Fatalf("row misses %s: %v", k, list[0])
		}
	}
	if res := p.owner.do("GET", "/admin/v1/subject-requests?q=Lena@Mail.example", nil, false); res.JSON["total"] != float64(1) || items(res)[0]["id"] != rid {
		t.Fatalf("q by identifier: %s", res)
	}
	if res := p.owner.do("GET", "/admin/v1/subject-requests?state=refused&kind=erasure", nil, false); res.JSON["total"] != float64(1) {
		t.Fatalf("filters: %s", res)
	}
	expect(t, p.owner.do("GET", "/admin/v1/subject-requests?kind=other", nil, false), 400, "invalid / kind")
	expect(t, p.owner.do("GET", "/admin/v1/subject-requests?state=in_progress", nil, false), 400, "invalid / state")
	if got := p.accessLog("subject_requests.listed"); len(got) != 3 || got[len(got)-1].Count != 2 || got[0].Via != "session" {
		t.Fatalf("listed in the access log: %+v", got)
	}
	res = p.owner.do("GET", path, nil, false)
	if res.Status != 200 || res.JSON["identifier"] != "lena@mail.example" || res.JSON["preview"] != nil {
		t.Fatalf("record: %s", res)
	}
	if got := p.accessLog("subject_request.viewed"); len(got) != 4 {
		t.Fatalf("viewed in the access log: %d entries", len(got))
	}
	expect(t, p.owner.do("GET", "/admin/v1/subject-requests/dsr_999", nil, false), 404, "not_found / not_found")
}

// TestSubjectRequestRules: only a panel session with the personal-data permission
// reaches the requests (keys and other roles get forbidden / scope_missing), and
// bad bodies get their codes with nothing stored.
func TestSubjectRequestRules(t *testing.T) {
	p := newPrivacyEnv(t)
	rid := p.open("access", "lena@mail.example")
	routes := [][2]string{{"GET", "/admin/v1/subject-requests"}, {"POST", "/admin/v1/subject-requests"},
		{"GET", "/admin/v1/subject-requests/" + rid}, {"POST", "/admin/v1/subject-requests/" + rid + "/complete"},
		{"POST", "/admin/v1/subject-requests/" + rid + "/refuse"}, {"POST", "/admin/v1/subject-requests/" + rid + "/copy"}}
	writeKey := map[string]string{"Authorization": "Api-Key " + p.env.Key("api", "", "read", "moderate", "export", "write")}
	for _, rt := range routes {
		body := map[string]any{"kind": "access", "identifier": "x@mail.example", "reason": "r"}
		for _, h := range []map[string]string{p.all, p.read, writeKey} {
			expect(t, p.do(rt[0], rt[1], body, h), 403, "forbidden / scope_missing")
		}
		expect(t, p.manager.do(rt[0], rt[1], body, true), 403, "forbidden / scope_missing")
		expect(t, p.do(rt[0], rt[1], body, nil), 401, "")
	}
	for body, code := range map[string]string{
		`{"identifier": "a@mail.example"}`:                                                                "invalid / kind",
		`{"kind": "delete", "identifier": "a@mail.example"}`:                                              "invalid / kind",
		`{"kind": "access"}`:                                                                              "invalid / identifier_required",
		`{"kind": "access", "identifier": "  "}`:                                                          "invalid / identifier_required",
		`{"kind": "access", "identifier": "not-an-address@"}`:                                             "invalid / identifier",
		`{"kind": "access", "identifier": "12345"}`:                                                       "invalid / identifier",
		`{"kind": "access", "identifier": "call me"}`:                                                     "invalid / identifier",
		`{"kind": "access", "identifier": "a@mail.example", "note": 5}`:                                   "invalid / note",
		`{"kind": "access", "identifier": "a@mail.example", "note": "` + strings.Repeat("n", 1001) + `"}`: "invalid / note",
	} {
		expect(t, p.owner.do("POST", "/admin/v1/subject-requests", body, true), 400, code)
	}
	if res := p.owner.do("GET", "/admin/v1/subject-requests", nil, false); res.JSON["total"] != float64(1) {
		t.Fatalf("refused bodies stored requests: %s", res)
	}
	// The identifier is stored encrypted, never in clear.
	var n int
	if err := p.env.App.DB.Read().QueryRowForTest(p.ctx, `SELECT count(*) FROM subject_requests WHERE instr(CAST(identifier_sealed AS TEXT), 'lena') > 0 OR identifier_hash LIKE '%lena%'`, &n); err != nil || n != 0 {
		t.Fatalf("identifier in clear: %d %v", n, err)
	}
}

// The brand's seller reply and resolution note may name the reviewer: an erasure
// masks the person's names and contact details in them too.
func TestErasureMasksBrandNotes(t *testing.T) {
	p := newPrivacyEnv(t)
	ext := p.order(review{channel: "web", email: "ayse.yilmaz@mail.example", variant: "SKU-1", product: "Kettle"})
	id := p.writeFor(ext, review{channel: "web", title: "Boils fast", author: "Ayşe Yılmaz", body: "Quiet and quick kettle."})
	if r := p.get(id); r.State != core.ReviewPublished {
		expect(t, p.transition(id, "approve", ""), 200, "")
	}
	expect(t, p.owner.do("POST", "/admin/v1/reviews/"+id+"/seller-response", map[string]any{"body": "Thank you, Ayşe Yılmaz! Enjoy the kettle."}, true), 201, "")
	expect(t, p.owner.do("POST", "/admin/v1/reviews/"+id+"/resolution", map[string]any{"body": "Ayşe Yılmaz got a new lid."}, true), 201, "")

	rid := p.open("erasure", "ayse.yilmaz@mail.example")
	expect(t, p.owner.do("POST", "/admin/v1/subject-requests/"+rid+"/complete", nil, true), 200, "")
	detail := p.owner.do("GET", "/admin/v1/reviews/"+id, nil, false)
	expect(t, detail, 200, "")
	if b := string(detail.Body); strings.Contains(b, "Ayşe") || !strings.Contains(b, "Thank you, [name]! Enjoy the kettle.") ||
		!strings.Contains(b, "[name] got a new lid.") {
		t.Fatalf("seller reply and resolution note after erasure: %s", detail)
	}
}

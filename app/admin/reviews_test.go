package admin_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"reviewd/app/core"
	"reviewd/app/core/checks"
	"reviewd/app/core/orders"
	"reviewd/store"
)

// TestReviewDetail: the panel view of a review: full author, hidden-name flag,
// proof with order reference and Returned mark (erased-order:<hex> after erasure),
// history, checks, reports, events and removal reasons; the read is logged.
func TestReviewDetail(t *testing.T) {
	m := newModEnv(t)
	id, ext := m.write(review{author: "Ayşe Yılmaz", hide: true, title: "Good", product: "Kettle"})
	m.report(id, "spam", "v1")
	res := m.do("GET", "/admin/v1/reviews/"+id, nil, m.read)
	expect(t, res, 200, "")
	d := res.JSON
	proof := d["proof"].(map[string]any)
	if d["author"] != "Ayşe Yılmaz" || d["name_hidden"] != true || d["product_name"] != "Kettle" || d["source"] != nil ||
		d["state"] != "pending" || d["verified"] != true || d["imported"] != nil {
		t.Fatalf("detail %s", res.Body)
	}
	if proof["method"] != core.VerifiedByInvite || proof["order_reference"] != ext || proof["returned"] != false || proof["returned_at"] != nil {
		t.Fatalf("proof %v", proof)
	}
	if h := d["history"].([]any); len(h) != 1 || h[0].(map[string]any)["event"] != "submitted" {
		t.Fatalf("history %v", h)
	}
	if c := d["checks"].([]any); len(c) != len(checks.CheckKinds) || c[0].(map[string]any)["outcome"] != "passed" {
		t.Fatalf("checks %v", c)
	}
	if r := d["reports"].([]any); len(r) != 1 || r[0].(map[string]any)["reason"] != "spam" || r[0].(map[string]any)["state"] != "open" ||
		d["reports_open"] != float64(1) {
		t.Fatalf("reports %v", r)
	}
	if !slices.Equal(strs(d["available_events"]), []string{"approve", "reject", "remove"}) ||
		!slices.Equal(strs(d["media_removal_reasons"]), []string{"personal_data", "profanity", "data_subject_request", "legal_order"}) ||
		len(d["media"].([]any)) != 0 {
		t.Fatalf("events, reasons, media: %s", res.Body)
	}
	if l := m.accessLog("review.viewed"); len(l) != 1 || l[0].TargetID != id || l[0].Count != 1 || l[0].Via != "api_key" {
		t.Fatalf("access log %+v", l)
	}

	// The Returned mark, then erasure of the order's customer data.
	r := m.get(id)
	m.tx(func(tx *store.Tx) error {
		return m.env.App.Reviews.MarkReturned(m.ctx, tx, core.System("test"), r.OrderID, 0)
	})
	m.env.Clock.T = m.env.Clock.T.Add(time.Hour)
	m.tx(func(tx *store.Tx) error {
		_, err := m.env.App.Orders.EraseOrderCustomer(m.ctx, tx, r.OrderID, orders.EraseRequest)
		return err
	})
	proof = m.do("GET", "/admin/v1/reviews/"+id, nil, m.read).JSON["proof"].(map[string]any)
	if !regexp.MustCompile(`^erased-order:[0-9a-f]{32}$`).MatchString(proof["order_reference"].(string)) ||
		proof["order_reference"] != m.env.App.Keys.ErasedOrderRef(r.OrderID) || proof["returned"] != true ||
		proof["returned_at"] != "2026-06-01T10:00:00Z" {
		t.Fatalf("proof after return and erasure %v", proof)
	}

	// Imported reviews: source and proof by the source platform.
	imp := m.raw("web", core.ReviewPublished, func(r *store.Review) {
		r.Origin, r.SourcePlatform, r.SourceName, r.SourceURL, r.SourceReviewID = core.OriginImported, "trendyol", "Trendyol",
			"https://trendyol.example/r/1", "TY-1"
	})
	d = m.do("GET", "/admin/v1/reviews/"+imp, nil, m.read).JSON
	if d["proof"].(map[string]any)["method"] != "source_platform" || d["imported"].(map[string]any)["review_id"] != "TY-1" ||
		d["source"].(map[string]any)["platform"] != "trendyol" || d["verified"] != false {
		t.Fatalf("imported detail %v", d)
	}
	expect(t, m.do("GET", "/admin/v1/reviews/r_aaaaaaaaaaaaaaaaaaaa", nil, m.read), 404, "not_found / not_found")
	expect(t, m.do("GET", "/admin/v1/reviews/nonsense", nil, m.read), 404, "not_found / not_found")
	expect(t, m.do("GET", "/admin/v1/reviews/"+id, nil, nil), 401, "")
}

// TestReviewMediaAdmin: the admin media endpoint (any state, Range, private
// no-store, 404 for another review's file) and media removal with a reason.
func TestReviewMediaAdmin(t *testing.T) {
	m := newModEnv(t)
	ext := m.order(review{channel: "web", email: "a@mail.example", variant: "SKU-1", product: "Kettle"})
	mid := m.upload(ext, photo(t, 700, 500))
	id := m.writeFor(ext, review{channel: "web", body: "Look at this.", media: []string{mid}})
	other, _ := m.write(review{})
	m.runMedia()

	d := m.do("GET", "/admin/v1/reviews/"+id, nil, m.read).JSON
	media := d["media"].([]any)
	if len(media) != 1 {
		t.Fatalf("media %v", d["media"])
	}
	it := media[0].(map[string]any)
	base := "http://reviewd.test/admin/v1/reviews/" + id + "/media/" + mid + "/"
	if it["id"] != mid || it["state"] != "ready" || it["kind"] != "image" || it["url"] != base+"image.jpg" ||
		!strings.Contains(it["srcset"].(string), base+"image-640.jpg 640w") || d["media_count"] != float64(1) {
		t.Fatalf("media item %v", it)
	}
	path := strings.TrimPrefix(it["url"].(string), "http://reviewd.test")

	// The review is pending: the public address refuses, the admin one serves.
	if s := m.do("GET", "/media/"+mid+"/image.jpg", nil, nil).Status; s != 404 {
		t.Fatalf("public media of a pending review: %d", s)
	}
	res := m.do("GET", path, nil, m.read)
	if res.Status != 200 || res.Header.Get("Cache-Control") != "private, no-store" || res.Header.Get("Content-Type") != "image/jpeg" ||
		res.Header.Get("Accept-Ranges") != "bytes" || len(res.Body) < 100 {
		t.Fatalf("admin media: %d %v", res.Status, res.Header)
	}
	full := res.Body
	res = m.do("GET", path, nil, map[string]string{"Authorization": m.read["Authorization"], "Range": "bytes=0-9"})
	if res.Status != 206 || !bytes.Equal(res.Body, full[:10]) || res.Header.Get("Content-Range") != "bytes 0-9/"+strconv.Itoa(len(full)) ||
		res.Header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("range: %d %v", res.Status, res.Header)
	}
	for _, p := range []string{
		"/admin/v1/reviews/" + other + "/media/" + mid + "/image.jpg",
		"/admin/v1/reviews/" + id + "/media/" + mid + "/nothing.jpg",
		"/admin/v1/reviews/" + id + "/media/" + mid + "/.image.jpg",
		"/admin/v1/reviews/" + id + "/media/m_aaaaaaaaaaaaaaaaaaaa/image.jpg",
	} {
		expect(t, m.do("GET", p, nil, m.read), 404, "")
	}
	expect(t, m.do("GET", path, nil, nil), 401, "")

	// Removal.
	mpath := "/admin/v1/reviews/" + id + "/media/" + mid
	for _, c := range []struct {
		path   string
		body   any
		h      map[string]string
		status int
		code   string
	}{
		{mpath, nil, m.mod, 400, "invalid / reason_required"},
		{mpath, map[string]any{}, m.mod, 400, "invalid / reason_required"},
		{mpath, map[string]any{"reason": "ugly"}, m.mod, 400, "invalid / reason"},
		{mpath, map[string]any{"reason": "personal_data"}, m.read, 403, "forbidden / scope_missing"},
		{"/admin/v1/reviews/" + id + "/media/m_aaaaaaaaaaaaaaaaaaaa", map[string]any{"reason": "personal_data"}, m.mod, 404, "not_found / not_found"},
		{"/admin/v1/reviews/" + other + "/media/" + mid, map[string]any{"reason": "personal_data"}, m.mod, 404, "not_found / not_found"},
	} {
		expect(t, m.do("DELETE", c.path, c.body, c.h), c.status, c.code)
	}
	dir := filepath.Join(m.env.App.MediaDir(), mid)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("files before removal: %v", err)
	}
	before := m.get(id)
	res = m.do("DELETE", mpath, map[string]any{"reason": "personal_data"}, m.mod)
	if res.Status != http.StatusNoContent || len(res.Body) != 0 {
		t.Fatalf("delete: %s", res)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("files still on disk: %v", err)
	}
	after := m.get(id)
	if after.State != before.State || after.Body != before.Body || after.Rating != before.Rating || after.Title != before.Title {
		t.Fatalf("review changed: %+v", after)
	}
	h := m.history(id)
	if last := h[len(h)-1]; last.Event != "media_removed" || last.Reason != "personal_data" || !strings.Contains(last.Detail, mid) {
		t.Fatalf("history %+v", last)
	}
	if len(activityEntries(t, m.env, "review.media_removed")) != 1 {
		t.Fatal("activity review.media_removed missing")
	}
	expect(t, m.do("DELETE", mpath, map[string]any{"reason": "personal_data"}, m.mod), 404, "not_found / not_found")
	expect(t, m.do("GET", path, nil, m.read), 404, "")
	it = m.do("GET", "/admin/v1/reviews/"+id, nil, m.read).JSON["media"].([]any)[0].(map[string]any)
	if it["state"] != "removed" || it["removal_reason"] != "personal_data" || it["url"] != "" {
		t.Fatalf("removed item %v", it)
	}
}

// TestReportsResolve: open reports are closed with an optional note; the answer
// counts them; the note is in the history and the trace.
func TestReportsResolve(t *testing.T) {
	m := newModEnv(t)
	id, _ := m.write(review{})
	m.setState(id, core.ReviewPublished)
	m.report(id, "spam", "v1")
	m.report(id, "offensive", "v2")
	path := "/admin/v1/reviews/" + id + "/reports/resolve"
	expect(t, m.do("POST", path, map[string]any{"note": strings.Repeat("x", 1001)}, m.mod), 400, "invalid / note_too_long")
	expect(t, m.do("POST", path, nil, m.read), 403, "forbidden / scope_missing")
	expect(t, m.do("POST", "/admin/v1/reviews/r_aaaaaaaaaaaaaaaaaaaa/reports/resolve", nil, m.mod), 404, "not_found / not_found")
	res := m.do("POST", path, map[string]any{"note": "Checked: the review is fine."}, m.mod)
	expect(t, res, 200, "")
	if res.JSON["closed"] != float64(2) {
		t.Fatalf("resolve: %s", res.Body)
	}
	if n, _ := m.env.App.DB.Read().CountOpenReports(m.ctx, m.get(id).ID); n != 0 {
		t.Fatalf("%d reports still open", n)
	}
	if res := m.do("POST", path, nil, m.mod); res.Status != 200 || res.JSON["closed"] != float64(0) {
		t.Fatalf("second resolve: want 200, got %s", res)
	}
	tr := m.do("GET", "/admin/v1/reviews/"+id+"/trace", nil, m.export)
	expect(t, tr, 200, "")
	var notes, closed int
	for _, e := range tr.JSON["timeline"].([]any) {
		e := e.(map[string]any)
		if e["subject_type"] == "resolution" && e["note"] == "Checked: the review is fine." {
			notes++
		}
		if e["subject_type"] == "report" && e["event"] == "closed" {
			closed++
		}
	}
	if notes != 1 || closed != 2 {
		t.Fatalf("trace: %s", tr.Body)
	}
}

// TestReasons: every reason list in tr and en.
func TestReasons(t *testing.T) {
	m := newModEnv(t)
	res := m.do("GET", "/admin/v1/reasons", nil, m.read)
	expect(t, res, 200, "")
	for _, lang := range []string{"tr", "en"} {
		lists := res.JSON[lang].(map[string]any)
		for _, k := range []string{"review_rejection", "review_removal", "question_rejection", "review_media_removal", "report"} {
			if l, ok := lists[k].([]any); !ok || len(l) == 0 || l[0].(map[string]any)["label"] == "" {
				t.Fatalf("%s %s: %v", lang, k, lists[k])
			}
		}
		var codes []string
		for _, r := range lists["review_media_removal"].([]any) {
			codes = append(codes, r.(map[string]any)["code"].(string))
		}
		if !slices.Equal(codes, []string{"personal_data", "profanity", "data_subject_request", "legal_order"}) {
			t.Fatalf("media removal codes %v", codes)
		}
	}
	if res.JSON["tr"].(map[string]any)["review_rejection"].([]any)[0].(map[string]any)["label"] ==
		res.JSON["en"].(map[string]any)["review_rejection"].([]any)[0].(map[string]any)["label"] {
		t.Fatal("labels not translated")
	}
}

// TestReviewListAndExports: the review list with its filters and search, the
// access log for searches, and the CSV, Excel and JSON exports read back.
func TestReviewListAndExports(t *testing.T) {
	m := newModEnv(t)
	a, extA := m.write(review{author: "Ayşe Yılmaz", email: "ayse@mail.example", title: "=SUM(A1)", body: "Keeps tea hot.",
		product: "Red mug", variant: "MUG-RED"})
	b, _ := m.write(review{author: "John Smith", email: "john@mail.example", body: "Boils water fast.", product: "Kettle",
		variant: "KET-1", channel: "web-gb"})
	m.setState(b, core.ReviewPublished)
	imp := m.raw("web", core.ReviewPublished, func(r *store.Review) {
		r.Origin, r.SourcePlatform, r.SourceName, r.Body = core.OriginImported, "n11", "N11", "Imported text."
	})
	list := func(query string, h map[string]string) []string {
		t.Helper()
		res := m.do("GET", "/admin/v1/reviews"+query, nil, h)
		expect(t, res, 200, "")
		var ids []string
		for _, it := range items(res) {
			ids = append(ids, it["id"].(string))
		}
		return ids
	}
	all := list("", m.read)
	if !slices.Equal(all, []string{imp, b, a}) {
		t.Fatalf("list %v", all)
	}
	for q, want := range map[string][]string{
		"?q=tea":                    {a},
		"?q=red+mug":                {a},
		"?q=MUG-RED":                {a},
		"?q=" + extA:                {a},
		"?q=ayse%40mail.example":    {a},
		"?q=Smith":                  {b},
		"?q=" + b:                   {b},
		"?q=r_aaaaaaaaaaaaaaaaaaaa": nil,
		"?entry_point=import":       {imp},
		"?state=published":          {imp, b},
		"?channel=web-gb":           {b},
		"?market=TR&sort=oldest":    {a, imp},
		"?rating=3":                 {imp},
	} {
		if got := list(q, m.read); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	if n := len(m.accessLog("reviews.searched")); n != 8 {
		t.Fatalf("%d reviews.searched entries, want 8 (one per search)", n)
	}
	res := m.do("GET", "/admin/v1/reviews?page_size=1&page=2", nil, m.read)
	if res.JSON["total"] != float64(3) || res.JSON["pages"] != float64(3) || res.JSON["page"] != float64(2) || len(items(res)) != 1 {
		t.Fatalf("paging %s", res.Body)
	}
	for q, code := range map[string]string{"?state=gone": "invalid / state", "?channel=nope": "invalid / channel",
		"?rating=6": "invalid / rating", "?entry_point=web": "invalid / entry_point", "?flag_open=yes": "invalid / flag_open",
		"?market=GB&channel=web": "invalid / channel_market_mismatch", "?export=pdf": "invalid / export"} {
		expect(t, m.do("GET", "/admin/v1/reviews"+q, nil, m.read), 400, code)
	}

	// Exports need the export permission.
	expect(t, m.do("GET", "/admin/v1/reviews?export=csv", nil, m.read), 403, "forbidden / scope_missing")
	expect(t, m.do("GET", "/admin/v1/reviews?export=csv", nil, m.mod), 403, "forbidden / scope_missing")

	res = m.do("GET", "/admin/v1/reviews?export=csv&market=TR", nil, m.export)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(res.Header.Get("Content-Disposition"), `attachment; filename="reviews-`) {
		t.Fatalf("csv: %d %v", res.Status, res.Header)
	}
	recs, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if len(recs) != 3 || recs[1][col["id"]] != imp || recs[2][col["id"]] != a || recs[2][col["author"]] != "Ayşe Yılmaz" ||
		recs[2][col["title"]] != "'=SUM(A1)" || recs[2][col["product_name"]] != "Red mug" ||
		recs[2][col["open_in_panel"]] != "http://reviewd.test/admin/reviews/"+a || recs[1][col["source_platform"]] != "n11" {
		t.Fatalf("csv rows %v", recs)
	}

	res = m.do("GET", "/admin/v1/reviews?export=xlsx&q=Smith", nil, m.export)
	if res.Status != 200 || res.Header.Get("Content-Type") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" {
		t.Fatalf("xlsx: %d %v", res.Status, res.Header)
	}
	f, err := excelize.OpenReader(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.GetRows("Reviews")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0][0] != "id" || rows[1][0] != b || rows[1][col["author"]] != "John Smith" || rows[1][col["channel"]] != "web-gb" {
		t.Fatalf("xlsx rows %v", rows)
	}
	filters, _ := f.GetRows("Filters")
	if len(filters) < 2 || filters[1][0] != "q" || filters[1][1] != "Smith" {
		t.Fatalf("xlsx filters %v", filters)
	}

	res = m.do("GET", "/admin/v1/reviews?export=json&entry_point=import", nil, m.export)
	var doc struct {
		Filters map[string]string `json:"filters"`
		Items   []map[string]any  `json:"items"`
	}
	if err := json.Unmarshal(res.Body, &doc); err != nil || res.Status != 200 {
		t.Fatalf("json: %d %v", res.Status, err)
	}
	if len(doc.Items) != 1 || doc.Items[0]["id"] != imp || doc.Filters["entry_point"] != "import" {
		t.Fatalf("json export %s", res.Body)
	}
	ex := m.accessLog("reviews.exported")
	if len(ex) != 3 || len(activityEntries(t, m.env, "reviews.exported")) != 3 {
		t.Fatalf("export log %+v", ex)
	}
}

// TestReviewTrace: the review and its timeline (steps, reports, resolution notes,
// rejection notices with subject_type notice; no seller response), as JSON and as
// CSV, Excel and JSON downloads, logged.
func TestReviewTrace(t *testing.T) {
	m := newModEnv(t)
	id, ext := m.write(review{author: "Ayşe", email: "ayse@mail.example"})
	expect(t, m.transition(id, "approve", ""), 200, "")
	m.report(id, "fake", "v1")
	m.env.Clock.T = m.env.Clock.T.Add(time.Minute)
	expect(t, m.transition(id, "reject", "wrong_product"), 200, "")
	path := "/admin/v1/reviews/" + id + "/trace"
	expect(t, m.do("GET", path, nil, m.read), 403, "forbidden / scope_missing")
	expect(t, m.do("GET", path, nil, m.mod), 403, "forbidden / scope_missing")
	expect(t, m.do("GET", path+"?format=pdf", nil, m.export), 400, "invalid / format")
	expect(t, m.do("GET", "/admin/v1/reviews/r_aaaaaaaaaaaaaaaaaaaa/trace", nil, m.export), 404, "not_found / not_found")

	res := m.do("GET", path, nil, m.export)
	expect(t, res, 200, "")
	rv := res.JSON["review"].(map[string]any)
	if rv["id"] != id || rv["state"] != "rejected" || rv["proof"].(map[string]any)["order_reference"] != ext {
		t.Fatalf("review %v", rv)
	}
	if v, ok := res.JSON["seller_response"]; !ok || v != nil {
		t.Fatalf("seller_response %v", v)
	}
	var kinds []string
	for _, e := range res.JSON["timeline"].([]any) {
		e := e.(map[string]any)
		kinds = append(kinds, e["subject_type"].(string)+":"+e["event"].(string))
		if e["subject_type"] == "notice" && (e["reason"] != "wrong_product" || !strings.HasPrefix(e["subject_id"].(string), "inv_")) {
			t.Fatalf("notice entry %v", e)
		}
	}
	// E-mail is off in this installation: the notice waits (queued, no attempt).
	if !slices.Equal(kinds, []string{"review:submitted", "review:approve", "report:reported", "review:reject", "notice:queued"}) {
		t.Fatalf("timeline %v", kinds)
	}
	if strings.Contains(string(res.Body), "admin/reviews/") {
		t.Fatal("JSON carries the panel address")
	}
	panel := "http://reviewd.test/admin/reviews/" + id

	res = m.do("GET", path+"?format=csv", nil, m.export)
	recs, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil || res.Status != 200 || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("csv: %d %v", res.Status, err)
	}
	if len(recs) != 6 || recs[0][1] != "open_in_panel" || recs[1][0] != id || recs[1][1] != panel || recs[5][3] != "notice" {
		t.Fatalf("csv %v", recs)
	}
	res = m.do("GET", path+"?format=xlsx", nil, m.export)
	f, err := excelize.OpenReader(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := f.GetRows("Timeline")
	if len(rows) != 6 || rows[2][1] != panel || rows[2][5] != "approve" {
		t.Fatalf("xlsx %v", rows)
	}
	res = m.do("GET", path+"?format=json", nil, m.export)
	if res.Status != 200 || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") ||
		strings.Contains(string(res.Body), "admin/reviews/") || res.JSON["timeline"] == nil {
		t.Fatalf("json download: %s", res)
	}
	if n := len(m.accessLog("review_history.viewed")); n != 4 {
		t.Fatalf("%d review_history.viewed entries, want 4", n)
	}
	dl := activityEntries(t, m.env, "review_history.downloaded")
	if len(dl) != 3 || dl[0].TargetID != id {
		t.Fatalf("downloads %+v", dl)
	}
}

// TestModerationEndToEnd: an order arrives, the customer passes the order check,
// uploads a photo and writes a review; it waits in the moderation queue; a
// moderator approves it and it is live in the admin list with its photo.
func TestModerationEndToEnd(t *testing.T) {
	m := newModEnv(t)
	server := map[string]string{"Authorization": "Bearer " + m.env.Key("server", "web")}
	site := m.env.Key("site", "web")
	browser := map[string]string{"X-Service-Site-Key": site, "Origin": "https://shop.example"}
	res := m.do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "external_id": "E2E-1", "payment_state": "paid",
		"placed_at": "2026-05-25T12:00:00+03:00", "customer_email": "deniz@mail.example",
		"items": []any{map[string]any{"line_reference": "L1", "variant_key": "LAMP-1", "group_key": "LAMP", "title": "Desk lamp",
			"fulfilment_state": "delivered", "delivered_at": "2026-05-30T09:00:00Z"}}}, server)
	if res.Status >= 300 {
		t.Fatalf("order: want a 2xx answer, got %s", res)
	}
	res = m.do("POST", "/v1/eligibility", map[string]any{"order": "E2E-1", "email": "deniz@mail.example"}, browser)
	if res.Status != 200 {
		t.Fatalf("eligibility: want 200, got %s", res)
	}
	tok := res.JSON["token"].(string)
	mid := m.uploadWith(tok, site, photo(t, 640, 480))
	res = m.do("POST", "/v1/reviews", map[string]any{"token": tok, "reviews": []any{map[string]any{"line_reference": "L1",
		"rating": 5, "title": "Bright", "body": "Lights the whole desk.", "author_name": "Deniz Kaya", "media": []string{mid}}}}, browser)
	if res.Status != 201 {
		t.Fatalf("write: want 201, got %s", res)
	}
	id := res.JSON["reviews"].([]any)[0].(map[string]any)["id"].(string)
	m.runMedia()

	res = m.do("GET", "/admin/v1/moderation/queue", nil, m.mod)
	if res.JSON["total"] != float64(1) || items(res)[0]["id"] != id || items(res)[0]["product_name"] != "Desk lamp" {
		t.Fatalf("queue: %s", res.Body)
	}
	expect(t, m.transition(id, "approve", ""), 200, "")
	res = m.do("GET", "/admin/v1/reviews?state=published", nil, m.read)
	row := items(res)[0]
	if res.JSON["total"] != float64(1) || row["id"] != id || row["author"] != "Deniz Kaya" || row["media_count"] != float64(1) ||
		row["verified"] != true {
		t.Fatalf("admin list: %s", res.Body)
	}
	d := m.do("GET", "/admin/v1/reviews/"+id, nil, m.read).JSON
	if d["proof"].(map[string]any)["method"] != core.VerifiedByOrderCheck || d["proof"].(map[string]any)["order_reference"] != "E2E-1" {
		t.Fatalf("proof %v", d["proof"])
	}
	u := d["media"].([]any)[0].(map[string]any)["url"].(string)
	if s := m.do("GET", strings.TrimPrefix(u, "http://reviewd.test"), nil, m.read).Status; s != 200 {
		t.Fatalf("admin media %d", s)
	}
	if s := m.do("GET", "/media/"+mid+"/image.jpg", nil, nil).Status; s != 200 {
		t.Fatalf("public media of the published review: %d", s)
	}
	if q := m.do("GET", "/admin/v1/moderation/queue", nil, m.mod); q.JSON["total"] != float64(0) {
		t.Fatalf("queue after approval: %s", q.Body)
	}
}

package storefront_test

import (
	"strings"
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/store"
)

// fitTemplate makes an own list with a required fit topic for variant SKU-A.
func (f *fx) fitTemplate() string {
	f.T.Helper()
	name := "Shoes"
	aspects := []brand.AspectDef{{Key: "fit", Kind: brand.AspectScale, Required: true, Scale: 3,
		Label: map[string]string{"tr": "Kalıp", "en": "Fit"},
		Steps: map[string][]string{"tr": {"Dar", "Tam", "Bol"}, "en": {"Small", "True", "Large"}}}}
	products := []brand.TemplateProduct{{Scope: "variant", Key: "SKU-A"}}
	t, err := f.App.Brand.SaveAspectTemplate(ctx, core.Console(), brand.AspectTemplateInput{Name: &name, Aspects: &aspects, Products: &products})
	if err != nil {
		f.T.Fatal(err)
	}
	return t.Key
}

// TestReviewWritingErrors: every validation error of spec 2 "Review writing" with
// its detail and limit; nothing is stored when a row is refused.
func TestReviewWritingErrors(t *testing.T) {
	f := newFx(t)
	f.fitTemplate()
	f.order("W-1", "ayse@example.com", line{ref: "1"}, line{ref: "2", variant: "SKU-A"}, line{ref: "3"})
	f.order("W-2", "ayse@example.com")
	tok := f.issue(buyer.TokenInvitation, "W-1", "1", "2", "3")
	other := f.mustUpload(f.issue(buyer.TokenInvitation, "W-2", "1"), "1", testPNG(t, 8, 8))
	var seven []string
	for i := 0; i < 7; i++ {
		seven = append(seven, f.mustUpload(tok, "1", testPNG(t, 8, 8)))
	}
	var many []any
	for i := 0; i < 21; i++ {
		many = append(many, row("1"))
	}
	fit := map[string]any{"fit": 2}

	cases := []struct {
		name   string
		body   map[string]any
		status int
		want   string
	}{
		{"token required", map[string]any{"reviews": []any{row("1")}}, 401, "token_required / token_required"},
		{"too many reviews", map[string]any{"token": tok, "reviews": many}, 400, "invalid / too_many_reviews"},
		{"rating missing", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"rating": nil})}}, 400, "invalid / rating_required"},
		{"rating 0", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"rating": 0})}}, 400, "invalid / rating_out_of_range"},
		{"rating 6", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"rating": 6})}}, 400, "invalid / rating_out_of_range"},
		{"rating 4.5", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"rating": 4.5})}}, 400, "invalid / rating_out_of_range"},
		{"rating text", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"rating": "5"})}}, 400, "invalid / rating_out_of_range"},
		{"title 201", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"title": strings.Repeat("ş", 201)})}}, 400, "invalid / title_too_long: 200"},
		{"body 5001", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"body": strings.Repeat("a", 5001)})}}, 400, "invalid / body_too_long: 5000"},
		{"author 121", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"author_name": strings.Repeat("a", 121)})}}, 400, "invalid / author_too_long: 120"},
		{"hide_name not boolean", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"hide_name": "yes"})}}, 400, "invalid / hide_name"},
		{"aspect unknown", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"aspects": map[string]any{"fit": 2}})}}, 400, "invalid / aspect_unknown"},
		{"aspect out of range", map[string]any{"token": tok, "reviews": []any{row("2", map[string]any{"aspects": map[string]any{"fit": 4}})}}, 400, "invalid / aspect_out_of_range"},
		{"aspect not whole", map[string]any{"token": tok, "reviews": []any{row("2", map[string]any{"aspects": map[string]any{"fit": 1.5}})}}, 400, "invalid / aspect_out_of_range"},
		{"aspect required", map[string]any{"token": tok, "reviews": []any{row("2")}}, 400, "invalid / aspect_required"},
		{"aspect required null", map[string]any{"token": tok, "reviews": []any{row("2", map[string]any{"aspects": map[string]any{"fit": nil}})}}, 400, "invalid / aspect_required"},
		{"too many items", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"media": seven})}}, 400, "invalid / too_many_items: 6"},
		{"media of another order", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"media": []string{other}})}}, 400, "invalid / media_not_available"},
		{"media of another line", map[string]any{"token": tok, "reviews": []any{row("3", map[string]any{"media": seven[:1]})}}, 400, "invalid / media_not_available"},
		{"media unknown", map[string]any{"token": tok, "reviews": []any{row("1", map[string]any{"media": []string{"m_aaaaaaaaaaaaaaaaaaaa"}})}}, 400, "invalid / media_not_available"},
		{"second row refused", map[string]any{"token": tok, "reviews": []any{row("2", map[string]any{"aspects": fit}), row("1", map[string]any{"rating": 9})}}, 400, "invalid / rating_out_of_range"},
		{"same line twice", map[string]any{"token": tok, "reviews": []any{row("1"), row("1")}}, 403, "token_refused / line_already_written"},
		{"not JSON", nil, 400, "invalid_json / invalid_json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body any = c.body
			if c.body == nil {
				body = "{nope"
			}
			wantCode(t, f.post("/v1/reviews", body), c.status, c.want)
		})
	}
	if res := f.post("/v1/reviews", map[string]any{"token": tok, "reviews": []any{row("2", map[string]any{"aspects": fit}), row("1", map[string]any{"rating": 9})}}); res.JSON["index"] != 1.0 {
		t.Fatalf("index of the refused row: %s", res.Body)
	}
	var n int
	if err := f.App.DB.Read().QueryRowForTest(ctx, `SELECT count(*) FROM reviews`, &n); err != nil || n != 0 {
		t.Fatalf("reviews stored after refusals: %d %v", n, err)
	}
	// Limits exactly reached are accepted, with six files.
	res := f.write(tok, row("1", map[string]any{"title": strings.Repeat("ş", 200), "body": strings.Repeat("a", 5000),
		"author_name": strings.Repeat("b", 120), "media": seven[:6]}), row("2", map[string]any{"aspects": fit}))
	if res.Status != 201 || len(res.JSON["reviews"].([]any)) != 2 {
		t.Fatalf("write: want 201, got %s", res)
	}
	got := res.JSON["reviews"].([]any)[1].(map[string]any)
	r := f.review(got["id"].(string))
	if !strings.HasPrefix(r.PublicID, "r_") || len(r.PublicID) != 22 || r.Aspects != `{"fit":2}` || r.AspectTemplate == "" || r.LineID == 0 {
		t.Fatalf("stored review %+v", r)
	}
}

// TestReviewFields: author name and hide_name are stored as sent; a review of a
// shopping-experience token is a process review without topics.
func TestReviewFields(t *testing.T) {
	f := newFx(t)
	f.order("F-1", "ayse@example.com", line{ref: "1"}, line{ref: "2", state: "cancelled"})
	id, state := f.mustWrite(f.issue(buyer.TokenInvitation, "F-1", "1"), row("1", map[string]any{
		"author_name": "  Ayşe\tYılmaz ", "hide_name": true, "title": "Güzel\nürün", "body": "Satır 1\r\nSatır 2",
		"aspects": map[string]any{"quality": 5, "value": 3}}))
	r := f.review(id)
	if state != "published" || r.AuthorName != "Ayşe Yılmaz" || !r.HideName || r.Title != "Güzel ürün" ||
		r.Body != "Satır 1\nSatır 2" || r.Experience != "product" || r.VerificationMethod != "tokenized_invite" ||
		r.AspectTemplate != "general" || r.ProductName != "Product 1" || r.Language != "tr" {
		t.Fatalf("review %+v (%s)", r, state)
	}
	tok := f.issue(buyer.TokenExperience, "F-1", "2")
	wantCode(t, f.write(tok, row("2", map[string]any{"aspects": map[string]any{"quality": 5}})), 400, "invalid / aspect_unknown")
	id, _ = f.mustWrite(tok, row("2", map[string]any{"hide_name": nil, "author_name": nil, "rating": 2}))
	r = f.review(id)
	if r.Experience != "process" || r.HideName || r.AuthorName != "" || r.Aspects != "{}" || r.AspectTemplate != "" {
		t.Fatalf("process review %+v", r)
	}
	// The shopping-experience token cannot write for the delivered line.
	wantCode(t, f.write(f.issue(buyer.TokenExperience, "F-1", "1"), row("1")), 403, "token_refused / line_already_written")
}

// TestPublishingMethods: automatic publishes unless a check finds something;
// hybrid publishes verified reviews without findings; manual holds everything. The
// rating never matters.
func TestPublishingMethods(t *testing.T) {
	f := newFx(t)
	clean := map[string]any{"body": "Renk tam fotoğraftaki gibi, kumaşı da kaliteli."}
	flagged := map[string]any{"body": "Sorun olursa bana yazın: ayse@example.com"}
	cases := []struct {
		method, text string
		body         map[string]any
		rating       int
		want         string
		flag         bool
	}{
		{"automatic", "clean", clean, 5, "published", false},
		{"automatic", "clean, one star", clean, 1, "published", false},
		{"automatic", "flagged", flagged, 5, "pending", true},
		{"hybrid", "clean", clean, 2, "published", false},
		{"hybrid", "flagged", flagged, 5, "pending", true},
		{"manual", "clean", clean, 5, "pending", false},
		{"manual", "flagged", flagged, 1, "pending", true},
	}
	for i, c := range cases {
		t.Run(c.method+" "+c.text, func(t *testing.T) {
			f.setMethod(c.method)
			ext := "P-" + string(rune('a'+i))
			f.order(ext, "ayse@example.com")
			body := map[string]any{"body": c.body["body"].(string) + " (" + ext + ")"}
			id, state := f.mustWrite(f.issue(buyer.TokenInvitation, ext, "1"), row("1", body, map[string]any{"rating": c.rating}))
			r := f.review(id)
			if state != c.want || r.State != c.want || r.FlagOpen != c.flag {
				t.Fatalf("state %s flag %v, want %s %v", r.State, r.FlagOpen, c.want, c.flag)
			}
			if (r.State == "published") == r.PublishedAt.IsZero() {
				t.Fatalf("published_at %v", r.PublishedAt)
			}
			ev, _ := f.App.DB.Read().ReviewEvents(ctx, r.ID)
			if len(ev) != 1 || ev[0].Event != "submitted" || ev[0].ToState != c.want || ev[0].ActorType != "customer" {
				t.Fatalf("history %+v", ev)
			}
		})
	}
}

// TestRevise: a rejected review corrected with its link: kept_media, the 6-file
// cap, author fields replaced, kept or removed, review_not_revisable.
func TestRevise(t *testing.T) {
	f := newFx(t)
	f.setMethod("automatic")
	f.order("V-1", "ayse@example.com")
	tok := f.issue(buyer.TokenInvitation, "V-1", "1")
	a, b := f.mustUpload(tok, "1", testJPEG(t, 40, 30)), f.mustUpload(tok, "1", testJPEG(t, 40, 30))
	id, _ := f.mustWrite(tok, row("1", map[string]any{"media": []string{a, b}, "author_name": "Ayşe Yılmaz", "hide_name": true}))
	f.runMedia()

	revise := func(body map[string]any) (int, string, map[string]any) {
		res := f.post("/v1/reviews/revise", body)
		return res.Status, res.Code(), res.JSON
	}
	attached := func() []string {
		ms, _ := f.App.DB.Read().MediaOfReview(ctx, f.review(id).ID)
		var out []string
		for _, m := range ms {
			if m.State != store.MediaRemoved {
				out = append(out, m.PublicID)
			}
		}
		return out
	}

	// Not rejected: not revisable.
	pending := f.correction(id)
	f.setState(id, core.ReviewPublished)
	if st, code, _ := revise(map[string]any{"token": pending, "rating": 4}); st != 400 || code != "invalid / review_not_revisable" {
		t.Fatalf("published review revised: %d %s", st, code)
	}

	// kept_media omitted: every file stays; author fields omitted: they stay.
	st, code, body := revise(map[string]any{"token": f.correction(id), "rating": 4, "title": "Düzeltilmiş", "body": "Yeni metin."})
	r := f.review(id)
	if st != 200 || body["id"] != id || body["state"] != "published" || r.Rating != 4 || r.Title != "Düzeltilmiş" ||
		r.AuthorName != "Ayşe Yılmaz" || !r.HideName || len(attached()) != 2 {
		t.Fatalf("revise 1: %d %s %v %+v %v", st, code, body, r, attached())
	}
	ev, _ := f.App.DB.Read().ReviewEvents(ctx, r.ID)
	if last := ev[len(ev)-1]; last.Event != "revised" || last.FromState != "rejected" || last.ToState != "published" {
		t.Fatalf("history %+v", last)
	}

	// The link is spent.
	used := f.correction(id)
	if st, _, _ := revise(map[string]any{"token": used, "rating": 4}); st != 200 {
		t.Fatal(st)
	}
	f.setState(id, core.ReviewRejected)
	if st, code, _ := revise(map[string]any{"token": used, "rating": 4}); st != 403 || code != "token_refused / token_spent" {
		t.Fatalf("spent link: %d %s", st, code)
	}

	// kept_media [a] plus 5 new: 6 allowed; one more is too many. Author replaced.
	var fresh []string
	for i := 0; i < 6; i++ {
		fresh = append(fresh, f.mustUpload(f.correction(id), "1", testPNG(t, 8, 8)))
	}
	tok = f.correction(id)
	if st, code, _ := revise(map[string]any{"token": tok, "rating": 3, "kept_media": []string{a}, "media": fresh}); st != 400 || code != "invalid / too_many_items: 6" {
		t.Fatalf("7 files: %d %s", st, code)
	}
	if st, code, _ := revise(map[string]any{"token": tok, "rating": 3, "kept_media": []string{"m_bbbbbbbbbbbbbbbbbbbb"}}); st != 400 || code != "invalid / media_not_available" {
		t.Fatalf("unknown kept: %d %s", st, code)
	}
	st, code, _ = revise(map[string]any{"token": tok, "rating": 3, "kept_media": []string{a}, "media": fresh[:5],
		"author_name": "Ayşe Y.", "hide_name": false})
	r = f.review(id)
	if got := attached(); st != 200 || len(got) != 6 || got[0] != a || r.AuthorName != "Ayşe Y." || r.HideName {
		t.Fatalf("revise 2: %d %s %v %+v", st, code, got, r)
	}
	if m := f.media(b); m.State != store.MediaRemoved || m.RemovalReason != "customer_removed" {
		t.Fatalf("dropped file %+v", m)
	}

	// kept_media [] removes every file; an empty author_name removes the name.
	st, code, _ = revise(map[string]any{"token": f.correction(id), "rating": 3, "kept_media": []string{}, "author_name": ""})
	r = f.review(id)
	if st != 200 || len(attached()) != 0 || r.AuthorName != "" || r.HideName {
		t.Fatalf("revise 3: %d %s %+v", st, code, r)
	}
	// Rating and text rules apply to corrections too.
	if st, code, _ := revise(map[string]any{"token": f.correction(id), "rating": 7}); st != 400 || code != "invalid / rating_out_of_range" {
		t.Fatalf("bad rating: %d %s", st, code)
	}
	if st, code, _ := revise(map[string]any{"rating": 4}); st != 401 || code != "token_required / token_required" {
		t.Fatalf("no token: %d %s", st, code)
	}
}

// TestChecksRunOnWrite: findings are stored per check with what was found, never
// the personal data itself; a duplicate text is found.
func TestChecksRunOnWrite(t *testing.T) {
	f := newFx(t)
	f.setMethod("automatic")
	f.order("C-1", "ayse@example.com", line{ref: "1"}, line{ref: "2"})
	tok := f.issue(buyer.TokenInvitation, "C-1", "1", "2")
	text := "Bu krem egzamamı tedavi etti, bilgi için 0532 123 45 67 numarasını arayın veya shop.example.com adresine bakın."
	res := f.write(tok, row("1", map[string]any{"body": text}), row("2", map[string]any{"body": text}))
	if res.Status != 201 {
		t.Fatal(res.Status, string(res.Body))
	}
	id2 := res.JSON["reviews"].([]any)[1].(map[string]any)["id"].(string)
	id1 := res.JSON["reviews"].([]any)[0].(map[string]any)["id"].(string)
	checks, _ := f.App.DB.Read().ReviewChecks(ctx, f.review(id2).ID)
	got := map[string]string{}
	for _, c := range checks {
		got[c.Kind] = c.Outcome + ":" + c.Finding
	}
	want := map[string]string{"personal_data": "flagged:phone", "link": "flagged:url", "profanity": "passed:",
		"health_claim": "flagged:egzama*", "brand_term": "passed:", "duplicate": "flagged:" + id1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if !f.review(id2).FlagOpen || f.review(id2).State != "pending" {
		t.Fatalf("flag not open")
	}
}

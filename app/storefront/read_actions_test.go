package storefront_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"reviewd/app/apptest"
	"reviewd/store"
)

// TestHelpfulVotes: one vote per visitor and review; a repeat is not counted, the
// other direction moves the vote, none withdraws it; the list shows the counts at
// once.
func TestHelpfulVotes(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{}, seedRev{state: "pending"}, seedRev{market: "TR", variant: "SKU-2"})
	want := func(res apptest.Response, vote any, counted bool, up, down int) {
		t.Helper()
		if res.Status != 200 || res.JSON["vote"] != vote || res.JSON["counted"] != counted ||
			num(res.JSON["helpful_count"]) != up || num(res.JSON["unhelpful_count"]) != down {
			t.Fatalf("got %d %s, want vote %v counted %v %d/%d", res.Status, res.Body, vote, counted, up, down)
		}
	}
	a := map[string]any{"visitor_key": "visitor-a"}
	with := func(vote string, m map[string]any) map[string]any {
		out := map[string]any{"vote": vote}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	want(f.vote(r[0], with("up", a)), "up", true, 1, 0)
	want(f.vote(r[0], with("up", a)), "up", false, 1, 0)
	want(f.vote(r[0], with("down", a)), "down", true, 0, 1)
	want(f.vote(r[0], with("none", a)), nil, false, 0, 0)
	want(f.vote(r[0], with("none", a)), nil, false, 0, 0)
	want(f.vote(r[0], with("up", a)), "up", true, 1, 0)
	want(f.voteFrom("192.0.2.2", r[0], with("up", map[string]any{"visitor_key": "visitor-b"})), "up", true, 2, 0)
	// Without visitor_key the IP address tells visitors apart.
	want(f.voteFrom("192.0.2.3", r[0], with("down", nil)), "down", true, 2, 1)
	want(f.voteFrom("192.0.2.3", r[0], with("down", nil)), "down", false, 2, 1)
	row := obj(f.mustList("product=SKU-1")["reviews"].([]any)[0])
	if num(row["helpful_count"]) != 2 || num(row["unhelpful_count"]) != 1 {
		t.Fatalf("list row %v", row)
	}
	var n int
	if err := f.App.DB.Read().QueryRowForTest(context.Background(), `SELECT count(*) FROM review_votes`, &n); err != nil || n != 3 {
		t.Fatalf("stored votes %d %v", n, err)
	}
	var visitor string
	_ = f.App.DB.Read().QueryRowForTest(context.Background(), `SELECT visitor FROM review_votes LIMIT 1`, &visitor)
	if strings.Contains(visitor, "visitor-a") || len(visitor) != 32 {
		t.Fatalf("visitor stored as %q", visitor)
	}

	for _, c := range []struct {
		id   string
		body any
		want string
	}{
		{r[0], map[string]any{"vote": "maybe"}, "invalid / vote"},
		{r[0], map[string]any{"vote": 1}, "invalid / vote"},
		{r[0], map[string]any{}, "invalid / vote"},
		{r[0], "{", "invalid_json / invalid_json"},
		{r[1], map[string]any{"vote": "up"}, "not_found / not_found"},
		{"r_aaaaaaaaaaaaaaaaaaaa", map[string]any{"vote": "up"}, "not_found / not_found"},
		{"xyz", map[string]any{"vote": "up"}, "not_found / not_found"},
	} {
		res := f.vote(c.id, c.body)
		if res.Code() != c.want {
			t.Errorf("%s %v: %d %s, want %s", c.id, c.body, res.Status, res.Body, c.want)
		}
	}
	// Another market's review is not shown here (syndication off).
	f.Channel("gb", "GB", "en")
	gb := f.seed(seedRev{market: "GB"})
	wantCode(t, f.vote(gb[0], map[string]any{"vote": "up"}), 404, "not_found / not_found")
	f.settings(map[string]any{"syndication_enabled": true})
	want(f.vote(gb[0], map[string]any{"vote": "up"}), "up", true, 1, 0)
	// The site key is required.
	res := f.Do("POST", "/v1/reviews/"+r[0]+"/helpful", map[string]any{"vote": "up"}, map[string]string{"Origin": "https://shop.example"})
	wantCode(t, res, 403, "refused / unknown_site_key")
}

// TestHelpfulVotesRateLimit: votes, reports and views share the per-IP limit.
func TestHelpfulVotesRateLimit(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{})
	limited := 0
	for i := 0; i < 130; i++ {
		if f.vote(r[0], map[string]any{"vote": "up", "visitor_key": fmt.Sprint(i)}).Status == 429 {
			limited++
		}
	}
	if limited != 10 {
		t.Fatalf("%d of 130 limited, want 10 (120 per minute)", limited)
	}
	wantCode(t, f.post("/v1/reviews/"+r[0]+"/report", map[string]any{"reason": "spam"}), 429, "rate_limited / rate_limited")
}

// TestReports: only published reviews; one open report per visitor and review
// (the same id comes back); reasons from report_reasons; notes up to 1000 chars.
func TestReports(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{}, seedRev{state: "hidden"})
	report := func(id string, body map[string]any) apptest.Response {
		t.Helper()
		return f.post("/v1/reviews/"+id+"/report", body)
	}
	res := report(r[0], map[string]any{"reason": "spam", "note": "Reklam içeriyor", "visitor_key": "v1"})
	if res.Status != 201 || !strings.HasPrefix(res.JSON["id"].(string), "rp_") {
		t.Fatalf("report: want 201, got %s", res)
	}
	first := res.JSON["id"]
	res = report(r[0], map[string]any{"reason": "fake", "visitor_key": "v1"})
	if res.Status != 200 || res.JSON["id"] != first {
		t.Fatalf("repeat: want 200, got %s", res)
	}
	res = report(r[0], map[string]any{"reason": "offensive", "visitor_key": "v2"})
	if res.Status != 201 || res.JSON["id"] == first {
		t.Fatalf("other visitor: want 201, got %s", res)
	}
	// Without visitor_key: the IP address.
	ipFirst := report(r[0], map[string]any{"reason": "other"})
	if ipFirst.Status != 201 || report(r[0], map[string]any{"reason": "other"}).JSON["id"] != ipFirst.JSON["id"] {
		t.Fatalf("by IP: %s", ipFirst.Body)
	}
	reports, err := f.App.DB.Read().ReportsOfReview(context.Background(), f.review(r[0]).ID)
	if err != nil || len(reports) != 3 || reports[0].Note != "Reklam içeriyor" || reports[0].Reason != "spam" ||
		reports[0].State != "open" || strings.Contains(reports[0].Visitor, "v1") {
		t.Fatalf("stored %+v %v", reports, err)
	}
	// Once a moderator closed the reports, the same visitor may report again.
	if err := f.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
		_, err := tx.CloseReports(context.Background(), f.review(r[0]).ID, "moderator")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if res = report(r[0], map[string]any{"reason": "spam", "visitor_key": "v1"}); res.Status != 201 || res.JSON["id"] == first {
		t.Fatalf("after closing: want 201, got %s", res)
	}
	for _, c := range []struct {
		id   string
		body map[string]any
		want string
	}{
		{r[0], map[string]any{"reason": "boring"}, "invalid_reason / invalid_reason"},
		{r[0], map[string]any{}, "invalid_reason / invalid_reason"},
		{r[0], map[string]any{"reason": "spam", "note": strings.Repeat("ş", 1001)}, "invalid / note_too_long"},
		{r[1], map[string]any{"reason": "spam"}, "not_found / not_found"},
		{"r_aaaaaaaaaaaaaaaaaaaa", map[string]any{"reason": "spam"}, "not_found / not_found"},
	} {
		if res := report(c.id, c.body); res.Code() != c.want {
			t.Errorf("%v: %d %s, want %s", c.body, res.Status, res.Body, c.want)
		}
	}
	if res := report(r[0], map[string]any{"reason": "other", "note": strings.Repeat("ş", 1000), "visitor_key": "v9"}); res.Status != 201 {
		t.Fatalf("1000 chars: want 201, got %s", res)
	}
}

// TestViews: the body is JSON sent as text/plain; the width is stored as a range;
// invalid optional fields only drop out; bots, link previews and prefetches are
// answered 204 but not counted; in-app browsers and phones named *bot are counted.
func TestViews(t *testing.T) {
	f := newFx(t)
	const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
	view := func(body string, hdr map[string]string) apptest.Response {
		t.Helper()
		h := map[string]string{"Origin": "https://shop.example", "Content-Type": "text/plain;charset=UTF-8", "User-Agent": chrome}
		for k, v := range hdr {
			h[k] = v
		}
		return f.Do("POST", "/v1/views?key="+f.site, body, h)
	}
	for _, c := range []struct {
		body string
		hdr  map[string]string
	}{
		{`{"product":"SKU-1","scope":"variant","shown":"default","style":"cards","theme":"night","width":1280}`, nil},
		{`{"product":"SKU-1","scope":"variant","shown":"default","style":"cards","theme":"night","width":1920.5}`, nil},
		{`{"product":"SKU-1","scope":"variant","shown":"headless","width":479}`, nil},
		{`{"product":"SKU-1","scope":"variant","shown":"sideways","style":"grid","theme":"pink","width":"wide"}`, nil},
		{`{"product":"SKU-1","scope":"group","width":768}`, map[string]string{"Content-Type": "application/json"}},
		{`{"product":"SKU-1","scope":"variant","width":500}`, map[string]string{"User-Agent": "Mozilla/5.0 (Linux; Android 12; CUBOT KingKong 7) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"}},
		{`{"product":"SKU-1","scope":"variant","width":500}`, map[string]string{"User-Agent": "Mozilla/5.0 (iPhone) Mobile/15E148 Instagram 312.0.0.0"}},
		// Not counted:
		{`{"product":"SKU-1","scope":"variant"}`, map[string]string{"User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1)"}},
		{`{"product":"SKU-1","scope":"variant"}`, map[string]string{"User-Agent": "facebookexternalhit/1.1"}},
		{`{"product":"SKU-1","scope":"variant"}`, map[string]string{"User-Agent": "WhatsApp/2.23.20.0"}},
		{`{"product":"SKU-1","scope":"variant"}`, map[string]string{"Sec-Purpose": "prefetch"}},
		{`{"product":"SKU-1","scope":"variant"}`, map[string]string{"Purpose": "prefetch"}},
		{`{"product":"SKU-1","scope":"variant"}`, map[string]string{"X-Moz": "prefetch"}},
	} {
		if res := view(c.body, c.hdr); res.Status != 204 || len(res.Body) != 0 {
			t.Fatalf("%s: %d %s", c.body, res.Status, res.Body)
		}
	}
	got, err := f.App.DB.Read().ComponentViews(context.Background(), "2026-06-01", "2026-06-01")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, v := range got {
		rows = append(rows, fmt.Sprintf("%s/%s/%s/%s/%s/%s=%d", v.Scope, v.ProductKey, v.Shown, v.Style, v.Theme, v.Width, v.Views))
	}
	want := "group/SKU-1////768-1199=1," +
		"variant/SKU-1////=1," +
		"variant/SKU-1////480-767=2," +
		"variant/SKU-1/default/cards/night/1200+=2," +
		"variant/SKU-1/headless///0-479=1"
	if strings.Join(rows, ",") != want {
		t.Fatalf("views\n got %s\nwant %s", strings.Join(rows, ","), want)
	}
	for _, c := range []struct{ body, want string }{
		{`{"scope":"variant"}`, "invalid / product"},
		{`{"product":"","scope":"variant"}`, "invalid / product"},
		{`{"product":7,"scope":"variant"}`, "invalid / product"},
		{`{"product":"` + strings.Repeat("p", 129) + `","scope":"variant"}`, "invalid / product"},
		{`{"product":"SKU-1"}`, "invalid / scope"},
		{`{"product":"SKU-1","scope":"sku"}`, "invalid / scope"},
		{`product=SKU-1`, "invalid_json / invalid_json"},
		{``, "invalid / body_empty"},
	} {
		if res := view(c.body, nil); res.Code() != c.want {
			t.Errorf("%s: %d %s, want %s", c.body, res.Status, res.Body, c.want)
		}
	}
}

// TestListConcurrentChanges: lists read while votes change the product answer the
// latest counts once the votes are done, and concurrent builds of one answer agree.
func TestListConcurrentChanges(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{})
	done := make(chan error, 32)
	for g := 0; g < 16; g++ {
		go func(g int) {
			for i := 0; i < 10; i++ {
				res := f.list("product=SKU-1")
				if res.Status != 200 {
					done <- fmt.Errorf("list %d", res.Status)
					return
				}
			}
			done <- nil
		}(g)
		go func(g int) {
			res := f.voteFrom(fmt.Sprintf("192.0.2.%d", g+1), r[0], map[string]any{"vote": "up", "visitor_key": fmt.Sprint("v", g)})
			if res.Status != 200 {
				done <- fmt.Errorf("vote %d %s", res.Status, res.Body)
				return
			}
			done <- nil
		}(g)
	}
	for i := 0; i < 32; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if row := obj(f.mustList("product=SKU-1")["reviews"].([]any)[0]); num(row["helpful_count"]) != 16 {
		t.Fatalf("helpful_count %v", row["helpful_count"])
	}
}

package admin_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/app/core/marketplace"
	"reviewd/app/platform/platformtest"
	"reviewd/store"
)

// marketFx is an installation with channel web-tr (TR, Turkish), a catalogue of
// three products posted by the store server, a signed-in owner and a site key.
type marketFx struct {
	t    *testing.T
	env  *apptest.Env
	b    *browser
	site string
}

func newMarketFx(t *testing.T) *marketFx {
	t.Helper()
	return newMarketFxWith(t, nil)
}

// newMarketFxWith is newMarketFx with the configuration changed by edit.
func newMarketFxWith(t *testing.T, edit func(*app.Config)) *marketFx {
	t.Helper()
	env := apptest.NewWith(t, cli.TestSurfaces, edit)
	env.Channel("web-tr", "TR", "tr")
	env.User(access.NewUser{Username: "ayse", Email: "ayse@shop.example", Role: "owner", Password: "Copper-Lantern-58"})
	b := newBrowser(t, env)
	expect(t, b.signIn("ayse", "Copper-Lantern-58"), 200, "")
	f := &marketFx{t: t, env: env, b: b, site: env.Key("site", "web-tr")}
	server := env.Key("server", "web-tr")
	res := env.Do("POST", "/v1/ingest/products", map[string]any{"products": []map[string]any{
		{"variant_key": "MUG-BLUE", "group_key": "MUG", "name": "Blue mug", "gtin": "8690000000011", "brand": "Acme"},
		{"variant_key": "MUG-RED", "group_key": "MUG", "name": "Red mug", "gtin": "8690000000028", "catalog_id": "C-RED"},
		{"variant_key": "LAMP", "name": "Desk lamp", "catalog_id": "C-LAMP"},
	}}, map[string]string{"Authorization": "Bearer " + server})
	expect(t, res, 200, "")
	if res.JSON["accepted"] != float64(3) {
		t.Fatalf("accepted: %s", res)
	}
	return f
}

func (f *marketFx) do(method, path string, body any) apptest.Response {
	f.t.Helper()
	return f.b.do(method, path, body, method != "GET")
}

// upload posts a multipart file (and extra form fields) in the panel session.
func (f *marketFx) upload(path, name string, file []byte, fields map[string]string) apptest.Response {
	f.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if file != nil {
		w, _ := mw.CreateFormFile("file", name)
		_, _ = w.Write(file)
	}
	_ = mw.Close()
	return f.env.Do("POST", path, buf.Bytes(), map[string]string{"Content-Type": mw.FormDataContentType(),
		"Cookie": access.SessionCookie + "=" + f.b.cookie, "X-Service-CSRF": f.b.csrf})
}

func (f *marketFx) source(platform, route string, extra map[string]any) string {
	f.t.Helper()
	body := map[string]any{"platform": platform, "channel": "web-tr", "seller_id": "S-1", "route": route}
	for k, v := range extra {
		body[k] = v
	}
	res := f.do("POST", "/admin/v1/marketplace/sources", body)
	expect(f.t, res, 201, "")
	return res.JSON["id"].(string)
}

// waitRun waits until the newest run of a connection has ended and returns it.
func (f *marketFx) waitRun(src string) map[string]any {
	f.t.Helper()
	var run map[string]any
	apptest.Eventually(f.t, "the marketplace run of "+src+" to end", 15*time.Minute, func() (bool, string) {
		res := f.do("GET", "/admin/v1/marketplace/sources/"+src+"/runs", nil)
		items, _ := res.JSON["items"].([]any)
		if len(items) == 0 {
			return false, res.String()
		}
		run = items[0].(map[string]any)
		s := run["state"].(string)
		return s != "queued" && s != "running", s
	})
	return run
}

func (f *marketFx) list(query string) map[string]any {
	f.t.Helper()
	res := f.env.Do("GET", "/v1/reviews/list?key="+url.QueryEscape(f.site)+"&"+query, nil,
		map[string]string{"Origin": "https://shop.example"})
	expect(f.t, res, 200, "")
	return res.JSON
}

func counts(run map[string]any) map[string]any { return run["counts"].(map[string]any) }
func report(run map[string]any) map[string]any { return run["report"].(map[string]any) }

// marketRows are the rows of every test file: two reviews of the blue mug (one
// with its marketplace address, one with an address elsewhere), one of the red mug
// found by catalog id, one with an unknown barcode, one without a barcode and one
// with a bad rating.
func marketRows(platform string) [][]string {
	own := map[string]string{"trendyol": "https://www.trendyol.com/acme/mug-p-1/yorumlar?r=1",
		"hepsiburada": "https://www.hepsiburada.com/mug-p-1-yorumlari", "n11": "https://urun.n11.com/mug-P1/yorum",
		"amazon": "https://www.amazon.com.tr/review/R1", "ciceksepeti": "https://www.ciceksepeti.com/mug/yorum/1"}[platform]
	return [][]string{
		{"R-1", "8690000000011", "5", "Harika", "Çok güzel bir kupa, tavsiye ederim.", "Ayşe K.", "2026-05-01", own, "", "S-1"},
		{"R-2", "8690000000011", "3", "", "Rengi fotoğraftaki gibi değil.", "Mehmet", "2026-05-02T10:00:00Z", "https://evil.example/r2", "https://img.example/1.jpg https://img.example/2.jpg", ""},
		{"R-3", "C-RED", "4", "Güzel", "Kırmızısı çok canlı.", "Zeynep", "02.05.2026", "", "", "S-1"},
		{"R-4", "9999999999999", "2", "", "Kırık geldi.", "Ali", "", "", "", ""},
		{"R-5", "", "4", "", "Barkodsuz satır.", "Can", "", "", "", ""},
		{"R-6", "8690000000011", "7", "", "Puan hatalı.", "Ece", "", "", "", ""},
	}
}

// header is the column names of a platform's own export, or the canonical ones.
func header(platform string, own bool) []string {
	out := make([]string, len(marketplace.Columns))
	p, _ := marketplace.PlatformOf(platform)
	for i, c := range marketplace.Columns {
		out[i] = c
		if own {
			out[i] = p.Columns[c]
		}
	}
	return out
}

func csvFile(t *testing.T, head []string, rows [][]string, comma rune) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Comma = comma
	_ = w.Write(head)
	_ = w.WriteAll(rows)
	return buf.Bytes()
}

func xlsxFile(t *testing.T, head []string, rows [][]string) []byte {
	x := excelize.NewFile()
	defer x.Close()
	sw, err := x.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	all := append([][]string{head}, rows...)
	for i, r := range all {
		cells := make([]any, len(r))
		for j, v := range r {
			cells[j] = v
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := sw.SetRow(cell, cells); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := x.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jsonFile(t *testing.T, head []string, rows [][]string) []byte {
	var objs []map[string]any
	for _, r := range rows {
		o := map[string]any{}
		for i, h := range head {
			o[h] = r[i]
		}
		objs = append(objs, o)
	}
	b, _ := json.Marshal(map[string]any{"reviews": objs})
	return b
}

// TestMarketplaceFilesEndToEnd: a file of each marketplace in its own export
// format (its seller panel's column names; the canonical names are read by
// TestMarketplaceFeed and TestMarketplaceBigFile) is imported, its reviews appear on the storefront with the
// marketplace's label, count in the aggregate and not as verified, and are removed
// again by a removal request.
func TestMarketplaceFilesEndToEnd(t *testing.T) {
	cases := []struct {
		platform, format string
		own              bool
		label            string
	}{
		{"trendyol", "csv", true, "Trendyol sitesinden aktarıldı"},
		{"hepsiburada", "xlsx", true, "Hepsiburada sitesinden aktarıldı"},
		{"n11", "json", true, "n11 sitesinden aktarıldı"},
		{"amazon", "csv;", true, "Amazon sitesinden aktarıldı"},
		{"ciceksepeti", "xlsx", true, "Çiçeksepeti sitesinden aktarıldı"},
	}
	for _, tc := range cases {
		t.Run(tc.platform, func(t *testing.T) {
			f := newMarketFx(t)
			src := f.source(tc.platform, "file", nil)
			head, rows := header(tc.platform, tc.own), marketRows(tc.platform)
			var file []byte
			switch tc.format {
			case "csv":
				file = csvFile(t, head, rows, ',')
			case "csv;":
				file = csvFile(t, head, rows, ';')
			case "xlsx":
				file = xlsxFile(t, head, rows)
			case "json":
				file = jsonFile(t, head, rows)
			}
			// The dry run writes nothing.
			res := f.upload("/admin/v1/marketplace/sources/"+src+"/check", "export."+tc.format, file, nil)
			expect(t, res, 200, "")
			if res.JSON["rows"] != float64(6) || res.JSON["would_import"] != float64(3) || res.JSON["eligible"] != float64(3) ||
				res.JSON["matched_barcodes"] != float64(2) || res.JSON["unmatched_barcodes"] != float64(2) {
				t.Fatalf("check: %s", res)
			}
			if l := f.list("product=MUG-BLUE"); len(l["reviews"].([]any)) != 0 {
				t.Fatalf("the dry run imported: %v", l["reviews"])
			}

			res = f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "export."+tc.format, file, nil)
			expect(t, res, 202, "")
			run := f.waitRun(src)
			if run["state"] != "succeeded" {
				t.Fatalf("run: %v", run)
			}
			c, rep := counts(run), report(run)
			if c["imported"] != float64(3) || c["unmatched"] != float64(2) || c["skipped"] != float64(1) ||
				rep["skips"].(map[string]any)["rating_invalid"] != float64(1) || rep["photos_missing"] != float64(2) {
				t.Fatalf("run counts: %v", run)
			}
			reasons := map[string]string{}
			for _, u := range rep["unmatched"].([]any) {
				u := u.(map[string]any)
				reasons[u["barcode"].(string)] = u["reason"].(string)
			}
			if reasons["9999999999999"] != "no_product" || reasons[""] != "no_barcode" {
				t.Fatalf("unmatched: %v", rep["unmatched"])
			}

			// Storefront: labelled, not verified, counted in the aggregate.
			l := f.list("product=MUG-BLUE")
			revs := l["reviews"].([]any)
			if len(revs) != 2 {
				t.Fatalf("storefront: %v", revs)
			}
			byAuthor := map[string]map[string]any{}
			for _, r := range revs {
				r := r.(map[string]any)
				byAuthor[r["body"].(string)] = r
				if r["origin"] != "imported" || r["origin_label"] != tc.label || r["verified"] != false || r["verification_method"] != "" {
					t.Fatalf("imported row: %v", r)
				}
			}
			first := byAuthor["Çok güzel bir kupa, tavsiye ederim."]
			if !strings.HasPrefix(first["origin_url"].(string), "https://") ||
				byAuthor["Rengi fotoğraftaki gibi değil."]["origin_url"] != "" {
				t.Fatalf("origin_url only on the marketplace's domain: %v", revs)
			}
			agg := l["aggregate"].(map[string]any)
			if agg["count"] != float64(2) || agg["average"] != float64(4) || agg["imported_count"] != float64(2) ||
				agg["verified_count"] != float64(0) || agg["imported_label"] == "" || agg["structured_count"] != float64(0) {
				t.Fatalf("aggregate: %v", agg)
			}
			if v := f.list("product=MUG-BLUE&verified=1"); len(v["reviews"].([]any)) != 0 {
				t.Fatalf("verified filter shows imported reviews: %v", v["reviews"])
			}
			if r := f.list("product=MUG-RED"); len(r["reviews"].([]any)) != 1 {
				t.Fatalf("catalog id match: %v", r["reviews"])
			}

			// The imported-review list finds them by marketplace review number.
			res = f.do("GET", "/admin/v1/marketplace/imported-reviews?q=R-1&platform="+tc.platform, nil)
			expect(t, res, 200, "")
			items := res.JSON["items"].([]any)
			if len(items) != 1 || items[0].(map[string]any)["source_review_id"] != "R-1" {
				t.Fatalf("imported list: %s", res)
			}
			id := items[0].(map[string]any)["id"].(string)

			// A connection with live reviews cannot go.
			expect(t, f.do("DELETE", "/admin/v1/marketplace/sources/"+src, nil), 409, "source_has_reviews / source_has_reviews")

			// Removal request: gone from the storefront, and a new read does not bring it back.
			res = f.do("POST", "/admin/v1/marketplace/removals", map[string]any{"reviews": []string{id}, "note": "reviewer asked"})
			expect(t, res, 201, "")
			if res.JSON["state"] != "completed" || len(res.JSON["reviews"].([]any)) != 1 {
				t.Fatalf("removal: %s", res)
			}
			if l := f.list("product=MUG-BLUE"); len(l["reviews"].([]any)) != 1 {
				t.Fatalf("removed review still shown: %v", l["reviews"])
			}
			expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "export."+tc.format, file, nil), 202, "")
			run = f.waitRun(src)
			if run["state"] != "succeeded" || counts(run)["imported"] != float64(0) ||
				report(run)["skips"].(map[string]any)["removed_by_request"] != float64(1) {
				t.Fatalf("second run: %v", run)
			}
			if l := f.list("product=MUG-BLUE"); len(l["reviews"].([]any)) != 1 {
				t.Fatalf("removed review came back: %v", l["reviews"])
			}
		})
	}
}

// TestMarketplaceHeldRemovals: a file that no longer lists a review holds its
// removal back (state held, held_products, attention) until a run with
// confirm_removals; a changed row updates the review.
func TestMarketplaceHeldRemovals(t *testing.T) {
	f := newMarketFx(t)
	src := f.source("trendyol", "file", nil)
	head, rows := header("trendyol", true), marketRows("trendyol")
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "a.csv", csvFile(t, head, rows, ','), nil), 202, "")
	if run := f.waitRun(src); run["state"] != "succeeded" {
		t.Fatalf("first run: %v", run)
	}
	less := [][]string{rows[0], rows[2]}
	less[0] = append([]string(nil), less[0]...)
	less[0][4] = "Çok güzel bir kupa, güncellendi."
	file := csvFile(t, head, less, ',')
	res := f.upload("/admin/v1/marketplace/sources/"+src+"/check", "b.csv", file, nil)
	expect(t, res, 200, "")
	if res.JSON["would_remove"] != float64(1) || res.JSON["would_update"] != float64(1) {
		t.Fatalf("check: %s", res)
	}
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "b.csv", file, nil), 202, "")
	run := f.waitRun(src)
	if run["state"] != "held" || counts(run)["held"] != float64(1) || counts(run)["updated"] != float64(1) {
		t.Fatalf("held run: %v", run)
	}
	held := report(run)["held_products"].([]any)
	if len(held) != 1 || held[0].(map[string]any)["variant_key"] != "MUG-BLUE" {
		t.Fatalf("held products: %v", held)
	}
	res = f.do("GET", "/admin/v1/marketplace/sources/"+src, nil)
	if att, _ := res.JSON["attention"].(map[string]any); att["kind"] != "held" || att["count"] != float64(1) {
		t.Fatalf("attention: %s", res)
	}
	if l := f.list("product=MUG-BLUE"); len(l["reviews"].([]any)) != 2 {
		t.Fatalf("held review removed: %v", l["reviews"])
	}
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "b.csv", file, map[string]string{"confirm_removals": "true"}), 202, "")
	run = f.waitRun(src)
	if run["state"] != "succeeded" || counts(run)["removed"] != float64(1) {
		t.Fatalf("confirmed run: %v", run)
	}
	l := f.list("product=MUG-BLUE")
	revs := l["reviews"].([]any)
	if len(revs) != 1 || revs[0].(map[string]any)["body"] != "Çok güzel bir kupa, güncellendi." {
		t.Fatalf("after confirmed removal: %v", revs)
	}
	// The review's history names the import and the update.
	id := revs[0].(map[string]any)["id"].(string)
	res = f.do("GET", "/admin/v1/reviews/"+id, nil)
	expect(t, res, 200, "")
	hist := fmt.Sprint(res.JSON["history"])
	if !strings.Contains(hist, "review.imported") || !strings.Contains(hist, "review.source_updated") {
		t.Fatalf("history: %s", hist)
	}
}

// TestMarketplaceSourceRules: connection rules and file problems answer the
// spec's codes and leave nothing behind.
func TestMarketplaceSourceRules(t *testing.T) {
	f := newMarketFx(t)
	src := f.source("n11", "file", nil)
	for _, c := range []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"platform": "n11", "channel": "web-tr", "seller_id": "S-1", "route": "file"}, "source_exists / source_exists"},
		{map[string]any{"platform": "etsy", "channel": "web-tr", "seller_id": "S-1", "route": "file"}, "invalid / platform"},
		{map[string]any{"platform": "n11", "channel": "web-xx", "seller_id": "S-2", "route": "file"}, "invalid / channel"},
		{map[string]any{"platform": "n11", "channel": "web-tr", "seller_id": "S-2", "route": "feed"}, "invalid / feed_url_required"},
		{map[string]any{"platform": "n11", "channel": "web-tr", "seller_id": "S-2", "route": "feed", "feed_url": "http://n11.example/f"}, "invalid / feed_url_not_https"},
		{map[string]any{"platform": "n11", "channel": "web-tr", "seller_id": "S-2", "route": "file", "feed_url": "https://n11.example/f"}, "invalid / feed_url_not_applicable"},
	} {
		res := f.do("POST", "/admin/v1/marketplace/sources", c.body)
		want := 400
		if strings.HasPrefix(c.code, "source_exists") {
			want = 409
		}
		expect(t, res, want, c.code)
	}
	feed := f.source("trendyol", "feed", map[string]any{"feed_url": "https://feeds.trendyol.com/r", "secret": "tok-123"})
	res := f.do("GET", "/admin/v1/marketplace/sources", nil)
	expect(t, res, 200, "")
	if strings.Contains(string(res.Body), "tok-123") || len(res.JSON["platforms"].([]any)) != 5 || len(res.JSON["routes"].([]any)) != 2 {
		t.Fatalf("list: %s", res)
	}
	for _, it := range res.JSON["items"].([]any) {
		it := it.(map[string]any)
		if it["id"] == feed && it["has_secret"] != true {
			t.Fatalf("has_secret: %v", it)
		}
	}
	expect(t, f.do("PATCH", "/admin/v1/marketplace/sources/"+feed, map[string]any{"seller_id": "S-9"}), 400, "invalid / seller_id_locked")
	expect(t, f.do("PATCH", "/admin/v1/marketplace/sources/"+src, map[string]any{"enabled": false}), 200, "")
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "a.csv", []byte("review_id,barcode,rating\nR,1,5\n"), nil), 409, "source_inactive / source_inactive")
	expect(t, f.do("PATCH", "/admin/v1/marketplace/sources/"+src, map[string]any{"enabled": true}), 200, "")

	files := []struct {
		name string
		body []byte
		code string
	}{
		{"a.csv", []byte("review_id,rating\nR-1,5\n"), "invalid / column_missing: barcode"},
		{"a.xls", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1rest"), "invalid / unsupported_format"},
		{"a.json", []byte(`[{"review_id": "R-1", "barcode": "1", "rating": 5}, {`), "invalid / file_unreadable"},
		{"a.xlsx", []byte("PK\x03\x04broken"), "invalid / file_unreadable"},
	}
	for _, c := range files {
		expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", c.name, c.body, nil), 400, c.code)
	}
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "", nil, nil), 400, "invalid / file_required")
	var big bytes.Buffer
	big.WriteString("review_id,barcode,rating\n")
	for i := 0; i <= marketplace.MaxFileRows; i++ {
		fmt.Fprintf(&big, "R-%d,8690000000011,5\n", i)
	}
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "big.csv", big.Bytes(), nil), 400, "invalid / too_many_rows")
	huge := bytes.Repeat([]byte("x"), marketplace.MaxFileBytes+10)
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "huge.csv", huge, nil), 400, "invalid / too_large")
	res = f.do("GET", "/admin/v1/marketplace/sources/"+src+"/runs", nil)
	if len(res.JSON["items"].([]any)) != 0 {
		t.Fatalf("refused files left runs: %s", res)
	}
	// Removals: only imported review ids, at most 100.
	expect(t, f.do("POST", "/admin/v1/marketplace/removals", map[string]any{"reviews": []string{"r_aaaaaaaaaaaaaaaaaaaa"}}), 400, "invalid / reviews")
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("r_%020d", i)
	}
	expect(t, f.do("POST", "/admin/v1/marketplace/removals", map[string]any{"reviews": many}), 400, "invalid / reviews")
	// A connection without reviews goes.
	expect(t, f.do("DELETE", "/admin/v1/marketplace/sources/"+feed, nil), 204, "")
	// Keys never reach these endpoints.
	key := f.env.Key("api", "", "read", "write")
	expect(t, f.env.Do("GET", "/admin/v1/marketplace/sources", nil, map[string]string{"Authorization": "Api-Key " + key}), 403, "forbidden / panel_session_required")
}

// TestMarketplaceFeed: a feed connection is read by the marketplace job through
// an https server (paged with next, authenticated with the secret); a feed that
// repeats its cursor fails with cursor_repeated and shows as attention.
func TestMarketplaceFeed(t *testing.T) {
	f := newMarketFx(t)
	var loop bool
	rows := marketRows("trendyol")
	head := header("trendyol", false)
	srv := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-123" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		page := r.URL.Query().Get("page")
		objs := []map[string]any{}
		part := rows[:3]
		next := "/reviews?page=2"
		if page == "2" {
			part, next = rows[3:], ""
			if loop {
				next = "/reviews?page=1"
			}
		}
		for _, r := range part {
			o := map[string]any{}
			for i, h := range head {
				o[h] = r[i]
			}
			objs = append(objs, o)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"reviews": objs, "next": next})
	}), "feeds.trendyol.com")
	f.env.App.Marketplace.Outbound = srv.Client
	src := f.source("trendyol", "feed", map[string]any{"feed_url": "https://feeds.trendyol.com/reviews?page=1", "secret": "tok-123"})

	res := f.do("POST", "/admin/v1/marketplace/sources/"+src+"/check", map[string]any{"scope": "full"})
	expect(t, res, 200, "")
	if res.JSON["would_import"] != float64(3) {
		t.Fatalf("feed check: %s", res)
	}
	read, failed, err := f.env.App.Marketplace.RunDue(context.Background(), f.env.Clock.Now())
	if err != nil || read != 1 || failed != 0 {
		t.Fatalf("job: %d read, %d failed, %v", read, failed, err)
	}
	run := f.waitRun(src)
	if run["state"] != "succeeded" || counts(run)["imported"] != float64(3) || run["trigger"] != "schedule" {
		t.Fatalf("feed run: %v", run)
	}
	if l := f.list("product=MUG-BLUE"); len(l["reviews"].([]any)) != 2 {
		t.Fatalf("storefront after feed: %v", l["reviews"])
	}
	// Not due again until its interval passed.
	if read, _, _ := f.env.App.Marketplace.RunDue(context.Background(), f.env.Clock.Now()); read != 0 {
		t.Fatalf("read again at once")
	}
	loop = true
	expect(t, f.do("POST", "/admin/v1/marketplace/sources/"+src+"/runs", map[string]any{"scope": "new"}), 202, "")
	run = f.waitRun(src)
	if run["state"] != "failed" || run["error"] != "cursor_repeated" {
		t.Fatalf("looping feed: %v", run)
	}
	res = f.do("GET", "/admin/v1/marketplace/sources/"+src, nil)
	if att, _ := res.JSON["attention"].(map[string]any); att["kind"] != "failed" || att["error"] != "cursor_repeated" {
		t.Fatalf("attention: %s", res)
	}
	expect(t, f.do("POST", "/admin/v1/marketplace/sources/"+src+"/runs", map[string]any{"scope": "some"}), 400, "invalid / scope")

	// A read left queued by a process that ended blocks the connection until the
	// job fails it as interrupted.
	n, _ := strconv.ParseInt(strings.TrimPrefix(src, "mks_"), 10, 64)
	err = f.env.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
		_, err := tx.CreateMarketplaceRun(context.Background(), store.MarketplaceRun{SourceID: n, Trigger: "feed", Scope: "full"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, f.do("POST", "/admin/v1/marketplace/sources/"+src+"/runs", nil), 409, "run_in_progress / run_in_progress")
	f.env.Clock.T = f.env.Clock.T.Add(3 * time.Hour)
	if _, _, err := f.env.App.Marketplace.RunDue(context.Background(), f.env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	if run := f.waitRun(src); run["state"] != "failed" || run["error"] != "interrupted" {
		t.Fatalf("stale run: %v", run)
	}
	_ = io.Discard
}

package admin_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"reviewd/app/core/access"
	"reviewd/jobs"
	"reviewd/store"
)

// TestAccessLog: reads of personal data land in the access log under the key's or
// user's name and are listed with the filters action, actor, via and q; entries
// cannot be changed, and cleanup deletes them after 365 days.
func TestAccessLog(t *testing.T) {
	p := newPrivacyEnv(t)
	id, _ := p.write(review{author: "Lena Berg"})
	expect(t, p.do("GET", "/admin/v1/reviews/"+id, nil, p.read), 200, "")
	expect(t, p.owner.do("GET", "/admin/v1/reviews/"+id, nil, false), 200, "")
	expect(t, p.owner.do("GET", "/admin/v1/subject-requests", nil, false), 200, "")

	res := p.do("GET", "/admin/v1/access-log", nil, p.export)
	expect(t, res, 200, "")
	list := items(res)
	if res.JSON["total"] != float64(3) || res.JSON["page"] != float64(1) || res.JSON["page_size"] != float64(25) || res.JSON["pages"] != float64(1) ||
		list[0]["action"] != "subject_requests.listed" || list[2]["action"] != "review.viewed" || list[2]["via"] != "api_key" ||
		list[2]["target_id"] != id || list[2]["count"] != float64(1) || list[2]["actor_role"] != "key" {
		t.Fatalf("access log: %s", res)
	}
	for _, k := range []string{"action", "actor_id", "actor_role", "via", "target_type", "target_id", "count", "at"} {
		if _, ok := list[0][k]; !ok {
			t.Fatalf("row misses %s: %v", k, list[0])
		}
	}
	keyID := list[2]["actor_id"].(string)
	for query, want := range map[string]int{
		"?action=review.viewed":             2,
		"?via=session":                      2,
		"?via=api_key":                      1,
		"?actor=" + keyID:                   1,
		"?q=" + id:                          2,
		"?q=subject":                        1,
		"?via=support":                      0,
		"?action=review.viewed&via=session": 1,
		"?sort=oldest&page_size=1":          3,
	} {
		res := p.do("GET", "/admin/v1/access-log"+query, nil, p.export)
		if res.Status != 200 || res.JSON["total"] != float64(want) {
			t.Fatalf("%s: want %d, got %s", query, want, res)
		}
	}
	if res := p.do("GET", "/admin/v1/access-log?sort=oldest&page_size=1", nil, p.export); items(res)[0]["action"] != "review.viewed" || res.JSON["pages"] != float64(3) {
		t.Fatalf("oldest first: %s", res)
	}
	expect(t, p.do("GET", "/admin/v1/access-log?action=review.changed", nil, p.export), 400, "invalid / action")
	expect(t, p.do("GET", "/admin/v1/access-log?via=email", nil, p.export), 400, "invalid / via")
	expect(t, p.do("GET", "/admin/v1/access-log?page_size=500", nil, p.export), 400, "invalid / page_size")
	expect(t, p.do("GET", "/admin/v1/access-log", nil, p.read), 403, "forbidden / scope_missing")
	expect(t, p.do("GET", "/admin/v1/access-log", nil, p.mod), 403, "forbidden / scope_missing")
	expect(t, p.do("GET", "/admin/v1/access-log", nil, nil), 401, "")
	expect(t, p.owner.do("GET", "/admin/v1/access-log", nil, false), 200, "")
	expect(t, p.manager.do("GET", "/admin/v1/access-log", nil, false), 200, "")

	// Entries cannot be changed or deleted while young.
	q := p.env.App.DB.Read()
	p.tx(func(tx *store.Tx) error {
		if err := tx.ExecForTest(p.ctx, `UPDATE access_log SET count = 99`); err == nil {
			t.Error("an access-log entry was changed")
		}
		return nil
	})
	p.tx(func(tx *store.Tx) error {
		if err := tx.ExecForTest(p.ctx, `DELETE FROM access_log`); err == nil {
			t.Error("a young access-log entry was deleted")
		}
		return nil
	})
	// cleanup deletes entries older than 365 days and keeps the rest.
	old := time.Now().AddDate(0, 0, -400)
	p.tx(func(tx *store.Tx) error {
		return tx.ExecForTest(p.ctx, `INSERT INTO access_log (at, action, via) VALUES (?, 'review.viewed', 'console')`, store.Ms(old))
	})
	if n, _, _ := q.ListAccess(p.ctx, store.AccessFilter{}); len(n) != 4 {
		t.Fatalf("entries before cleanup: %d", len(n))
	}
	out, err := jobs.Cleanup{DB: p.env.App.DB}.Run(p.ctx, time.Now())
	if err != nil || !strings.Contains(out, "access_log=1") {
		t.Fatalf("cleanup: %q %v", out, err)
	}
	if n, _, _ := q.ListAccess(p.ctx, store.AccessFilter{}); len(n) != 3 {
		t.Fatalf("entries after cleanup: %d", len(n))
	}
}

// TestAuditLog: the activity history with its filters; sign-ins only with
// sessions=1; entries carry the request ID, a keyed IP hash and the browser.
func TestAuditLog(t *testing.T) {
	p := newPrivacyEnv(t)
	ua := map[string]string{"Authorization": p.mod["Authorization"], "User-Agent": "Moderation-Console/2.0", "X-Forwarded-For": "203.0.113.9"}
	id, _ := p.write(review{})
	expect(t, p.do("POST", "/admin/v1/reviews/"+id+"/transition", map[string]any{"event": "approve"}, ua), 200, "")

	res := p.do("GET", "/admin/v1/audit-log", nil, p.export)
	expect(t, res, 200, "")
	for _, it := range items(res) {
		if strings.HasPrefix(it["action"].(string), "session.") {
			t.Fatalf("a sign-in listed without sessions=1: %v", it)
		}
	}
	res = p.do("GET", "/admin/v1/audit-log?action=review.approve", nil, p.export)
	if res.Status != 200 || res.JSON["total"] != float64(1) {
		res = p.do("GET", "/admin/v1/audit-log?target_id="+id, nil, p.export)
	}
	var entry map[string]any
	for _, it := range items(res) {
		if it["target_id"] == id && it["via"] == "api_key" {
			entry = it
		}
	}
	if entry == nil || entry["user_agent"] != "Moderation-Console/2.0" || len(entry["request_id"].(string)) < 8 ||
		len(entry["ip_hash"].(string)) < 16 || strings.Contains(entry["ip_hash"].(string), "203.0.113.9") {
		t.Fatalf("moderation entry: %s", res)
	}
	if _, ok := entry["changes"].(map[string]any); !ok {
		t.Fatalf("changes is not an object: %v", entry)
	}
	signIns := func(query string) int {
		res := p.do("GET", "/admin/v1/audit-log"+query, nil, p.export)
		expect(t, res, 200, "")
		n := 0
		for _, it := range items(res) {
			if it["action"] == "session.signed_in" {
				n++
			}
		}
		return n
	}
	if n := signIns("?sessions=1&page_size=200"); n != 2 {
		t.Fatalf("sign-ins with sessions=1: %d", n)
	}
	if n := signIns("?sessions=0&page_size=200"); n != 0 {
		t.Fatalf("sign-ins with sessions=0: %d", n)
	}
	if res := p.do("GET", "/admin/v1/audit-log?sessions=1&actor=olcay&action=session.signed_in", nil, p.export); res.JSON["total"] != float64(1) {
		t.Fatalf("actor filter: %s", res)
	}
	if res := p.do("GET", "/admin/v1/audit-log?from=2030-01-01T00:00:00Z", nil, p.export); res.JSON["total"] != float64(0) {
		t.Fatalf("from filter: %s", res)
	}
	if res := p.do("GET", "/admin/v1/audit-log?via=api_key&target_type=review", nil, p.export); res.JSON["total"] == float64(0) {
		t.Fatalf("via filter: %s", res)
	}
	expect(t, p.do("GET", "/admin/v1/audit-log?from=yesterday", nil, p.export), 400, "invalid / from")
	expect(t, p.do("GET", "/admin/v1/audit-log?to=2026", nil, p.export), 400, "invalid / to")
	expect(t, p.do("GET", "/admin/v1/audit-log?sessions=yes", nil, p.export), 400, "invalid / sessions")
	expect(t, p.do("GET", "/admin/v1/audit-log", nil, p.read), 403, "forbidden / scope_missing")
	expect(t, p.do("GET", "/admin/v1/audit-log", nil, nil), 401, "")
}

// TestAuditLogExport: the export reads rows on the server (format, title,
// filters, columns, labels, changes, chosen rows), refuses malformed rows and more
// than 10,000, and records audit_log.downloaded with format, row count and the
// SHA-256 of the file.
func TestAuditLogExport(t *testing.T) {
	p := newPrivacyEnv(t)
	for i := 0; i < 3; i++ {
		id, _ := p.write(review{})
		expect(t, p.transition(id, "approve", ""), 200, "")
	}
	exp := func(body any, h map[string]string) (string, []byte, string) {
		t.Helper()
		res := p.do("POST", "/admin/v1/audit-log/export", body, h)
		if res.Status != 200 {
			t.Fatalf("export: %s", res)
		}
		return res.Header.Get("Content-Type"), res.Body, res.Header.Get("X-Service-Fingerprint")
	}
	ctype, body, fp := exp(map[string]any{"format": "json", "title": "Moderation, June", "filters": map[string]any{"target_type": "review", "via": "api_key"},
		"columns": []string{"at", "action", "target_id"}, "labels": map[string]string{"action": "What"}, "changes": true}, p.export)
	sum := sha256.Sum256(body)
	if !strings.HasPrefix(ctype, "application/json") || fp != hex.EncodeToString(sum[:]) {
		t.Fatalf("json export: %s %s", ctype, fp)
	}
	var doc struct {
		Title   string
		Columns []struct{ Key, Label string }
		Rows    []map[string]any
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Moderation, June" || len(doc.Rows) == 0 || len(doc.Columns) != 4 || doc.Columns[1].Label != "What" || doc.Columns[3].Key != "changes" {
		t.Fatalf("json doc: %s", body)
	}
	for _, r := range doc.Rows {
		if len(r) != 4 || r["target_id"] == nil || r["actor_name"] != nil {
			t.Fatalf("json row: %v", r)
		}
	}
	e := p.activity("audit_log.downloaded")
	if len(e) != 1 || e[0].ActorType != "api_key" || !strings.Contains(e[0].Detail, `"sha256":"`+fp+`"`) ||
		!strings.Contains(e[0].Detail, `"format":"json"`) || !strings.Contains(e[0].Detail, `"rows":`) {
		t.Fatalf("download entry: %+v", e)
	}

	_, body, _ = exp(map[string]any{"columns": []string{"id", "action"}, "labels": map[string]string{"id": "Entry", "action": "=Action"}}, p.export)
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if lines[0] != "Entry,'=Action" || len(lines) < 4 {
		t.Fatalf("csv export: %s", body)
	}
	_, body, _ = exp(map[string]any{"format": "xlsx", "title": "All"}, p.export)
	xf, err := excelize.OpenReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := xf.GetRows("audit-log"); len(rows) < 4 || rows[0][0] != "id" {
		t.Fatalf("xlsx rows: %v", rows)
	}

	// Chosen rows: exactly those entries.
	all := items(p.do("GET", "/admin/v1/audit-log?page_size=200", nil, p.export))
	chosen := []any{all[0]["id"], all[2]["id"]}
	_, body, _ = exp(map[string]any{"format": "json", "rows": chosen}, p.export)
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Rows) != 2 {
		t.Fatalf("chosen rows: %s", body)
	}
	// Sign-ins are exported only with sessions.
	_, body, _ = exp(map[string]any{"format": "json", "filters": map[string]any{"action": "session.signed_in"}}, p.export)
	if json.Unmarshal(body, &doc); len(doc.Rows) != 0 {
		t.Fatalf("sign-ins without sessions: %s", body)
	}
	_, body, _ = exp(map[string]any{"format": "json", "filters": map[string]any{"action": "session.signed_in", "sessions": true}}, p.export)
	if json.Unmarshal(body, &doc); len(doc.Rows) != 2 {
		t.Fatalf("sign-ins with sessions: %s", body)
	}

	for body, code := range map[string]string{
		`{"rows": "all"}`:                               "invalid / rows",
		`{"rows": []}`:                                  "invalid / rows",
		`{"rows": [1.5]}`:                               "invalid / rows",
		`{"rows": [-3]}`:                                "invalid / rows",
		`{"rows": [999999]}`:                            "invalid / rows",
		`{"format": "pdf"}`:                             "invalid / format",
		`{"columns": ["password"]}`:                     "invalid / columns",
		`{"columns": ["id", "id"]}`:                     "invalid / columns",
		`{"columns": []}`:                               "invalid / columns",
		`{"labels": {"detail": "x"}}`:                   "invalid / labels",
		`{"labels": ["x"]}`:                             "invalid / labels",
		`{"filters": {"colour": "red"}}`:                "invalid / filters",
		`{"filters": {"from": "monday"}}`:               "invalid / filters",
		`{"changes": "yes"}`:                            "invalid / changes",
		`{"title": "` + strings.Repeat("t", 201) + `"}`: "invalid / title",
	} {
		expect(t, p.do("POST", "/admin/v1/audit-log/export", body, p.export), 400, code)
	}
	ids := make([]int, 10001)
	for i := range ids {
		ids[i] = i + 1
	}
	expect(t, p.do("POST", "/admin/v1/audit-log/export", map[string]any{"rows": ids}, p.export), 400, "invalid / rows_over_limit")
	// More than 10,000 entries selected by the filters.
	p.tx(func(tx *store.Tx) error {
		return tx.ExecForTest(p.ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10001)
			INSERT INTO activity_log (at, action, actor_type) SELECT 1, 'bulk.test', 'console' FROM n`)
	})
	expect(t, p.do("POST", "/admin/v1/audit-log/export", map[string]any{"filters": map[string]any{"action": "bulk.test"}}, p.export), 400, "invalid / rows_over_limit")
	if e := p.activity("audit_log.downloaded"); len(e) != 6 {
		t.Fatalf("refused exports were recorded: %d entries", len(e))
	}
	expect(t, p.do("POST", "/admin/v1/audit-log/export", map[string]any{}, p.read), 403, "forbidden / scope_missing")
	expect(t, p.owner.do("POST", "/admin/v1/audit-log/export", map[string]any{}, false), 403, "forbidden / csrf_missing")
	res := p.owner.do("POST", "/admin/v1/audit-log/export", map[string]any{"format": "json", "filters": map[string]any{"action": "review.approve"}}, true)
	if res.Status != 200 || res.Header.Get("X-Service-Fingerprint") == "" {
		t.Fatalf("panel export: %s", res)
	}
}

// TestAuditFile: a stored report per channel, market or every channel; its
// download in json, csv and xlsx is the same bytes and verification code for the
// same data, and the code changes when a review of the period changes.
func TestAuditFile(t *testing.T) {
	p := newPrivacyEnv(t)
	trID, _ := p.write(review{channel: "web", author: "Lena Berg", title: "Fine"})
	gbID, _ := p.write(review{channel: "web-gb", author: "Tom Hale"})
	start, end := p.env.Clock.T.Add(-time.Hour).Format(time.RFC3339), p.env.Clock.T.Add(time.Hour).Format(time.RFC3339)

	res := p.do("POST", "/admin/v1/audit-file", map[string]any{"channel": "web", "start": start, "end": end}, p.export)
	expect(t, res, 201, "")
	if res.JSON["channel"] != "web" || res.JSON["market"] != "TR" || !strings.HasPrefix(res.JSON["id"].(string), "af_") {
		t.Fatalf("created: %s", res)
	}
	path := "/admin/v1/audit-file/" + res.JSON["id"].(string)
	get := func(format string) ([]byte, string) {
		t.Helper()
		res := p.do("GET", path+"?format="+format, nil, p.export)
		if res.Status != 200 || res.Header.Get("X-Service-Fingerprint") == "" || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("download %s: %s", format, res)
		}
		return res.Body, res.Header.Get("X-Service-Fingerprint")
	}
	j1, fp1 := get("json")
	j2, fp2 := get("json")
	sum := sha256.Sum256(j1)
	if !bytes.Equal(j1, j2) || fp1 != fp2 || fp1 != hex.EncodeToString(sum[:]) {
		t.Fatalf("two downloads differ: %s / %s", fp1, fp2)
	}
	var doc struct {
		Report  map[string]any
		Summary map[string]any
		Reviews []struct {
			ID        string
			Channel   string
			Collected map[string]any
			Checks    []map[string]any
			Shown     map[string]any
		}
	}
	if err := json.Unmarshal(j1, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Reviews) != 1 || doc.Reviews[0].ID != trID || doc.Reviews[0].Collected["method"] != "invitation_link" ||
		doc.Reviews[0].Collected["order_reference"] == "" || doc.Reviews[0].Shown["state"] != "pending" || len(doc.Reviews[0].Checks) == 0 ||
		doc.Report["market"] != "TR" || doc.Summary["reviews"] != float64(1) {
		t.Fatalf("document: %s", j1)
	}
	if strings.Contains(string(j1), "Lena") || strings.Contains(string(j1), "buyer@mail.example") {
		t.Fatalf("the audit file carries personal data: %s", j1)
	}
	c1, cfp1 := get("csv")
	c2, cfp2 := get("csv")
	x1, xfp1 := get("xlsx")
	x2, _ := get("xlsx")
	if !bytes.Equal(c1, c2) || !bytes.Equal(x1, x2) || cfp1 != fp1 || xfp1 != fp1 || cfp2 != fp1 {
		t.Fatal("csv or xlsx downloads differ, or carry another code")
	}
	if !strings.Contains(string(c1), trID) || strings.Contains(string(c1), gbID) {
		t.Fatalf("csv: %s", c1)
	}
	xf, err := excelize.OpenReader(bytes.NewReader(x1))
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := xf.GetRows("report"); rows[len(rows)-1][1] != fp1 {
		t.Fatalf("xlsx report sheet: %v", rows)
	}

	// A moderation decision changes the record and its code.
	expect(t, p.transition(trID, "approve", ""), 200, "")
	j3, fp3 := get("json")
	if fp3 == fp1 || bytes.Equal(j1, j3) || !strings.Contains(string(j3), `"event":"approve"`) {
		t.Fatalf("code unchanged after a moderation decision: %s", fp3)
	}
	// A review of another channel or outside the period does not change it.
	p.write(review{channel: "web-gb"})
	if _, fp := get("json"); fp != fp3 {
		t.Fatal("another channel's review changed the code")
	}

	// Market only: its channels; neither: every channel.
	res = p.do("POST", "/admin/v1/audit-file", map[string]any{"market": "GB", "start": start[:10], "end": start[:10]}, p.export)
	expect(t, res, 201, "")
	body := p.do("GET", "/admin/v1/audit-file/"+res.JSON["id"].(string), nil, p.export).Body
	if !strings.Contains(string(body), gbID) || strings.Contains(string(body), trID) {
		t.Fatalf("market GB: %s", body)
	}
	res = p.do("POST", "/admin/v1/audit-file", map[string]any{"start": start, "end": end}, p.export)
	expect(t, res, 201, "")
	if res.JSON["channel"] != "" || res.JSON["market"] != "" {
		t.Fatalf("every channel: %s", res)
	}
	body = p.do("GET", "/admin/v1/audit-file/"+res.JSON["id"].(string)+"?format=json", nil, p.export).Body
	if !strings.Contains(string(body), gbID) || !strings.Contains(string(body), trID) {
		t.Fatalf("every channel: %s", body)
	}
	if e := p.activity("audit_file.downloaded"); len(e) < 8 || !strings.Contains(e[0].Detail, `"fingerprint":"`) {
		t.Fatalf("downloads recorded: %d", len(e))
	}

	for body, code := range map[string]string{
		`{"market": "tr", "start": "2026-05-01", "end": "2026-06-01"}`:                   "invalid / market",
		`{"channel": "nope", "start": "2026-05-01", "end": "2026-06-01"}`:                "invalid / channel",
		`{"channel": "web", "market": "GB", "start": "2026-05-01", "end": "2026-06-01"}`: "invalid / channel_market_mismatch",
		`{"end": "2026-06-01"}`:                        "invalid / start",
		`{"start": "May", "end": "2026-06-01"}`:        "invalid / start",
		`{"start": "2026-05-01"}`:                      "invalid / end",
		`{"start": "2026-05-01", "end": "2026-04-01"}`: "invalid / end",
		`{"start": "2020-01-01", "end": "2026-01-01"}`: "invalid / end",
		`{"start": 5, "end": "2026-04-01"}`:            "invalid / start",
	} {
		expect(t, p.do("POST", "/admin/v1/audit-file", body, p.export), 400, code)
	}
	expect(t, p.do("GET", path+"?format=pdf", nil, p.export), 400, "invalid / format")
	expect(t, p.do("GET", "/admin/v1/audit-file/af_999", nil, p.export), 404, "not_found / not_found")
	expect(t, p.do("GET", "/admin/v1/audit-file/nope", nil, p.export), 404, "")
	expect(t, p.do("GET", path, nil, p.read), 403, "forbidden / scope_missing")
	expect(t, p.do("POST", "/admin/v1/audit-file", map[string]any{"start": start, "end": end}, p.mod), 403, "forbidden / scope_missing")
	expect(t, p.do("GET", path, nil, nil), 401, "")
	if res := p.owner.do("GET", path, nil, false); res.Status != 200 || res.Header.Get("X-Service-Fingerprint") == "" {
		t.Fatalf("panel download: %s", res)
	}
}

// TestAuditRoutesRoles: the access log, audit log and audit file need the export
// permission: owners and managers (and export keys) reach them, moderators and
// viewers (and read or moderate keys) get forbidden / scope_missing.
func TestAuditRoutesRoles(t *testing.T) {
	p := newPrivacyEnv(t)
	p.env.User(access.NewUser{Username: "mina", Email: "mina@shop.example", Role: "moderator", Password: panelPassword})
	p.env.User(access.NewUser{Username: "veli", Email: "veli@shop.example", Role: "viewer", Password: panelPassword})
	mod, viewer := newBrowser(t, p.env), newBrowser(t, p.env)
	expect(t, mod.signIn("mina", panelPassword), 200, "")
	expect(t, viewer.signIn("veli", panelPassword), 200, "")
	created := p.do("POST", "/admin/v1/audit-file", map[string]any{"start": "2026-05-01", "end": "2026-06-01"}, p.export)
	expect(t, created, 201, "")
	routes := []struct {
		method, path string
		body         any
		ok           int
	}{
		{"GET", "/admin/v1/access-log", nil, 200},
		{"GET", "/admin/v1/audit-log", nil, 200},
		{"POST", "/admin/v1/audit-log/export", map[string]any{"format": "json"}, 200},
		{"POST", "/admin/v1/audit-file", map[string]any{"start": "2026-05-01", "end": "2026-06-01"}, 201},
		{"GET", "/admin/v1/audit-file/" + created.JSON["id"].(string), nil, 200},
	}
	for _, rt := range routes {
		for _, b := range []*browser{mod, viewer} {
			expect(t, b.do(rt.method, rt.path, rt.body, true), 403, "forbidden / scope_missing")
		}
		for _, h := range []map[string]string{p.read, p.mod} {
			expect(t, p.do(rt.method, rt.path, rt.body, h), 403, "forbidden / scope_missing")
		}
		for _, b := range []*browser{p.owner, p.manager} {
			expect(t, b.do(rt.method, rt.path, rt.body, true), rt.ok, "")
		}
		expect(t, p.do(rt.method, rt.path, rt.body, p.export), rt.ok, "")
	}
}

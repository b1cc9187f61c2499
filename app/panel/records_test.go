package panel_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/catalogue"
	"reviewd/app/core/marketplace"
)

// upload posts a multipart form with one file, as a browser sends the file form.
func (b *browser) upload(path string, fields url.Values, name string, content []byte) page {
	b.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, vs := range fields {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		_, _ = fw.Write(content)
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", b.env.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, location: res.Header.Get("Location"), body: string(raw)}
}

// TestPrivacyPages: an owner opens an access and an erasure request from the
// form, sees what each covers, completes one and refuses the other; the detail
// offers the downloads; a manager (no personal-data permission) is refused the
// page and a forged post.
func TestPrivacyPages(t *testing.T) {
	f := newFixture(t)
	f.env.User(access.NewUser{Username: "mona", Email: "mona@example.com", Role: "manager", Password: "manager-password-1"})
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	open := func(kind string) string {
		t.Helper()
		p := b.do("POST", "/panel/privacy", url.Values{"csrf": {csrf}, "kind": {kind}, "identifier": {"buyer@example.com"}, "note": {"by phone"}}, nil)
		m := regexp.MustCompile(`^/panel/privacy/(dsr_[0-9]+)\?notice=request_opened$`).FindStringSubmatch(p.location)
		if p.status != http.StatusSeeOther || m == nil {
			t.Fatalf("open %s: %d %q\n%.800s", kind, p.status, p.location, p.body)
		}
		return m[1]
	}
	acc, era := open("access"), open("erasure")
	d := b.do("GET", "/panel/privacy/"+acc, nil, nil)
	expectPage(t, "detail", d, 200, `href="/admin/v1/subject-requests/`+acc+`?format=csv"`)
	expectPage(t, "detail covers", d, 200, "What it covers")
	expectPage(t, "bad identifier", b.do("POST", "/panel/privacy", url.Values{"csrf": {csrf}, "kind": {"access"}, "identifier": {""}}, nil), 400, "invalid")
	if dl := f.env.Do("GET", "/admin/v1/subject-requests/"+acc+"?format=csv", nil, map[string]string{"Cookie": b.cookie()}); dl.Status != 200 {
		t.Fatalf("download link: %d", dl.Status)
	}

	m := newBrowser(t, f.env)
	mcsrf := m.signIn("mona", "manager-password-1")
	expectPage(t, "manager list", m.do("GET", "/panel/privacy", nil, nil), 403, "scope_missing")
	expectPage(t, "manager complete", m.do("POST", "/panel/privacy/"+acc+"/complete", url.Values{"csrf": {mcsrf}}, nil), 403, "scope_missing")
	expectPage(t, "complete without csrf", b.do("POST", "/panel/privacy/"+acc+"/complete", url.Values{}, nil), 403, "csrf_missing")

	posted(t, "complete", b.do("POST", "/panel/privacy/"+acc+"/complete", url.Values{"csrf": {csrf}}, nil), "/panel/privacy/"+acc+"?notice=request_completed")
	// The copy for the person: the identifier must be the request's.
	expectPage(t, "copy form", b.do("GET", "/panel/privacy/"+acc, nil, nil), 200, `action="/panel/privacy/`+acc+`/copy"`)
	expectPage(t, "copy with another identifier", b.do("POST", "/panel/privacy/"+acc+"/copy", url.Values{"csrf": {csrf},
		"identifier": {"other@example.com"}, "format": {"json"}}, nil), 400, "identifier_mismatch")
	cp := b.do("POST", "/panel/privacy/"+acc+"/copy", url.Values{"csrf": {csrf}, "identifier": {"buyer@example.com"}, "format": {"json"}}, nil)
	if cp.status != 200 || !strings.HasPrefix(strings.TrimSpace(cp.body), "{") {
		t.Fatalf("copy: %d\n%.500s", cp.status, cp.body)
	}
	expectPage(t, "manager copy", m.do("POST", "/panel/privacy/"+acc+"/copy", url.Values{"csrf": {mcsrf}, "identifier": {"buyer@example.com"},
		"format": {"json"}}, nil), 403, "scope_missing")
	expectPage(t, "refuse without reason", b.do("POST", "/panel/privacy/"+era+"/refuse", url.Values{"csrf": {csrf}}, nil), 400, "invalid")
	posted(t, "refuse", b.do("POST", "/panel/privacy/"+era+"/refuse", url.Values{"csrf": {csrf}, "reason": {"identity not proven"}}, nil),
		"/panel/privacy/"+era+"?notice=request_refused")
	list := b.do("GET", "/panel/privacy?state=completed", nil, nil)
	expectPage(t, "list completed", list, 200, acc)
	if strings.Contains(list.body, era) {
		t.Fatal("the state filter lets a refused request through")
	}
	expectPage(t, "refused detail", b.do("GET", "/panel/privacy/"+era, nil, nil), 200, "identity not proven")
}

// cookie is the session cookie of the browser, for a direct call of a link.
func (b *browser) cookie() string {
	u, _ := url.Parse(b.env.URL)
	var parts []string
	for _, c := range b.c.Jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

// TestAuditPages: the access and audit logs list entries with their filters, the
// export answers the file with its fingerprint, an audit file is created with
// its download links; a moderator (no export permission) is refused them.
func TestAuditPages(t *testing.T) {
	f := newFixture(t)
	f.env.User(access.NewUser{Username: "moe", Email: "moe@example.com", Role: "moderator", Password: "moderator-password-1"})
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	// Something to read: a personal-data lookup lands in the access log.
	lookup := b.do("POST", "/panel/opt-outs/check", url.Values{"csrf": {csrf}, "addresses": {"a@example.com\nb@example.com"}}, nil)
	expectPage(t, "opt-out lookup", lookup, 200, "0 of 2 addresses opted out")
	// The answer's forms (language switch, retries) lead back to the page, not to
	// the lookup's address, which takes only POST.
	expectPage(t, "opt-out lookup back address", lookup, 200, `name="back" value="/panel/invitations"`)
	if strings.Contains(lookup.body, `value="/panel/opt-outs/check"`) {
		t.Fatalf("the lookup's answer leads back to the form's address:\n%.800s", lookup.body)
	}
	expectPage(t, "access log", b.do("GET", "/panel/access-log?action=opt_out.checked", nil, nil), 200, "<code>opt_out.checked</code>")
	al := b.do("GET", "/panel/audit-log?action=session.signed_in&sessions=1", nil, nil)
	expectPage(t, "audit log", al, 200, "<code>session.signed_in</code>")
	expectPage(t, "audit log bad filter", b.do("GET", "/panel/audit-log?sessions=2", nil, nil), 400, "invalid / sessions")

	filters := regexp.MustCompile(`name="filters" value="([^"]*)"`).FindStringSubmatch(al.body)[1]
	filters = strings.ReplaceAll(filters, "&#34;", `"`)
	req, _ := http.NewRequest("POST", f.env.URL+"/panel/audit-log/export", strings.NewReader(url.Values{"csrf": {csrf}, "format": {"csv"},
		"title": {"Sign-ins"}, "filters": {filters}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("X-Service-Fingerprint") == "" || !strings.Contains(res.Header.Get("Content-Disposition"), "sign-ins") {
		t.Fatalf("export: %d %v\n%.500s", res.StatusCode, res.Header, body)
	}
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || len(rows) < 2 || !strings.Contains(string(body), "session.signed_in") || strings.Contains(string(body), "opt_out") {
		t.Fatalf("export rows (%v):\n%s", err, body)
	}

	af := b.do("POST", "/panel/audit-file", url.Values{"csrf": {csrf}, "channel": {"web"}, "start": {"2026-01-01"}, "end": {"2026-05-31"}}, nil)
	expectPage(t, "audit file", af, 200, `href="/admin/v1/audit-file/af_`)
	expectPage(t, "audit file page's own address", af, 200, `name="back" value="/panel/audit-log"`)
	expectPage(t, "audit file bad period", b.do("POST", "/panel/audit-file", url.Values{"csrf": {csrf}, "start": {"2026-05-01"}, "end": {"2026-01-01"}}, nil),
		400, "invalid / end")

	mo := newBrowser(t, f.env)
	mcsrf := mo.signIn("moe", "moderator-password-1")
	expectPage(t, "moderator audit log", mo.do("GET", "/panel/audit-log", nil, nil), 403, "scope_missing")
	expectPage(t, "moderator access log", mo.do("GET", "/panel/access-log", nil, nil), 403, "scope_missing")
	expectPage(t, "moderator export", mo.do("POST", "/panel/audit-log/export", url.Values{"csrf": {mcsrf}, "format": {"csv"}}, nil), 403, "scope_missing")
	if ov := mo.do("GET", "/panel/", nil, nil); strings.Contains(ov.body, "/panel/audit-log") || strings.Contains(ov.body, "/panel/connections") {
		t.Fatal("a moderator is offered the audit log or the connections")
	}
}

// TestConnectionsPages: an order connection made from the form with its
// platform's fields, paused and resumed, read now, listed in diagnostics and
// removed; a missing field gets the service's error; a viewer is refused.
func TestConnectionsPages(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "platform fields", b.do("GET", "/panel/connections?platform=woocommerce", nil, nil), 200, `name="consumer_secret" type="password"`)
	expectPage(t, "missing field", b.do("POST", "/panel/connections", url.Values{"csrf": {csrf}, "platform": {"woocommerce"}, "channel": {"web"},
		"base_url": {"https://shop.example"}, "consumer_key": {"ck_1"}}, nil), 400, "invalid / consumer_secret")
	expectPage(t, "check with a missing field", b.do("POST", "/panel/connections/check", url.Values{"csrf": {csrf}, "platform": {"woocommerce"},
		"channel": {"web"}, "base_url": {"https://shop.example"}, "consumer_secret": {"cs_1"}}, nil), 400, "api_credentials_missing")
	posted(t, "create", b.do("POST", "/panel/connections", url.Values{"csrf": {csrf}, "platform": {"woocommerce"}, "channel": {"web"},
		"base_url": {"https://shop.example"}, "consumer_key": {"ck_1"}, "consumer_secret": {"cs_1"}, "interval_minutes": {"30"}}, nil),
		"/panel/connections?notice=connection_created")
	list, err := f.env.App.Orders.ListOrderSources(context.Background())
	if err != nil || len(list.Items) != 1 || !list.Items[0].HasCredentials || list.Items[0].IntervalMinutes != 30 {
		t.Fatalf("connections: %+v %v", list.Items, err)
	}
	id := list.Items[0].ID
	posted(t, "pause", b.do("POST", "/panel/connections/"+id+"/pause", url.Values{"csrf": {csrf}, "enabled_shown": {"1"}}, nil), "/panel/connections?notice=saved")
	if s, _ := f.env.App.Orders.OrderSource(context.Background(), id); s.Enabled {
		t.Fatal("not paused")
	}
	expectPage(t, "paused", b.do("GET", "/panel/connections", nil, nil), 200, "Resume")
	posted(t, "resume", b.do("POST", "/panel/connections/"+id+"/pause", url.Values{"csrf": {csrf}, "enabled_shown": {"1"}, "enabled": {"1"}}, nil),
		"/panel/connections?notice=saved")
	posted(t, "run", b.do("POST", "/panel/connections/"+id+"/run", url.Values{"csrf": {csrf}}, nil), "/panel/connections?notice=run_started")
	expectPage(t, "diagnostics", b.do("GET", "/panel/diagnostics?connection="+id, nil, nil), 200, `<option value="`+id+`" selected>`)

	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer connections", viewer.do("GET", "/panel/connections", nil, nil), 403, "scope_missing")
	expectPage(t, "viewer run", viewer.do("POST", "/panel/connections/"+id+"/run", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")
	expectPage(t, "viewer diagnostics", viewer.do("GET", "/panel/diagnostics", nil, nil), 200, id)

	posted(t, "remove", b.do("POST", "/panel/connections/"+id+"/remove", url.Values{"csrf": {csrf}}, nil), "/panel/connections?notice=connection_removed")
}

// TestMarketplacePages: a file source made from the form, a file uploaded from
// the run form (multipart, CSRF in a field) is tried and run, and the run report
// is listed; an upload without the token is refused.
func TestMarketplacePages(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	p := b.do("POST", "/panel/marketplace", url.Values{"csrf": {csrf}, "platform": {"trendyol"}, "channel": {"web"}, "seller_id": {"S-1"},
		"route": {"file"}}, nil)
	m := regexp.MustCompile(`^/panel/marketplace/(mks_[0-9]+)\?notice=source_created$`).FindStringSubmatch(p.location)
	if m == nil {
		t.Fatalf("create: %d %q\n%.800s", p.status, p.location, p.body)
	}
	src := m[1]
	if _, err := f.env.App.Catalogue.IngestProducts(context.Background(), core.Console(), []catalogue.ProductInput{
		{VariantKey: "MUG", Name: "Blue mug", GTIN: "8690000000011"}}, false); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(marketplace.Columns)
	_ = w.Write([]string{"R-1", "8690000000011", "5", "Nice", "A fine mug.", "Ayşe", "2026-05-01", "", "", "S-1"})
	_ = w.Write([]string{"R-2", "9999999999999", "4", "", "Not ours.", "Can", "2026-05-02", "", "", "S-1"})
	w.Flush()
	expectPage(t, "upload without csrf", b.upload("/panel/marketplace/"+src+"/runs", nil, "a.csv", buf.Bytes()), 403, "csrf_missing")
	chk := b.upload("/panel/marketplace/"+src+"/check", url.Values{"csrf": {csrf}}, "a.csv", buf.Bytes())
	expectPage(t, "check", chk, 200, "data-check")
	posted(t, "run", b.upload("/panel/marketplace/"+src+"/runs", url.Values{"csrf": {csrf}}, "a.csv", buf.Bytes()),
		"/panel/marketplace/"+src+"?notice=run_started")
	expectPage(t, "run report", b.do("GET", "/panel/marketplace/"+src, nil, nil), 200, "a.csv")
	expectPage(t, "sources", b.do("GET", "/panel/marketplace", nil, nil), 200, src)

	// The imported review, removed on the reviewer's request from the panel.
	var id string
	apptest.Eventually(t, "the imported review", 10*time.Second, func() (bool, string) {
		p := b.do("GET", "/panel/marketplace/reviews?q=fine", nil, nil)
		m := regexp.MustCompile(`name="reviews" value="([^"]+)"`).FindStringSubmatch(p.body)
		if m == nil {
			return false, fmt.Sprint(p.status)
		}
		id = m[1]
		return true, ""
	})
	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer imported reviews", viewer.do("GET", "/panel/marketplace/reviews", nil, nil), 403, "scope_missing")
	expectPage(t, "viewer removal", viewer.do("POST", "/panel/marketplace/removals", url.Values{"csrf": {vcsrf}, "reviews": {id}}, nil), 403, "scope_missing")
	expectPage(t, "removal of nothing", b.do("POST", "/panel/marketplace/removals", url.Values{"csrf": {csrf}}, nil), 400, "invalid / reviews")
	posted(t, "removal", b.do("POST", "/panel/marketplace/removals", url.Values{"csrf": {csrf}, "reviews": {id}, "note": {"asked by e-mail"}}, nil),
		"/panel/marketplace/reviews?notice=removed_on_request%3A1")
	if r, err := f.env.App.DB.Read().ReviewByPublicID(context.Background(), id); err != nil || r.State != "removed" {
		t.Fatalf("after removal: %s %v", r.State, err)
	}
	expectPage(t, "removed listed", b.do("GET", "/panel/marketplace/reviews", nil, nil), 200, "Removed on request")
}

// TestUploadSpoolRemoved: the parts of a file form spooled to temporary files
// (past 1 MB) are removed when the answer is sent, and a multipart body posted to
// a form that takes no file is not spooled at all (refused without its token).
func TestUploadSpoolRemoved(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	p := b.do("POST", "/panel/marketplace", url.Values{"csrf": {csrf}, "platform": {"trendyol"}, "channel": {"web"}, "seller_id": {"S-1"},
		"route": {"file"}}, nil)
	m := regexp.MustCompile(`^/panel/marketplace/(mks_[0-9]+)\?`).FindStringSubmatch(p.location)
	if m == nil {
		t.Fatalf("create: %d %q\n%.800s", p.status, p.location, p.body)
	}
	spool := filepath.Join(t.TempDir(), "spool")
	if err := os.Mkdir(spool, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", spool)
	big := bytes.Repeat([]byte("R-1,8690000000011,5,Nice,A fine mug.,Ayşe,2026-05-01,,,S-1\n"), 3<<20/60)
	if chk := b.upload("/panel/marketplace/"+m[1]+"/check", url.Values{"csrf": {csrf}}, "big.csv", big); chk.status >= 500 {
		t.Fatalf("check of a 3 MB file: %d\n%.800s", chk.status, chk.body)
	}
	expectPage(t, "file posted to a form without one", b.upload("/panel/terms", url.Values{"csrf": {csrf}}, "big.csv", big), 403, "csrf_missing")
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Fatalf("temporary files left after the answers: %d (%s)", len(left), left[0].Name())
	}
}

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/platform/platformtest"
	"reviewd/app/sendtest"
)

// TestBrowser runs the page script's browser tests (webtest/*.test.mjs: node:test,
// playwright-core and axe-core) in Debian's Chromium against a real `reviewd demo`
// process built from this tree, on http://localhost:<free port>. Before node
// starts, it prepares what the tests need through the HTTP API and the CLI, as a
// store would: more reviews on one product (a second page), an order whose
// invitation e-mail (caught by a test SMTP server) carries a review link, and an
// order ready for the order check; e-mails sent later are readable by the tests
// through a small HTTP mailbox. It skips when node, Chromium or
// webtest/node_modules are missing (scripts/test.sh installs them). Run with -v to
// see the measured budgets (lines starting with BUDGET).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	root := repoRoot(t)
	node, chromium, webtest := browserTools(t, root)

	dir := t.TempDir()
	bin := filepath.Join(dir, "reviewd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	smtp := sendtest.StartSMTP(t)
	// https://shop.example is a shop's website for the domain proof of the go-live
	// test: it serves the proof file whose body the test puts through proofCtl.
	var proofMu sync.Mutex
	proofBody := ""
	shop := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proofMu.Lock()
		defer proofMu.Unlock()
		if proofBody == "" || r.URL.Path != "/.well-known/service-verification.txt" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, proofBody)
	}), "shop.example")
	proofCtl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1024))
		proofMu.Lock()
		proofBody = string(b)
		proofMu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer proofCtl.Close()
	port := freePort(t)
	base := "http://localhost:" + strconv.Itoa(port)
	srvEnv := reviewdEnv(map[string]string{
		"REVIEWD_JOBS_ENABLED":     "false", // the tests run the jobs they need with `reviewd jobs run`
		"REVIEWD_LOG_LEVEL":        "warn",
		"REVIEWD_SMTP_HOST":        "127.0.0.1",
		"REVIEWD_SMTP_PORT":        strconv.Itoa(smtp.Port),
		"REVIEWD_SMTP_SECURITY":    "none",
		"REVIEWD_SMTP_FROM":        "reviews@demo.example",
		"REVIEWD_OUTBOUND_RESOLVE": "shop.example:443=127.0.0.1:" + shop.Port,
		"REVIEWD_OUTBOUND_CA_FILE": shop.CAFile,
	})
	// The browser tests take about a minute alone; while the rest of the suite
	// loads both cores they can take several.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "demo", "--listen", "127.0.0.1:"+strconv.Itoa(port))
	srv.Dir, srv.Env = dir, srvEnv
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	srv.WaitDelay = 10 * time.Second
	stderr := &apptest.LockedBuffer{} // written by exec's copying goroutine, read on failure
	srv.Stderr = stderr
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = srv.Process.Signal(os.Interrupt)
		_ = srv.Wait()
	}()
	printed := waitForLine(t, stdout, "stop with Ctrl-C", 90*time.Second, stderr)
	if !strings.Contains(printed, base+"/demo/") {
		t.Fatalf("reviewd demo does not print its localhost address %s:\n%s", base, printed)
	}

	var info demoInfo
	raw, err := os.ReadFile(filepath.Join(dir, "demo-data", demoFile))
	if err != nil || json.Unmarshal(raw, &info) != nil {
		t.Fatalf("demo.json: %v", err)
	}
	p := &browserPrep{t: t, base: base, info: info, ch: info.Channels[1]}
	if p.ch.Code != "demo-en" {
		t.Fatalf("channels %+v", info.Channels)
	}
	p.moreReviews()
	invite := p.invitation(bin, dir, srvEnv, smtp)
	p.order("WT-CHK-1", "check@example.com", "demo-candle", "Fig & Cedar Candle", 4)
	p.order("WT-REV-1", "revise@example.com", "demo-mug-speckled", "Speckled Stoneware Mug", 6)
	p.order("WT-VIEW-1", "viewer@example.com", "demo-mug-speckled", "Speckled Stoneware Mug", 7)

	// The tests read the e-mails reviewd sends (a rejection's correction link).
	mailbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		type msg struct {
			To      []string `json:"to"`
			Subject string   `json:"subject"`
			Text    string   `json:"text"`
		}
		var out []msg
		for _, m := range smtp.Messages() {
			out = append(out, msg{To: m.To, Subject: m.DecodedHeader("Subject"), Text: m.Text})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	defer mailbox.Close()

	outDir := os.Getenv("REVIEWD_WEBTEST_OUT")
	if outDir == "" {
		outDir = filepath.Join(dir, "screenshots")
	}
	// REVIEWD_WEBTEST_ONLY=panel runs only webtest/panel*.test.mjs (any name prefix).
	files, _ := filepath.Glob(filepath.Join(webtest, os.Getenv("REVIEWD_WEBTEST_ONLY")+"*.test.mjs"))
	if len(files) == 0 {
		t.Fatalf("no browser tests in %s", webtest)
	}
	args := append([]string{"--test", "--test-concurrency=1", "--test-reporter=spec"}, files...)
	run := exec.CommandContext(ctx, node, args...)
	run.Dir = webtest
	run.Env = append(os.Environ(),
		"REVIEWD_CHROMIUM="+chromium,
		"REVIEWD_WEBTEST_BASE="+base,
		"REVIEWD_WEBTEST_DEMO="+filepath.Join(dir, "demo-data", demoFile),
		"REVIEWD_WEBTEST_BIN="+bin,
		"REVIEWD_WEBTEST_CWD="+dir,
		"REVIEWD_WEBTEST_INVITE="+invite,
		"REVIEWD_WEBTEST_ORDER=WT-CHK-1",
		"REVIEWD_WEBTEST_EMAIL=check@example.com",
		"REVIEWD_WEBTEST_REVISE=WT-REV-1 revise@example.com",
		"REVIEWD_WEBTEST_OUT="+outDir,
		"REVIEWD_WEBTEST_MAIL="+mailbox.URL,
		"REVIEWD_WEBTEST_PROOF="+proofCtl.URL,
		"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1",
	)
	// The reviewd binary the tests call for jobs needs the server's settings.
	for _, kv := range srvEnv {
		if strings.HasPrefix(kv, "REVIEWD_") {
			run.Env = append(run.Env, kv)
		}
	}
	start := time.Now()
	out, err := run.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "BUDGET") || strings.HasPrefix(strings.TrimSpace(line), "screenshots:") {
			t.Log(strings.TrimSpace(line))
		}
	}
	if err != nil {
		t.Fatalf("browser tests failed (%v, %s):\n%s\nreviewd log:\n%s", err, time.Since(start).Round(time.Second), out,
			tail(stderr.String(), 4000))
	}
	t.Logf("browser tests passed in %s; screenshots in %s (set REVIEWD_WEBTEST_OUT to keep them)", time.Since(start).Round(time.Second), outDir)
	if testing.Verbose() {
		t.Log("\n" + string(out))
	}
}

// browserTools finds node, Chromium and the installed webtest packages, or skips.
func browserTools(t *testing.T, root string) (node, chromium, webtest string) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("browser tests skipped: node not found (scripts/test.sh installs it)")
	}
	if v, err := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output(); err != nil {
		t.Skip("browser tests skipped: node does not run")
	} else if n, _ := strconv.Atoi(strings.TrimSpace(string(v))); n < 20 {
		t.Skipf("browser tests skipped: node %s is older than 20", strings.TrimSpace(string(v)))
	}
	chromium = os.Getenv("REVIEWD_CHROMIUM")
	if chromium == "" {
		chromium, _ = exec.LookPath("chromium")
	}
	if chromium == "" {
		t.Skip("browser tests skipped: no Chromium (REVIEWD_CHROMIUM unset and chromium not on PATH)")
	}
	webtest = os.Getenv("REVIEWD_WEBTEST_DIR")
	if webtest == "" {
		webtest = filepath.Join(root, "webtest")
	}
	for _, pkg := range []string{"playwright-core", "axe-core"} {
		if _, err := os.Stat(filepath.Join(webtest, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf("browser tests skipped: %s/node_modules/%s missing (run scripts/test.sh, or npm ci in webtest/)", webtest, pkg)
		}
	}
	return node, chromium, webtest
}

func repoRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// reviewdEnv is this process's environment without REVIEWD_ settings, plus set.
func reviewdEnv(set map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REVIEWD_") {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// waitForLine reads r until a line contains want and returns what was read; the
// rest of r is drained in the background.
func waitForLine(t *testing.T, r io.Reader, want string, limit time.Duration, stderr fmt.Stringer) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), want) {
				done <- b.String()
				_, _ = io.Copy(io.Discard, r)
				return
			}
		}
		done <- ""
	}()
	select {
	case s := <-done:
		if s == "" {
			t.Fatalf("reviewd demo ended early:\n%s", stderr.String())
		}
		return s
	case <-time.After(limit):
		t.Fatalf("reviewd demo did not start in %s:\n%s", limit, stderr.String())
	}
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// browserPrep calls the running demo as a store and a customer would.
type browserPrep struct {
	t    *testing.T
	base string
	info demoInfo
	ch   demoChannel
}

func (p *browserPrep) call(method, path string, body any, hdr map[string]string) map[string]any {
	p.t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, p.base+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", p.base)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		p.t.Fatalf("%s %s %s\n  -> want a 2xx answer, got %d %s", method, path, raw, res.StatusCode, b)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// order ingests a paid order with one delivered line, delivered days ago.
func (p *browserPrep) order(id, email, product, title string, days int) {
	delivered := time.Now().UTC().Add(-time.Duration(days) * 24 * time.Hour)
	p.call("POST", "/v1/ingest/orders", map[string]any{"channel": p.ch.Code, "external_id": id, "payment_state": "paid",
		"placed_at": delivered.Add(-48 * time.Hour).Format(time.RFC3339), "customer_email": email,
		"items": []map[string]any{{"line_reference": "1", "variant_key": product, "title": title,
			"fulfilment_state": "delivered", "delivered_at": delivered.Format(time.RFC3339)}}},
		map[string]string{"Authorization": "Bearer " + p.ch.ServerKey})
}

// moreReviews gives the blue mug of the en channel 12 published reviews: a full
// first page of 10 and a second page.
func (p *browserPrep) moreReviews() {
	for i, r := range []struct {
		rating      int
		title, body string
	}{
		{5, "Perfect morning mug", "Holds a proper amount of coffee and keeps it warm."},
		{4, "Pretty glaze", "The glaze is lovely; the handle is a little small for big hands."},
		{5, "Bought two more", "Gave one to my sister, she loves the colour too."},
		{3, "Nice but pricey", "Good quality, though I expected it to be a bit larger for the price."},
		{5, "Beautiful blue", "The colour changes with the light, really beautiful."},
	} {
		id, email := fmt.Sprintf("WT-R%d", i+1), fmt.Sprintf("wt-r%d@example.com", i+1)
		p.order(id, email, "demo-mug-blue", "Blue Glaze Mug", 10+i)
		site := map[string]string{"X-Service-Site-Key": p.ch.SiteKey}
		tok := p.call("POST", "/v1/eligibility", map[string]any{"order": id, "email": email}, site)["token"]
		p.call("POST", "/v1/reviews", map[string]any{"token": tok, "reviews": []map[string]any{{"line_reference": "1",
			"rating": r.rating, "title": r.title, "body": r.body, "author_name": fmt.Sprintf("Webtest Customer %d", i+1)}}}, site)
	}
}

// invitation ingests an order, runs the invitations job as of today noon (UTC, in
// the send window) and returns the review link of the e-mail the customer gets.
func (p *browserPrep) invitation(bin, dir string, env []string, smtp *sendtest.SMTPServer) string {
	p.order("WT-INV-1", "invite@example.com", "demo-mug-blue", "Blue Glaze Mug", 5)
	now := time.Now().UTC()
	noon := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
	cmd := exec.Command(bin, "jobs", "run", "invitations", "--now", noon.Format(time.RFC3339), "--data", "demo-data")
	cmd.Dir, cmd.Env = dir, append(env, "REVIEWD_PUBLIC_URL="+p.base)
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("reviewd jobs run invitations: %v\n%s", err, out)
	}
	link := regexp.MustCompile(`https?://[^\s"<>]*#review_token=[A-Za-z0-9._~-]+`)
	for _, m := range smtp.Messages() {
		if len(m.To) == 1 && m.To[0] == "invite@example.com" {
			if l := link.FindString(m.Text); l != "" {
				return l
			}
			p.t.Fatalf("invitation without a review link:\n%s", m.Text)
		}
	}
	p.t.Fatalf("no invitation e-mail to invite@example.com (%d messages)", len(smtp.Messages()))
	return ""
}

package metrics_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/sendtest"
	"reviewd/jobs"
)

const token = "metrics-token-0123456789"

// scrape reads /metrics and returns every sample as "name{a="x",b="y"}" -> value.
func scrape(t *testing.T, url, auth string) (int, map[string]float64) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	out := map[string]float64{}
	if res.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, res.Body)
		return res.StatusCode, out
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return res.StatusCode, out
}

// series builds the exposition key of a sample: labels sorted by name.
func series(name string, labels ...string) string {
	if len(labels) == 0 {
		return name
	}
	var parts []string
	for i := 0; i+1 < len(labels); i += 2 {
		parts = append(parts, labels[i]+"="+strconv.Quote(labels[i+1]))
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

func want(t *testing.T, samples map[string]float64, key string, v float64) {
	t.Helper()
	got, ok := samples[key]
	if !ok {
		var near []string
		prefix := key[:strings.IndexAny(key+"{", "{")]
		for k := range samples {
			if strings.HasPrefix(k, prefix) {
				near = append(near, k)
			}
		}
		sort.Strings(near)
		t.Fatalf("no sample %s; samples of that name:\n%s", key, strings.Join(near, "\n"))
	}
	if got != v {
		t.Fatalf("%s = %v, want %v", key, got, v)
	}
}

// TestMetricsOffByDefault: without metrics.listen or metrics.token there is no
// /metrics route and nothing is counted.
func TestMetricsOffByDefault(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	if env.App.Metrics != nil {
		t.Fatal("metrics built without metrics.listen or metrics.token")
	}
	if res := env.Do("GET", "/metrics", nil, map[string]string{"Authorization": "Bearer " + token}); res.Status != 404 {
		t.Fatalf("GET /metrics with metrics off: %d %s", res.Status, res.Body)
	}
}

// TestMetricsOnMainListener: with metrics.token, /metrics on the main listener needs
// the bearer token, and it reports requests by route template and status, write
// transactions, pool statistics, job runs, mail outcomes and queue depths.
func TestMetricsOnMainListener(t *testing.T) {
	smtp := sendtest.StartSMTP(t)
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.Metrics.Token = token
		c.SMTP = app.SMTP{Host: "127.0.0.1", Port: smtp.Port, Security: "none", From: "reviews@shop.example"}
	})
	env.Channel("web", "TR", "tr")
	key := env.Key("server", "web")
	url := env.URL + "/metrics"

	// Credentials.
	for auth, code := range map[string]string{"": "refused / credentials_missing", "Bearer ": "refused / credentials_missing",
		"Bearer wrong-token-0123456789": "refused / credentials_invalid", "Basic " + token: "refused / credentials_missing"} {
		res := env.Do("GET", "/metrics", nil, map[string]string{"Authorization": auth})
		if res.Status != 401 || res.Code() != code {
			t.Fatalf("GET /metrics with %q: %d %s", auth, res.Status, res.Body)
		}
	}
	if status, _ := scrape(t, url, "Bearer "+token); status != 200 {
		t.Fatalf("GET /metrics with the token: %d", status)
	}

	// The invitations job, through a runner wired as serve wires it.
	runner := jobs.NewRunner(env.App.DB, slog.New(slog.NewTextHandler(io.Discard, nil)),
		jobs.Entry{Job: jobs.Invitations{Sending: env.App.Sending}})
	runner.Observe = env.App.Metrics.ObserveJob
	delivered := env.Clock.T.Add(-72 * time.Hour)
	deliver := func(ext, email string) {
		t.Helper()
		res := env.Do("POST", "/v1/ingest/orders", map[string]any{"orders": []any{map[string]any{
			"channel": "web", "external_id": ext, "payment_state": "paid", "placed_at": delivered.Add(-24 * time.Hour).Format(time.RFC3339),
			"customer_email": email, "items": []any{map[string]any{"line_reference": "1", "variant_key": "SKU-1", "title": "Mug",
				"quantity": 1, "fulfilment_state": "delivered", "delivered_at": delivered.Format(time.RFC3339)}}}}},
			map[string]string{"Authorization": "Bearer " + key})
		if res.Status != 200 {
			t.Fatalf("ingest %s: %d %s", ext, res.Status, res.Body)
		}
		if _, err := runner.RunNow(context.Background(), "invitations", env.Clock.T, "console"); err != nil {
			t.Fatal(err)
		}
	}
	// The first invitation goes out; for the second the mail server answers 451
	// (try again later).
	deliver("A-1", "ayse@example.com")
	smtp.FailData(451)
	deliver("A-2", "mehmet@example.com")
	if n := len(smtp.Messages()); n != 1 {
		t.Fatalf("messages received: %d, want 1", n)
	}
	if res := env.Do("POST", "/v1/ingest/orders", "{", map[string]string{"Authorization": "Bearer " + key}); res.Status != 400 {
		t.Fatalf("broken body: %d %s", res.Status, res.Body)
	}
	if res := env.Do("GET", "/no/such/ayse@example.com", nil, nil); res.Status != 404 {
		t.Fatalf("unknown path: %d", res.Status)
	}

	_, s := scrape(t, url, "Bearer "+token)
	const req = "reviewd_http_request_duration_seconds_count"
	want(t, s, series(req, "method", "POST", "route", "/v1/ingest/orders", "status", "200"), 2)
	want(t, s, series(req, "method", "POST", "route", "/v1/ingest/orders", "status", "400"), 1)
	want(t, s, series(req, "method", "GET", "route", "unmatched", "status", "404"), 1)
	want(t, s, series(req, "method", "GET", "route", "/metrics", "status", "401"), 4)
	want(t, s, series(req, "method", "GET", "route", "/metrics", "status", "200"), 1)
	want(t, s, series("reviewd_job_runs_total", "job", "invitations", "outcome", "ok"), 2)
	want(t, s, series("reviewd_job_duration_seconds_count", "job", "invitations"), 2)
	want(t, s, series("reviewd_mail_sent_total"), 1)
	want(t, s, series("reviewd_mail_failed_total", "reason", "smtp_status: 451", "temporary", "true"), 1)
	want(t, s, series("reviewd_queue_depth", "queue", "emails_retrying"), 1)
	want(t, s, series("reviewd_queue_depth", "queue", "notices_retrying"), 0)
	want(t, s, series("reviewd_queue_depth", "queue", "media_waiting"), 0)
	want(t, s, series("reviewd_queue_depth", "queue", "invitations_due"), 0)
	if s[series("reviewd_db_write_tx_seconds_count", "outcome", "commit")] < 3 {
		t.Fatalf("write transactions committed: %v", s[series("reviewd_db_write_tx_seconds_count", "outcome", "commit")])
	}
	if s[series("reviewd_db_write_tx_wait_seconds_count")] < 3 {
		t.Fatal("write transaction waits not observed")
	}
	for _, pool := range []string{"read", "write"} {
		if _, ok := s[series("reviewd_db_pool_waits_total", "pool", pool)]; !ok {
			t.Fatalf("no pool statistics for the %s pool", pool)
		}
	}
	if _, ok := s["go_goroutines"]; !ok {
		t.Fatal("no Go runtime metrics")
	}

	// Later the retry is due: the queue shows it until the job runs again.
	env.Clock.Advance(24 * time.Hour)
	_, s = scrape(t, url, "Bearer "+token)
	want(t, s, series("reviewd_queue_depth", "queue", "invitations_due"), 1)
}

// TestMetricsListener: metrics.listen serves GET /metrics without credentials and
// nothing else.
func TestMetricsListener(t *testing.T) {
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) { c.Metrics.Listen = "127.0.0.1:0" })
	if res := env.Do("GET", "/metrics", nil, nil); res.Status != 404 {
		t.Fatalf("main listener /metrics without metrics.token: %d", res.Status)
	}
	env.Do("GET", "/healthz", nil, nil)
	ts := httptest.NewServer(app.MetricsHandler(env.App.Metrics))
	defer ts.Close()
	status, s := scrape(t, ts.URL+"/metrics", "")
	if status != 200 {
		t.Fatalf("metrics listener: %d", status)
	}
	want(t, s, series("reviewd_http_request_duration_seconds_count", "method", "GET", "route", "/healthz", "status", "200"), 1)
	if res, err := http.Get(ts.URL + "/admin/v1/whoami"); err != nil || res.StatusCode != 404 {
		t.Fatalf("metrics listener serves other paths: %v %v", res, err)
	}
}

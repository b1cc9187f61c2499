package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/sendtest"
)

// TestObservabilityFullRun builds the binary and runs a realistic day with
// log.format json at debug level and metrics on: the console bootstrap, order
// ingest with customer e-mail addresses, panel sign-in (a wrong password too), a
// access code, the invitations job sending e-mails, the writing flow with the
// token from the e-mail, unknown paths holding an address. Every log line must be
// JSON, every access line must carry request id, route, status and duration, and
// no line may hold an e-mail address, a key, a password, an access code, a session
// or a writing token. The metrics endpoints answer on both addresses.
func TestObservabilityFullRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	smtp := sendtest.StartSMTP(t)
	const (
		smtpPassword  = "smtp-pass-Quokka-7781"
		metricsToken  = "metrics-token-Narwhal-4412"
		ownerPassword = "Owner-pass-Lantern-9920"
	)
	var logs bytes.Buffer // every process's stderr, in order
	env := append(os.Environ(), "REVIEWD_LOG_LEVEL=debug", "REVIEWD_LOG_FORMAT=json", "REVIEWD_JOBS_ENABLED=false",
		"REVIEWD_SMTP_HOST=127.0.0.1", "REVIEWD_SMTP_PORT="+strconv.Itoa(smtp.Port), "REVIEWD_SMTP_SECURITY=none",
		"REVIEWD_SMTP_PASSWORD="+smtpPassword, "REVIEWD_SMTP_FROM=reviews@shop.example",
		"REVIEWD_METRICS_TOKEN="+metricsToken)
	must := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--data", dir)...)
		cmd.Env, cmd.Dir = env, t.TempDir()
		cmd.Stdin = strings.NewReader(stdin)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &logs
		if err := cmd.Run(); err != nil {
			t.Fatalf("reviewd %s: %v\n%s", strings.Join(args, " "), err, logs.String())
		}
		return out.String()
	}
	mustJSONOut := func(v any, stdin string, args ...string) {
		t.Helper()
		if out := must(stdin, append(args, "--json")...); json.Unmarshal([]byte(out), v) != nil {
			t.Fatalf("reviewd %s: not JSON: %s", strings.Join(args, " "), out)
		}
	}

	// Bootstrap with the console: every secret printed here must stay out of the log.
	must("", "channel", "create", "--code", "tr-main", "--market", "TR", "--language", "tr", "--label", "Türkiye",
		"--brand-name", "Acme", "--domain", "shop.example")
	var server, site, api struct{ Key string }
	mustJSONOut(&server, "", "key", "create", "--kind", "server", "--channel", "tr-main")
	mustJSONOut(&site, "", "key", "create", "--kind", "site", "--channel", "tr-main")
	mustJSONOut(&api, "", "key", "create", "--kind", "api", "--scopes", "read,moderate")
	var signing, mailEvents struct{ ID, Password string }
	mustJSONOut(&signing, "", "secret", "create", "--purpose", "signing", "--channel", "tr-main")
	mustJSONOut(&mailEvents, "", "secret", "create", "--purpose", "mail_events")
	must(ownerPassword+"\n", "user", "create", "--username", "ayse", "--email", "owner.ayse@shop.example", "--role", "owner", "--password-stdin")
	var addresses []struct{ Provider, URL string }
	mustJSONOut(&addresses, "", "mail-events", "addresses")
	accessCode := ""
	for _, a := range addresses {
		if a.Provider == "sendgrid" {
			accessCode = a.URL[strings.LastIndexByte(a.URL, '/')+1:]
		}
	}
	if len(accessCode) < 16 {
		t.Fatalf("mail-events addresses: %v", addresses)
	}

	metricsAddr := freeAddr(t)
	srv := startServe(t, bin, append(env, "REVIEWD_METRICS_LISTEN="+metricsAddr), "serve", "--listen", freeAddr(t), "--data", dir)
	base := "http://" + srv.addr
	call := func(method, path string, body any, headers map[string]string) httpResult {
		t.Helper()
		var rd io.Reader
		if body != nil {
			if s, ok := body.(string); ok {
				rd = strings.NewReader(s)
			} else {
				raw, _ := json.Marshal(body)
				rd = bytes.NewReader(raw)
			}
		}
		req, _ := http.NewRequest(method, base+path, rd)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		r := httpResult{status: res.StatusCode, header: res.Header}
		r.body, _ = io.ReadAll(res.Body)
		_ = json.Unmarshal(r.body, &r.json)
		return r
	}
	expectStatus := func(r httpResult, status int, what string) httpResult {
		t.Helper()
		if r.status != status {
			t.Fatalf("%s: %d %s, want %d", what, r.status, r.body, status)
		}
		return r
	}

	// Orders with customer addresses, delivered five days before the job runs.
	now := time.Now().UTC().Truncate(24 * time.Hour).Add(10 * time.Hour) // 13:00 in Istanbul: inside the send window
	delivered := now.Add(-5 * 24 * time.Hour)
	customers := []string{"ayse.customer@mail.example", "mehmet.customer@mail.example"}
	var orders []any
	for i, email := range customers {
		orders = append(orders, map[string]any{"channel": "tr-main", "external_id": "ORD-" + strconv.Itoa(i+1), "payment_state": "paid",
			"placed_at": delivered.Add(-48 * time.Hour).Format(time.RFC3339), "customer_email": email, "customer_name": "Ayşe Yılmaz",
			"items": []any{map[string]any{"line_reference": "1", "variant_key": "SKU-1", "title": "Mug", "quantity": 1,
				"fulfilment_state": "delivered", "delivered_at": delivered.Format(time.RFC3339)}}})
	}
	bearerServer := map[string]string{"Authorization": "Bearer " + server.Key}
	expectStatus(call("POST", "/v1/ingest/orders", map[string]any{"orders": orders}, bearerServer), 200, "ingest orders")
	expectStatus(call("POST", "/v1/ingest/orders", `{"orders": [{"customer_email": "broken@mail.example"`, bearerServer), 400, "broken ingest")
	expectStatus(call("POST", "/v1/ingest/orders", map[string]any{"orders": orders}, map[string]string{"Authorization": "Bearer " + server.Key + "x"}), 401, "wrong key")

	expectStatus(call("POST", "/admin/v1/session", map[string]any{"username": "ayse", "password": ownerPassword + "-wrong"}, nil), 401, "wrong password")
	signIn := expectStatus(call("POST", "/admin/v1/session", map[string]any{"username": "ayse", "password": ownerPassword}, nil), 200, "sign-in")
	var session string
	for _, c := range (&http.Response{Header: signIn.header}).Cookies() {
		if c.Name == "reviewd_session" {
			session = c.Value
		}
	}
	csrf, _ := signIn.json["csrf_token"].(string)
	if session == "" || csrf == "" {
		t.Fatalf("sign-in: cookie %q, csrf %q", session, csrf)
	}
	panel := map[string]string{"Cookie": "reviewd_session=" + session, "X-Service-CSRF": csrf}
	expectStatus(call("GET", "/admin/v1/invites?q="+url.QueryEscape(customers[0]), nil, panel), 200, "invites search")
	expectStatus(call("GET", "/admin/v1/reviews", nil, map[string]string{"Authorization": "Api-Key " + api.Key}), 200, "reviews with api key")

	// The invitations job (a console run, as cron would) sends the e-mails.
	must("", "jobs", "run", "invitations", "--now", now.Format(time.RFC3339))
	var token, unsubscribe string
	for _, m := range smtp.Messages() {
		if mt := regexp.MustCompile(`review_token=([A-Za-z0-9_.-]+)`).FindStringSubmatch(m.Text); mt != nil {
			token = mt[1]
		}
		if mt := regexp.MustCompile(`unsubscribe\?t=([A-Za-z0-9_.-]+)`).FindStringSubmatch(m.Text); mt != nil {
			unsubscribe = mt[1]
		}
	}
	if token == "" {
		t.Fatalf("no invitation with a writing token among %d messages", len(smtp.Messages()))
	}

	// Mail-provider events for those addresses, posted to the address with the code.
	events := []map[string]any{{"email": customers[0], "timestamp": now.Unix(), "event": "delivered", "sg_event_id": "sg-1",
		"sg_message_id": "m1.filter"}, {"email": customers[1], "timestamp": now.Unix(), "event": "bounce", "type": "bounce",
		"reason": "550 5.1.1 <" + customers[1] + ">: user unknown", "sg_event_id": "sg-2", "sg_message_id": "m2.filter"}}
	res := call("POST", "/v1/mail-events/sendgrid/"+accessCode, events, nil)
	if res.status/100 != 2 {
		t.Fatalf("sendgrid events: %d %s", res.status, res.body)
	}
	expectStatus(call("POST", "/v1/mail-events/sendgrid/"+accessCode+"x", events, nil), 404, "wrong access code")

	// The writing flow with the token from the e-mail, and the eligibility check
	// with order number and address.
	origin := map[string]string{"X-Service-Site-Key": site.Key, "Origin": "https://shop.example"}
	expectStatus(call("POST", "/v1/eligibility/token", map[string]any{"token": token}, origin), 200, "token check")
	expectStatus(call("POST", "/v1/reviews", map[string]any{"token": token, "reviews": []any{map[string]any{
		"line_reference": "1", "rating": 5, "title": "Lovely mug", "body": "Holds a lot of tea and keeps it warm for a long time."}}}, origin), 201, "review")
	expectStatus(call("POST", "/v1/eligibility", map[string]any{"order": "ORD-2", "email": "someone.else@mail.example"}, origin), 403, "eligibility")
	expectStatus(call("GET", "/v1/no/such/"+customers[0]+"?email="+url.QueryEscape(customers[1]), nil, nil), 404, "unknown path")

	// Metrics: on the main listener behind the token, and on metrics.listen.
	expectStatus(call("GET", "/metrics", nil, nil), 401, "metrics without token")
	main := expectStatus(call("GET", "/metrics", nil, map[string]string{"Authorization": "Bearer " + metricsToken}), 200, "metrics with token")
	for _, s := range []string{
		`reviewd_http_request_duration_seconds_count{method="POST",route="/v1/ingest/orders",status="200"} 1`,
		`reviewd_http_request_duration_seconds_count{method="POST",route="/v1/mail-events/{provider}/{code}",status="404"} 1`,
		`reviewd_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1`,
		`reviewd_queue_depth{queue="media_waiting"} 0`,
	} {
		if !bytes.Contains(main.body, []byte(s)) {
			t.Errorf("main /metrics lacks %s", s)
		}
	}
	side := get(t, "http://"+metricsAddr+"/metrics", "")
	if side.status != 200 || !bytes.Contains(side.body, []byte(`route="/admin/v1/session",status="401"`)) {
		t.Errorf("metrics.listen: %d", side.status)
	}
	srv.stop(t)
	logs.WriteString(srv.stderr.String())

	// The log.
	secrets := map[string]string{"server key": server.Key, "api key": api.Key, "signing password": signing.Password,
		"mail-events password": mailEvents.Password, "owner password": ownerPassword, "smtp password": smtpPassword,
		"metrics token": metricsToken, "access code": accessCode, "session": session, "csrf token": csrf, "writing token": token,
		"unsubscribe token": unsubscribe}
	email := regexp.MustCompile(`[A-Za-z0-9._%+-]+(@|%40)[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	var requests int
	routes := map[string]bool{}
	sc := bufio.NewScanner(&logs)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line is not JSON: %s", line)
			continue
		}
		for name, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("log line holds the %s: %s", name, line)
			}
		}
		if m := email.FindString(line); m != "" {
			t.Errorf("log line holds an e-mail address (%s): %s", m, line)
		}
		if rec["msg"] == "request" {
			requests++
			for _, k := range []string{"request_id", "method", "route", "status", "duration_ms"} {
				if _, ok := rec[k]; !ok {
					t.Errorf("access line without %s: %s", k, line)
				}
			}
			if _, ok := rec["path"]; ok {
				t.Errorf("access line with the raw path: %s", line)
			}
			routes[rec["route"].(string)] = true
		}
	}
	if requests < 15 {
		t.Fatalf("%d access lines in the log, want one per request", requests)
	}
	for _, r := range []string{"/v1/ingest/orders", "/admin/v1/session", "/v1/mail-events/{provider}/{code}", "/v1/reviews", "unmatched"} {
		if !routes[r] {
			t.Errorf("no access line for route %s", r)
		}
	}
}

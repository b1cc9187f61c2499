package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"reviewd/app"
)

// TestFollowerHandler: a follower answers the storefront's reads itself, passes
// writes and the admin and panel routes to the primary with the caller's headers
// (X-Forwarded-For appended), refuses them with 503 follower_read_only when
// passing is off, states its lag on every answer and fails /healthz past max_lag.
func TestFollowerHandler(t *testing.T) {
	var seen []*http.Request
	primary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Clone(r.Context()))
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"from":"primary"}`)
	}))
	defer primary.Close()
	local := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"from":"local"}`)
	})
	lag := 3 * time.Second
	cfg := app.Follower{Enabled: true, PrimaryURL: primary.URL, MaxLag: 30 * time.Second, PassWrites: true}
	srv := httptest.NewServer(app.FollowerHandler(local, cfg, func() time.Duration { return lag }))
	defer srv.Close()
	do := func(method, path string, hdr map[string]string) (int, http.Header, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(`{"vote":"up"}`))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, res.Header, out
	}
	for _, c := range []struct {
		method, path, from string
	}{
		{"GET", "/v1/reviews/list?product=A", "local"},
		{"HEAD", "/media/x/y.jpg", ""},
		{"GET", "/v1/ssr?product=A", "local"},
		{"POST", "/v1/reviews/r_x/helpful", "primary"},
		{"POST", "/v1/ingest/orders", "primary"},
		{"DELETE", "/admin/v1/reviews/r_x", "primary"},
		{"PATCH", "/admin/v1/settings", "primary"},
		{"GET", "/admin/v1/reviews", "primary"},
		{"GET", "/panel/reviews", "primary"},
		{"POST", "/panel/sign-in", "primary"},
	} {
		st, hd, out := do(c.method, c.path, map[string]string{"Authorization": "Bearer k1", "X-Forwarded-For": "198.51.100.9",
			"X-Service-Site-Key": "site-1"})
		if c.from != "" && out["from"] != c.from {
			t.Errorf("%s %s answered by %v (%d), want %s", c.method, c.path, out["from"], st, c.from)
		}
		if hd.Get(app.LagHeader) != "3" {
			t.Errorf("%s %s: %s %q", c.method, c.path, app.LagHeader, hd.Get(app.LagHeader))
		}
	}
	last := seen[len(seen)-1]
	if last.Header.Get("Authorization") != "Bearer k1" || last.Header.Get("X-Service-Site-Key") != "site-1" ||
		last.Header.Get("X-Forwarded-For") != "198.51.100.9, 127.0.0.1" || last.URL.Path != "/panel/sign-in" {
		t.Errorf("passed request: %s %v", last.URL, last.Header)
	}

	// Lag over max_lag: /healthz fails, reads go on.
	if st, _, _ := do("GET", "/healthz", nil); st != 200 {
		t.Errorf("healthz at 3s: %d", st)
	}
	lag = 31 * time.Second
	if st, hd, out := do("GET", "/healthz", nil); st != 503 || out["error"] != "follower_lagging" || hd.Get(app.LagHeader) != "31" {
		t.Errorf("healthz at 31s: %d %v", st, out)
	}
	if st, _, _ := do("GET", "/v1/reviews/list?product=A", nil); st != 200 {
		t.Errorf("a lagging follower still reads: %d", st)
	}

	// Passing off: writes and the admin routes are refused.
	cfg.PassWrites = false
	off := httptest.NewServer(app.FollowerHandler(local, cfg, func() time.Duration { return 0 }))
	defer off.Close()
	srv.Config.Handler = off.Config.Handler
	n := len(seen)
	for _, c := range [][2]string{{"POST", "/v1/reviews/r_x/helpful"}, {"PUT", "/admin/v1/x"}, {"GET", "/admin/v1/reviews"}} {
		st, _, out := do(c[0], c[1], nil)
		if st != 503 || out["error"] != "follower_read_only" {
			t.Errorf("%s %s with passing off: %d %v", c[0], c[1], st, out)
		}
	}
	if len(seen) != n {
		t.Error("a refused write reached the primary")
	}
	if st, _, out := do("GET", "/v1/reviews/list?product=A", nil); st != 200 || out["from"] != "local" {
		t.Errorf("read with passing off: %d %v", st, out)
	}
}

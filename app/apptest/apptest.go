// Package apptest starts a real reviewd (real SQLite in a temporary data folder, the
// real router) behind httptest for HTTP tests, with a settable clock and helpers that
// create channels, keys and passwords. Imported only by _test.go files.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/store/storetest"
)

// Env is one running test installation.
type Env struct {
	T      testing.TB
	App    *app.App
	Server *app.Server
	HTTP   *httptest.Server
	URL    string
	Clock  *storetest.Clock
}

// Mounter builds the surfaces of the server (normally the same list as serve's).
type Mounter func(a *app.App, s *app.Server) []app.Surface

// New starts an installation at 2026-06-01T10:00:00Z with the given surfaces
// (normally cli.TestSurfaces, the same list serve mounts).
func New(t testing.TB, mount Mounter) *Env {
	t.Helper()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	cfg := app.Config{Listen: "127.0.0.1:0", PublicURL: "http://reviewd.test", DataDir: t.TempDir(),
		SMTP: app.SMTP{Security: "none"}, Log: app.Log{Level: "error", Format: "text"},
		// Tests may play visitors from other addresses with X-Forwarded-For.
		TrustedProxies: []string{"127.0.0.1/32"}}
	a, err := app.Open(context.Background(), cfg, storetest.SchemaSQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("apptest: open: %v", err)
	}
	a.DB.Now = clock.Now
	srv := app.NewServer(cfg, a.Core, func(s *app.Server) []app.Surface {
		if mount == nil {
			return nil
		}
		return mount(a, s)
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); a.Close() })
	return &Env{T: t, App: a, Server: srv, HTTP: ts, URL: ts.URL, Clock: clock}
}

// Channel creates an active channel with a verified domain shop.example.
func (e *Env) Channel(code, market, lang string) string {
	e.T.Helper()
	_, err := e.App.Core.CreateChannel(context.Background(), core.Console(), core.NewChannel{
		Code: code, Market: market, Language: lang, Label: code + " store", BrandName: "Acme",
		Domains: []string{"shop.example"}, LandingURL: "https://shop.example/review"})
	if err != nil {
		e.T.Fatalf("apptest: channel: %v", err)
	}
	return code
}

// Key creates a key and returns its secret.
func (e *Env) Key(kind, channel string, scopes ...string) string {
	e.T.Helper()
	k, err := e.App.Core.CreateKey(context.Background(), core.Console(), core.NewKey{Kind: kind, ChannelCode: channel, Scopes: scopes, AllowWrite: true})
	if err != nil {
		e.T.Fatalf("apptest: key: %v", err)
	}
	return k.Secret
}

// Password creates a password and returns its id and secret.
func (e *Env) Password(purpose, channel string) (id, secret string) {
	e.T.Helper()
	p, err := e.App.Core.CreatePassword(context.Background(), core.Console(), purpose, channel)
	if err != nil {
		e.T.Fatalf("apptest: password: %v", err)
	}
	return p.ID, p.Secret
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// Do sends a request; body may be nil, a string, []byte or a value to marshal.
func (e *Env) Do(method, path string, body any, headers map[string]string) Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.T.Fatalf("apptest: marshal: %v", err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		e.T.Fatalf("apptest: request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatalf("apptest: %s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out := Response{Status: res.StatusCode, Header: res.Header}
	out.Body, _ = io.ReadAll(res.Body)
	_ = json.Unmarshal(out.Body, &out.JSON)
	return out
}

// Code returns "error / detail" of an error answer.
func (r Response) Code() string {
	e, _ := r.JSON["error"].(string)
	d, _ := r.JSON["detail"].(string)
	return e + " / " + d
}

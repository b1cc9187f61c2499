// Package apptest starts a real reviewd (real SQLite in a temporary data folder, the
// real router) behind httptest for HTTP tests, with a settable clock and helpers that
// create channels, keys and passwords. Imported only by _test.go files.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/channels"
	"reviewd/app/web"
	"reviewd/store"
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
	return NewWith(t, mount, nil)
}

// NewWith is New with the configuration changed by edit (nil: none) before the
// data folder is opened.
func NewWith(t testing.TB, mount Mounter, edit func(*app.Config)) *Env {
	t.Helper()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	cfg := app.Config{Listen: "127.0.0.1:0", PublicURL: "http://reviewd.test", DataDir: t.TempDir(),
		SMTP: app.SMTP{Security: "none"}, Log: app.Log{Level: "error", Format: "text"},
		// Tests may play visitors from other addresses with X-Forwarded-For.
		TrustedProxies: []string{"127.0.0.1/32"}}
	if edit != nil {
		edit(&cfg)
	}
	a, err := app.Open(context.Background(), cfg, storetest.SchemaSQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("apptest: open: %v", err)
	}
	a.DB.Now = clock.Now
	srv := app.NewServer(cfg, a.Clock, a.Log, a.Access, func(s *app.Server) []app.Surface {
		if mount == nil {
			return nil
		}
		return mount(a, s)
	})
	srv.UseMetrics(a.Metrics)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); a.Close() })
	return &Env{T: t, App: a, Server: srv, HTTP: ts, URL: ts.URL, Clock: clock}
}

// Channel creates an active channel with a verified domain shop.example.
func (e *Env) Channel(code, market, lang string) string {
	e.T.Helper()
	_, err := e.App.Domain.Channels.CreateChannel(context.Background(), core.Console(), channels.NewChannel{
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
	k, err := e.App.Access.CreateKey(context.Background(), core.Console(), access.NewKey{Kind: kind, ChannelCode: channel, Scopes: scopes, AllowWrite: true})
	if err != nil {
		e.T.Fatalf("apptest: key: %v", err)
	}
	return k.Secret
}

// User creates a panel user as access.Service.CreateUser does (the same row and activity
// entry) but with its password hashed at bcrypt's lowest cost: the product's cost
// takes seconds per hash under the race detector, and the tests check what a
// password admits, not how slowly. Passwords set later through the API are hashed
// at the product's cost.
func (e *Env) User(in access.NewUser) store.User {
	e.T.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(in.Password), bcrypt.MinCost)
	if err != nil {
		e.T.Fatalf("apptest: user: %v", err)
	}
	ctx := context.Background()
	u := store.User{Username: in.Username, Email: in.Email, Role: in.Role, PasswordHash: string(hash)}
	err = e.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		if u, err = tx.CreateUser(ctx, u); err != nil {
			return err
		}
		return e.App.Recorder.Record(ctx, tx, core.Console(), "user.created", "user", u.Username, map[string]any{"role": u.Role})
	})
	if err != nil {
		e.T.Fatalf("apptest: user: %v", err)
	}
	return u
}

// Password creates a password and returns its id and secret.
func (e *Env) Password(purpose, channel string) (id, secret string) {
	e.T.Helper()
	p, err := e.App.Passwords.CreatePassword(context.Background(), core.Console(), purpose, channel)
	if err != nil {
		e.T.Fatalf("apptest: password: %v", err)
	}
	return p.ID, p.Secret
}

// Response is a decoded answer and the request it answers.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
	// Request is "METHOD path" and the request body, for failure messages.
	Request string
}

// String gives the request and the answer with its body, for failure messages:
// t.Fatalf("want 200, got %s", res).
func (r Response) String() string {
	return fmt.Sprintf("%s\n  -> %d %s", r.Request, r.Status, clip(r.Body))
}

// clip shortens a long body for a failure message.
func clip(b []byte) string {
	const max = 2000
	if len(b) == 0 {
		return "(no body)"
	}
	if !utf8.Valid(b) {
		return fmt.Sprintf("(%d bytes, not text)", len(b))
	}
	if len(b) > max {
		return fmt.Sprintf("%s… (%d bytes)", b[:max], len(b))
	}
	return string(b)
}

// Expect fails the test unless the answer has the status and, when code is not
// empty, the error code "error / detail"; the message shows the request and the
// answer body.
func Expect(t testing.TB, res Response, status int, code string) {
	t.Helper()
	if res.Status != status || (code != "" && res.Code() != code) {
		t.Fatalf("want %d %s, got %d %s for\n  %s", status, code, res.Status, res.Code(), res)
	}
}

// Eventually waits for something the test cannot be told about (a background
// read, a late write): it calls check until it reports done, and fails the test
// after timeout naming what it waited for and check's last report.
func Eventually(t testing.TB, what string, timeout time.Duration, check func() (done bool, last string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		done, last := check()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; last seen: %s", timeout, what, last)
		}
		<-tick.C
	}
}

// Do sends a request; body may be nil, a string, []byte or a value to marshal.
func (e *Env) Do(method, path string, body any, headers map[string]string) Response {
	e.T.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			e.T.Fatalf("apptest: marshal: %v", err)
		}
	}
	var rd io.Reader
	if body != nil {
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
	out := Response{Status: res.StatusCode, Header: res.Header, Request: method + " " + path}
	if len(raw) > 0 {
		out.Request += " " + clip(raw)
	}
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

// NoLimits lets the shared per-IP and per-key budgets refill between any two
// requests (their clock moves an hour at every reading; the service clock stays),
// for fuzz targets that send thousands of refused requests from one address.
func (e *Env) NoLimits() {
	var n atomic.Int64
	now := func() time.Time { return time.Unix(0, 0).Add(time.Duration(n.Add(1)) * time.Hour) }
	l := e.Server.Limits
	for _, x := range []*web.Limiter{l.Keys, l.Refused, l.StoreServer, l.PerIP, l.Viewer} {
		x.Now = now
	}
}

// Fuzz sends one raw request for a fuzz target and fails t when the answer is a
// 5xx (a bug whatever the input) or not JSON where JSON was promised. It returns
// the answer.
func (e *Env) Fuzz(t testing.TB, method, path string, body []byte, headers map[string]string) Response {
	t.Helper()
	req, err := http.NewRequest(method, e.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("apptest: request: %v", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("apptest: %s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out := Response{Status: res.StatusCode, Header: res.Header}
	out.Body, _ = io.ReadAll(res.Body)
	if res.StatusCode >= 500 {
		t.Fatalf("%s %s answered %d %s for body %q", method, path, res.StatusCode, out.Body, body)
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(out.Body, &out.JSON); err != nil && len(bytes.TrimSpace(out.Body)) > 0 && out.Body[0] == '{' {
			t.Fatalf("%s %s: answer is not JSON: %s", method, path, out.Body)
		}
	}
	return out
}

// LockedBuffer is a buffer that a process or a logger writes to while the test may
// read it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/store/storetest"
)

func openTestApp(t *testing.T, dir string) *app.App {
	t.Helper()
	cfg := app.Config{Listen: "127.0.0.1:8080", PublicURL: "http://127.0.0.1:8080", DataDir: dir,
		SMTP: app.SMTP{Security: "none"}, Log: app.Log{Level: "error", Format: "text"}}
	a, err := app.Open(context.Background(), cfg, storetest.SchemaSQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func TestSeedDemo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openTestApp(t, dir)
	info, err := seedDemo(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if info.Reused || len(info.Channels) != 2 || info.Channels[0].Code != "demo-tr" || info.Channels[1].Code != "demo-en" {
		t.Fatalf("info = %+v", info)
	}
	chs, err := a.DB.Read().ListChannels(ctx)
	if err != nil || len(chs) != 2 {
		t.Fatalf("channels %v, %v", chs, err)
	}
	for _, c := range chs {
		want := map[string][2]string{"demo-tr": {"TR", "tr"}, "demo-en": {"GB", "en"}}[c.Code]
		if c.Market != want[0] || c.Language != want[1] || strings.Join(c.Domains, ",") != "localhost" {
			t.Fatalf("channel %+v", c)
		}
	}
	for _, c := range info.Channels {
		for _, secret := range []string{c.ServerKey, c.SiteKey} {
			if k, detail, err := a.Core.LookupKey(ctx, secret); err != nil || detail != "" || k.ChannelID == 0 {
				t.Fatalf("demo key %s: %s %v", secret, detail, err)
			}
		}
	}
	k, detail, err := a.Core.LookupKey(ctx, info.APIKey)
	if err != nil || detail != "" || k.Kind != core.KindAPI || k.Scopes != "read,moderate,export,write" {
		t.Fatalf("api key %+v %s %v", k, detail, err)
	}
	u, err := a.DB.Read().UserByUsername(ctx, "demo")
	if err != nil || u.Role != "owner" || !core.CheckPassword(u.PasswordHash, info.Password) {
		t.Fatalf("demo user %+v %v", u, err)
	}
	st, err := os.Stat(filepath.Join(dir, demoFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("demo.json: %v %v", st, err)
	}

	again, err := seedDemo(ctx, a)
	if err != nil || !again.Reused || again.Password != info.Password || again.APIKey != info.APIKey {
		t.Fatalf("second seed = %+v, %v", again, err)
	}
	if chs, _ := a.DB.Read().ListChannels(ctx); len(chs) != 2 {
		t.Fatalf("second seed added channels")
	}

	// Data without demo.json is not silently mixed with a new demo.
	other := openTestApp(t, t.TempDir())
	if _, err := other.Core.CreateChannel(ctx, core.Console(), core.NewChannel{Code: "x", Market: "TR", Language: "tr", Label: "x", BrandName: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := seedDemo(ctx, other); err == nil || !strings.Contains(err.Error(), "remove the folder") {
		t.Fatalf("seed over foreign data: %v", err)
	}
}

func TestDemoSurface(t *testing.T) {
	a := openTestApp(t, t.TempDir())
	info, err := seedDemo(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	srv := app.NewServer(a.Config, a.Core, func(*app.Server) []app.Surface {
		return []app.Surface{&demoSurface{info: info, base: "http://demo.test"}}
	})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := http.Get(ts.URL + "/demo/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var idx struct {
		Channels []map[string]string `json:"channels"`
		Products []string            `json:"products"`
		Panel    string              `json:"panel"`
	}
	if res.StatusCode != 200 || json.Unmarshal(body, &idx) != nil || len(idx.Channels) != 2 || len(idx.Products) == 0 ||
		idx.Panel != "http://demo.test/admin/" || idx.Channels[0]["site_key"] != info.Channels[0].SiteKey {
		t.Fatalf("GET /demo/ = %d %s", res.StatusCode, body)
	}
	for _, secret := range []string{info.APIKey, info.Password, info.Channels[0].ServerKey, info.Channels[0].SigningPassword} {
		if bytes.Contains(body, []byte(secret)) {
			t.Fatalf("GET /demo/ shows a secret: %s", body)
		}
	}
}

// syncBuffer is a writer the test can read while the command writes; it signals once
// the demo printed its panel address.
type syncBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if strings.Contains(b.buf.String(), "stop with Ctrl-C") {
		b.once.Do(func() { close(b.ready) })
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDemoCommand starts `reviewd demo` in ./demo-data of a temporary working folder,
// reads the printed addresses, fetches the demo index and stops it; a second start
// reuses the data and prints the same sign-in.
func TestDemoCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("REVIEWD_JOBS_ENABLED", "false")
	t.Setenv("REVIEWD_LOG_LEVEL", "error")
	run := func() string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		root := NewRoot(storetest.SchemaSQL(t))
		out := &syncBuffer{ready: make(chan struct{})}
		root.SetOut(out)
		root.SetErr(io.Discard)
		root.SetArgs([]string{"demo", "--listen", "127.0.0.1:0"})
		done := make(chan error, 1)
		go func() { done <- root.ExecuteContext(ctx) }()
		select {
		case <-out.ready:
		case err := <-done:
			t.Fatalf("demo ended early: %v\n%s", err, out.String())
		}
		text := out.String()
		m := regexp.MustCompile(`demo product page\s+(http://\S+)/demo/`).FindStringSubmatch(text)
		if m == nil || !strings.Contains(text, m[1]+"/admin/") {
			t.Fatalf("demo output:\n%s", text)
		}
		res, err := http.Get(m[1] + "/demo/")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET /demo/: %v %v", res, err)
		}
		res.Body.Close()
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("demo stop: %v", err)
		}
		return text
	}
	first := run()
	if _, err := os.Stat(filepath.Join("demo-data", "reviewd.db")); err != nil {
		t.Fatalf("demo did not use ./demo-data: %v", err)
	}
	second := run()
	signIn := regexp.MustCompile(`panel sign-in\s+(.*)`)
	if !strings.Contains(first, "created data folder") || !strings.Contains(second, "reused data folder") ||
		signIn.FindString(first) != signIn.FindString(second) {
		t.Fatalf("second start does not reuse the demo:\n%s\n---\n%s", first, second)
	}
}

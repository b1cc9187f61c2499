package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"reviewd/app/cli"
	"reviewd/store"
	"reviewd/store/storetest"
)

// result is what one in-process command run printed.
type result struct {
	Out, Err string
	Error    error
}

// runCLI runs the reviewd command tree in process over the data folder dir.
func runCLI(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	t.Setenv("REVIEWD_LOG_LEVEL", "warn") // job runs log at info
	root := cli.NewRoot(storetest.SchemaSQL(t))
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(append(args, "--data", dir))
	err := root.ExecuteContext(context.Background())
	return result{Out: out.String(), Err: errb.String(), Error: err}
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := runCLI(t, dir, "", args...)
	if r.Error != nil {
		t.Fatalf("reviewd %s: %v", strings.Join(args, " "), r.Error)
	}
	return r.Out
}

// mustJSON runs a command with --json and decodes its output into v.
func mustJSON(t *testing.T, dir string, v any, args ...string) {
	t.Helper()
	out := mustRun(t, dir, append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("reviewd %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// failRun runs a command that must fail with a one-line message containing want.
func failRun(t *testing.T, dir, want string, args ...string) {
	t.Helper()
	r := runCLI(t, dir, "", args...)
	if r.Error == nil {
		t.Fatalf("reviewd %s: succeeded, want error %q\n%s", strings.Join(args, " "), want, r.Out)
	}
	if msg := r.Error.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Fatalf("reviewd %s: error %q, want one line containing %q", strings.Join(args, " "), msg, want)
	}
}

// openDB opens the data folder's database directly, as another process would.
func openDB(t *testing.T, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(dir, "reviewd.db"), storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func createChannel(t *testing.T, dir, code, market, lang string) {
	t.Helper()
	mustRun(t, dir, "channel", "create", "--code", code, "--market", market, "--language", lang,
		"--label", code+" store", "--brand-name", "Acme", "--domain", "shop.example")
}

func TestChannelCreate(t *testing.T) {
	dir := t.TempDir()
	var ch map[string]any
	mustJSON(t, dir, &ch, "channel", "create", "--code", "tr-main", "--market", "tr", "--language", "tr",
		"--label", "Türkiye", "--brand-name", "Acme", "--domain", "Shop.Example", "--domain", "https://www.shop.example/path",
		"--landing-url", "https://shop.example/review", "--privacy-url", "https://shop.example/privacy")
	want := map[string]any{"code": "tr-main", "label": "Türkiye", "market": "TR", "language": "tr", "brand_name": "Acme",
		"landing_url": "https://shop.example/review", "privacy_url": "https://shop.example/privacy",
		"domains": []any{"shop.example", "www.shop.example"}, "active": true}
	if got, _ := json.Marshal(ch); string(got) != mustMarshal(t, want) {
		t.Fatalf("channel = %s\nwant %s", got, mustMarshal(t, want))
	}

	// A market without shipped rules is still a valid channel (orders are refused later).
	createChannel(t, dir, "nl-main", "NL", "en")

	var list []map[string]any
	mustJSON(t, dir, &list, "channel", "list")
	if len(list) != 2 || list[0]["code"] != "nl-main" || list[1]["code"] != "tr-main" {
		t.Fatalf("channel list = %v", list)
	}
	table := mustRun(t, dir, "channel", "list")
	if !strings.HasPrefix(table, "CODE") || !strings.Contains(table, "tr-main") || !strings.Contains(table, "shop.example,www.shop.example") {
		t.Fatalf("channel list table:\n%s", table)
	}
}

func TestChannelCreateRefused(t *testing.T) {
	dir := t.TempDir()
	createChannel(t, dir, "tr-main", "TR", "tr")
	base := []string{"channel", "create", "--label", "L", "--brand-name", "B"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"duplicate code", []string{"--code", "tr-main", "--market", "TR", "--language", "tr", "--domain", "a.example"}, "channel_exists"},
		{"bad language", []string{"--code", "x", "--market", "TR", "--language", "de", "--domain", "a.example"}, "invalid: language"},
		{"bad market", []string{"--code", "x", "--market", "TUR", "--language", "tr", "--domain", "a.example"}, "invalid: market"},
		{"bad domain", []string{"--code", "x", "--market", "TR", "--language", "tr", "--domain", "127.0.0.1"}, "invalid: domain: 127.0.0.1"},
		{"privacy not https", []string{"--code", "x", "--market", "TR", "--language", "tr", "--domain", "a.example", "--privacy-url", "http://a.example/p"}, "privacy_url_not_https"},
		{"missing domain", []string{"--code", "x", "--market", "TR", "--language", "tr"}, "domain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failRun(t, dir, tc.want, append(append([]string{}, base...), tc.args...)...)
		})
	}
	var list []map[string]any
	mustJSON(t, dir, &list, "channel", "list")
	if len(list) != 1 {
		t.Fatalf("refused creations left channels: %v", list)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

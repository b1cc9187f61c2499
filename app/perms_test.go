package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"reviewd/app"
)

// TestPermissionWarnings: serve warns about a data folder, master key or database
// other accounts can read, and says nothing about the modes reviewd creates.
func TestPermissionWarnings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"secret.key", "reviewd.db"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := app.PermissionWarnings(dir); len(got) != 0 {
		t.Fatalf("warnings for private modes: %v", got)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "secret.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := app.PermissionWarnings(dir)
	if len(got) != 2 || !strings.Contains(got[0], "data folder") || !strings.Contains(got[1], "secret.key has mode 0644") {
		t.Fatalf("warnings = %q", got)
	}
}

// TestProxyWarning: loopback listen with a public address elsewhere and no
// trusted_proxies is warned about; a direct or configured setup is not.
func TestProxyWarning(t *testing.T) {
	for _, c := range []struct {
		cfg  app.Config
		warn bool
	}{
		{app.Config{Listen: "127.0.0.1:8080", PublicURL: "https://reviews.shop.example"}, true},
		{app.Config{Listen: "[::1]:8080", PublicURL: "https://reviews.shop.example"}, true},
		{app.Config{Listen: "127.0.0.1:8080", PublicURL: "https://reviews.shop.example", TrustedProxies: []string{"127.0.0.1"}}, false},
		{app.Config{Listen: "127.0.0.1:8080", PublicURL: "http://127.0.0.1:8080"}, false},
		{app.Config{Listen: "0.0.0.0:443", PublicURL: "https://reviews.shop.example"}, false},
	} {
		if got := app.ProxyWarning(c.cfg); (got != "") != c.warn || (c.warn && !strings.Contains(got, "trusted_proxies")) {
			t.Errorf("%+v: warning %q, want warning %v", c.cfg, got, c.warn)
		}
	}
}

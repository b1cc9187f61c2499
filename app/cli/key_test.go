package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"strings"
	"testing"
)

func TestKeyCreate(t *testing.T) {
	dir := t.TempDir()
	createChannel(t, dir, "tr-main", "TR", "tr")
	for _, tc := range []struct {
		name       string
		args       []string
		kind       string
		scopes     []string
		channel    any
		prefix     string
		wantErrSub string
	}{
		{name: "server", args: []string{"--kind", "server", "--channel", "tr-main"}, kind: "server", scopes: []string{"orders", "ssr"}, channel: "tr-main", prefix: "rvd_srv_"},
		{name: "site", args: []string{"--kind", "site", "--channel", "tr-main", "--label", "storefront"}, kind: "site", scopes: []string{}, channel: "tr-main", prefix: "rvd_site_"},
		{name: "api with write", args: []string{"--kind", "api", "--scopes", "read,moderate,export,write"}, kind: "api", scopes: []string{"read", "moderate", "export", "write"}, channel: nil, prefix: "rvd_api_"},
		{name: "api without scopes", args: []string{"--kind", "api"}, wantErrSub: "invalid: scopes_required"},
		{name: "api unknown scope", args: []string{"--kind", "api", "--scopes", "read,admin"}, wantErrSub: "invalid: unknown_scope: admin"},
		{name: "site without channel", args: []string{"--kind", "site"}, wantErrSub: "invalid: channel_required"},
		{name: "server unknown channel", args: []string{"--kind", "server", "--channel", "nope"}, wantErrSub: "invalid: channel"},
		{name: "bad kind", args: []string{"--kind", "root"}, wantErrSub: "invalid: kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"key", "create"}, tc.args...)
			if tc.wantErrSub != "" {
				failRun(t, dir, tc.wantErrSub, args...)
				return
			}
			var k map[string]any
			mustJSON(t, dir, &k, args...)
			if len(k) != 5 || k["kind"] != tc.kind || k["channel"] != tc.channel || !strings.HasPrefix(k["id"].(string), "key_") ||
				!strings.HasPrefix(k["key"].(string), tc.prefix) || mustMarshal(t, k["scopes"]) != mustMarshal(t, tc.scopes) {
				t.Fatalf("key = %v", k)
			}
		})
	}
}

// TestKeySecretShownOnce checks that the secret appears only in the create output,
// is stored as its SHA-256 and that a revoked key is listed as revoked.
func TestKeySecretShownOnce(t *testing.T) {
	dir := t.TempDir()
	var k struct{ ID, Key string }
	mustJSON(t, dir, &k, "key", "create", "--kind", "api", "--scopes", "read", "--label", "reports")

	for _, args := range [][]string{{"key", "list"}, {"key", "list", "--json"}} {
		out := mustRun(t, dir, args...)
		if strings.Contains(out, k.Key) || strings.Contains(out, k.Key[8:]) {
			t.Fatalf("%v shows the secret:\n%s", args, out)
		}
		if !strings.Contains(out, k.ID) {
			t.Fatalf("%v lacks the key id:\n%s", args, out)
		}
	}
	var list []map[string]any
	mustJSON(t, dir, &list, "key", "list")
	want := map[string]any{"id": k.ID, "kind": "api", "channel": nil, "scopes": []any{"read"}, "label": "reports",
		"hint": k.Key[len(k.Key)-4:], "revoked_at": nil, "last_used_at": nil}
	for f, v := range want {
		if mustMarshal(t, list[0][f]) != mustMarshal(t, v) {
			t.Fatalf("key list %s = %v, want %v", f, list[0][f], v)
		}
	}
	if _, ok := list[0]["created_at"].(string); !ok {
		t.Fatalf("key list created_at = %v", list[0]["created_at"])
	}

	db := openDB(t, dir)
	row, err := db.Read().KeyByPublicID(context.Background(), k.ID)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(k.Key))
	if !bytes.Equal(row.Hash, sum[:]) {
		t.Fatalf("stored key is not the SHA-256 of the secret")
	}
	db.Close()

	mustRun(t, dir, "key", "revoke", k.ID)
	mustJSON(t, dir, &list, "key", "list")
	if list[0]["revoked_at"] == nil {
		t.Fatalf("revoked key listed as %v", list[0])
	}
	failRun(t, dir, "not found or already revoked", "key", "revoke", k.ID)
	failRun(t, dir, "not found", "key", "revoke", "key_0000000000000000")
}

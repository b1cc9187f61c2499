package app_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"reviewd/app"
	"reviewd/store"
	"reviewd/store/storetest"
)

// TestOpenUpgradesFirstVersionFolder opens a data folder made by schema version 1:
// the database is upgraded in place, the read model is built, and the folder keeps
// its channel.
func TestOpenUpgradesFirstVersionFolder(t *testing.T) {
	dir := t.TempDir()
	v1, err := os.ReadFile("../store/testdata/schema_v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, app.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(v1) + `; PRAGMA user_version = 1;
		INSERT INTO channels (code, market, language, label, brand_name, created_at) VALUES ('web', 'TR', 'tr', 'Web', 'Acme', 1)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	cfg := app.Config{Listen: "127.0.0.1:0", PublicURL: "http://x.test", DataDir: dir, SMTP: app.SMTP{Security: "none"}}
	a, err := app.Open(context.Background(), cfg, storetest.SchemaSQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("open a version-1 folder: %v", err)
	}
	defer a.Close()
	if a.DB.UpgradedFrom != 1 {
		t.Fatalf("UpgradedFrom = %d, want 1", a.DB.UpgradedFrom)
	}
	if v, _ := a.DB.Version(context.Background()); v != store.SchemaVersion {
		t.Fatalf("version %d, want %d", v, store.SchemaVersion)
	}
	if _, err := a.DB.Read().ChannelByCode(context.Background(), "web"); err != nil {
		t.Fatalf("channel lost: %v", err)
	}
}

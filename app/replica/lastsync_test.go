package replica

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestLastSync: a running replica reports when it last held everything (the
// owner alerts name a replica behind); it moves on with each complete pass.
func TestLastSync(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := Paths{DB: filepath.Join(dir, "reviewd.db"), Media: filepath.Join(dir, "media"), Key: filepath.Join(dir, "secret.key")}
	if err := os.MkdirAll(p.Media, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.Key, []byte("0123456789abcdef0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+p.DB+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	c := Defaults
	c.URL, c.MediaInterval = "file://"+filepath.Join(t.TempDir(), "replica"), 100*time.Millisecond
	rep, err := Start(ctx, c, p, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close(ctx)
	first, ok := rep.LastSync()
	if !ok || time.Since(first) > time.Minute {
		t.Fatalf("last sync at start: %v %v", first, ok)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	// Waits on the state as apptest.Eventually does (apptest imports this package).
	deadline := time.Now().Add(10 * time.Second)
	for {
		last, _ := rep.LastSync()
		if last.After(first) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no complete pass after the start: last sync %v", last)
		}
		time.Sleep(10 * time.Millisecond) // polling interval of the wait, as apptest.Eventually
	}
}

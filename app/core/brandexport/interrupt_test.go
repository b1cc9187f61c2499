package brandexport

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/store"
	"reviewd/store/storetest"
)

// TestInterruptedBuild: a build whose context ends (the data folder closes) is
// recorded failed: interrupted and leaves no file behind; one that ends is ready.
func TestInterruptedBuild(t *testing.T) {
	db := storetest.Open(t, &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)})
	s := &Service{DB: db, Clock: core.NewClock(db), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Dir: t.TempDir()}
	ctx := context.Background()
	var e store.BrandExport
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		e, err = tx.CreateBrandExport(ctx, "", tx.Now.Add(Lifetime))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	s.build(cancelled, e)
	got, err := db.Read().BrandExportByID(ctx, e.ID)
	if err != nil || got.State != StateFailed || got.Error != "interrupted" {
		t.Fatalf("interrupted build = %+v, %v", got, err)
	}
	if left, _ := filepath.Glob(filepath.Join(s.Dir, "*")); len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}

	s.build(ctx, e)
	got, _ = db.Read().BrandExportByID(ctx, e.ID)
	if got.State != StateReady || got.Size == 0 || got.SHA256 == "" {
		t.Fatalf("build = %+v", got)
	}
	if st, err := os.Stat(filepath.Join(s.Dir, got.File)); err != nil || st.Size() != got.Size || st.Mode().Perm() != 0o600 {
		t.Fatalf("archive file: %v %v", st, err)
	}
	// The cleanup removes it once expired, and marks a stale build failed.
	n, err := s.RemoveExpired(ctx, got.ExpiresAt.Add(time.Second))
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v", n, err)
	}
}

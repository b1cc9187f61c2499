package access

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"reviewd/store"
	"reviewd/store/storetest"
)

// TestRefusalsHeldBackAreWritten: the refusals of one host within a write
// interval are written once the interval is over, so the owner alert's count
// comes right without a later refusal.
func TestRefusalsHeldBackAreWritten(t *testing.T) {
	old := refusalEvery
	refusalEvery = 50 * time.Millisecond
	t.Cleanup(func() { refusalEvery = old })
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "reviewd.db"), storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, nil, nil, "", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { s.StopResets(); db.Close() })
	for i := 0; i < 3; i++ {
		s.noteRefusal(RefusalOriginUnverified, "shop.example", 0)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		rs, err := db.Read().ComponentRefusals(context.Background(), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 1 && rs[0].Count == 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("refusals written: %+v", rs)
		}
		time.Sleep(10 * time.Millisecond) // the wait of apptest.Eventually (which this package cannot import)
	}
}

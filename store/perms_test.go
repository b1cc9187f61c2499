package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"reviewd/store"
	"reviewd/store/storetest"
)

// TestOpenCreatesPrivateFiles: a new database and its -wal and -shm files are
// readable by the service's own account only.
func TestOpenCreatesPrivateFiles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "reviewd.db")
	db, err := store.Open(ctx, path, storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		return tx.AddActivity(ctx, store.Activity{Action: "test.write", ActorType: "console", TargetType: "seq", TargetID: "1"})
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Read().ListActivity(ctx, store.ActivityFilter{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %04o, want 0600", filepath.Base(name), st.Mode().Perm())
		}
	}
}

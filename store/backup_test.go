package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"reviewd/store"
	"reviewd/store/storetest"
)

func TestSnapshotTo(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, nil)
	for _, code := range []string{"a", "b"} {
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			_, err := tx.CreateChannel(ctx, store.Channel{Code: code, Market: "TR", Language: "tr", Label: code, BrandName: code, Domains: []string{code + ".example"}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	snap := filepath.Join(t.TempDir(), "snap.db")
	if err := db.SnapshotTo(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if err := db.SnapshotTo(ctx, snap); err == nil {
		t.Fatal("snapshot over an existing file succeeded")
	}

	// Writes after the snapshot are not in it.
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.CreateChannel(ctx, store.Channel{Code: "c", Market: "TR", Language: "tr", Label: "c", BrandName: "c"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	copyDB, err := store.Open(ctx, snap, storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	if err := copyDB.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := copyDB.Version(ctx); err != nil || v != store.SchemaVersion {
		t.Fatalf("snapshot version %d, %v", v, err)
	}
	chs, err := copyDB.Read().ListChannels(ctx)
	if err != nil || len(chs) != 2 || chs[1].Domains[0] != "b.example" {
		t.Fatalf("snapshot channels %+v, %v", chs, err)
	}
}

func TestIntegrityCheckFindsDamage(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, nil)
	if err := db.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snap.db")
	if err := db.SnapshotTo(ctx, snap); err != nil {
		t.Fatal(err)
	}
	// Overwrite the last page: the schema still reads, an index or table does not.
	f, err := os.OpenFile(snap, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = 0xA5
	}
	if _, err := f.WriteAt(junk, st.Size()-4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	damaged, err := store.Open(ctx, snap, storetest.SchemaSQL(t))
	if err != nil {
		t.Logf("refused at open: %v", err)
		return // damage found too
	}
	defer damaged.Close()
	if err := damaged.IntegrityCheck(ctx); err == nil {
		t.Fatal("integrity check passed a damaged database")
	}
}

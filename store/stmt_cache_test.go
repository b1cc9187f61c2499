package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"reviewd/store"
	"reviewd/store/storetest"
)

// TestStatementCacheKeepsHotStatements: after more distinct SQL strings than the
// cache holds, a statement in steady use is still cached and answers; Close drops
// every statement.
func TestStatementCacheKeepsHotStatements(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "reviewd.db"), storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	const hot = "SELECT 1"
	var n int
	for i := 0; i < 2*store.MaxCachedStmts; i++ {
		if err := store.ReadQueryRow(db, hot, &n); err != nil || n != 1 {
			t.Fatalf("hot query: %d, %v", n, err)
		}
		q := fmt.Sprintf("SELECT %d", i+2)
		if err := store.ReadQueryRow(db, q, &n); err != nil || n != i+2 {
			t.Fatalf("%s: %d, %v", q, n, err)
		}
	}
	ok, size := store.StmtCached(db, hot)
	if !ok {
		t.Error("the hot statement left the cache")
	}
	if size != store.MaxCachedStmts {
		t.Errorf("cache holds %d statements, want %d", size, store.MaxCachedStmts)
	}
	if ok, _ := store.StmtCached(db, "SELECT 2"); ok {
		t.Error("the least recently used statement is still cached")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, size := store.StmtCached(db, hot); size != 0 {
		t.Errorf("after Close the cache holds %d statements", size)
	}
}

// TestWriteStatementCache: a statement a write transaction runs is prepared on
// the write pool after the commit and bound by later transactions, which see
// their own writes through it; a rolled-back transaction prepares nothing, text
// of two statements is never prepared (both still run), and after more distinct
// statements than the cache holds the writes still land.
func TestWriteStatementCache(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "reviewd.db"), storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		return store.TxExec(tx, `CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)`)
	}); err != nil {
		t.Fatal(err)
	}
	const ins, count = `INSERT INTO t (k, v) VALUES (?, ?)`, `SELECT count(*) FROM t`
	if db.WithTx(ctx, func(tx *store.Tx) error {
		if err := store.TxExec(tx, ins, 1, "a"); err != nil {
			return err
		}
		return errors.New("refused")
	}) == nil {
		t.Fatal("the refused transaction committed")
	}
	if ok, _ := store.WriteStmtCached(db, ins); ok {
		t.Fatal("a rolled-back transaction prepared its statement")
	}
	for i := range 3 {
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			for j := range 2 {
				if err := store.TxExec(tx, ins, 10*i+j, "v"); err != nil {
					return err
				}
			}
			var n int
			if err := store.TxQueryRow(tx, count, &n); err != nil {
				return err
			}
			if n != 2*(i+1) {
				return fmt.Errorf("transaction %d sees %d rows, want %d", i, n, 2*(i+1))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := store.WriteStmtCached(db, ins); !ok {
			t.Fatalf("after commit %d the insert is not prepared", i)
		}
	}
	two := `INSERT INTO t (k, v) VALUES (100, 'x'); INSERT INTO t (k, v) VALUES (101, 'y');`
	for range 2 {
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			if err := store.TxExec(tx, two); err != nil {
				return err
			}
			return store.TxExec(tx, `DELETE FROM t WHERE k >= 100`)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := store.WriteStmtCached(db, two); ok {
		t.Fatal("text of two statements was prepared")
	}
	for i := range store.MaxCachedStmts + 10 {
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			return store.TxExec(tx, fmt.Sprintf(`INSERT INTO t (k, v) VALUES (%d, ?)`, 1000+i), "w")
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, size := store.WriteStmtCached(db, ins); size != store.MaxCachedStmts {
		t.Fatalf("write cache holds %d statements, want %d", size, store.MaxCachedStmts)
	}
	var n int
	if err := store.ReadQueryRow(db, count, &n); err != nil || n != 6+store.MaxCachedStmts+10 {
		t.Fatalf("rows: %d, %v", n, err)
	}
}

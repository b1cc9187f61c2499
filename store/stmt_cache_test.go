package store_test

import (
	"context"
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

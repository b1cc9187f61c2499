// Package storetest opens real SQLite databases in temporary folders for tests. It is
// imported only by _test.go files.
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"reviewd/store"
)

// SchemaSQL reads schema.sql from the repository root, found relative to this file.
func SchemaSQL(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "schema.sql"))
	if err != nil {
		t.Fatalf("storetest: read schema.sql: %v", err)
	}
	return string(b)
}

// Clock is a settable test clock.
type Clock struct{ T time.Time }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.T }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.T = c.T.Add(d) }

// Open creates a database in t.TempDir() with the production pragmas and schema and
// closes it when the test ends. Its clock is fixed at clock.
func Open(t testing.TB, clock *Clock) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "reviewd.db"), SchemaSQL(t))
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	if clock != nil {
		db.Now = clock.Now
	}
	t.Cleanup(func() { db.Close() })
	return db
}

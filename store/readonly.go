package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"runtime"
	"time"
)

// ErrReadOnly is returned by WithTx on a database opened with OpenReadOnly.
var ErrReadOnly = fmt.Errorf("store: the database is a read-only copy (follower)")

// OpenReadOnly opens a database file that another process keeps up to date (a
// follower's copy, written page by page from the replica): both pools are
// read-only, nothing is migrated, and the schema must be this binary's.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	v := url.Values{}
	v.Add("mode", "ro")
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "query_only(1)")
	v.Add("_time_format", "sqlite")
	dsn := "file:" + path + "?" + v.Encode()
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open read-only: %w", err)
	}
	n := max(2*runtime.NumCPU(), 4)
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("store: open read-only: %w", err)
	}
	w.SetMaxOpenConns(1)
	db := &DB{read: r, write: w, path: path, readOnly: true, Now: func() time.Time { return time.Now().UTC() }}
	db.stmts = newStmtCache(r)
	v2, err := db.Version(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: read-only: %w", err)
	}
	if v2 != SchemaVersion {
		db.Close()
		return nil, fmt.Errorf("store: the copy's schema version is %d, this binary's %d: run the primary's version", v2, SchemaVersion)
	}
	return db, nil
}

// ReadOnly reports whether the database was opened with OpenReadOnly.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Package store owns all SQL of reviewd over modernc.org/sqlite. It holds no
// business rules (those live in app/core) and imports only the standard library and
// the driver.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver
)

// conn is what both a pool and a transaction offer.
type conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Q runs the store's queries over one connection (the read pool or a transaction).
// Every aggregate file adds its reads to Q, so one method serves both plain reads
// and reads inside a write transaction, and its writes to Tx, so a write on the
// read pool does not compile (TestWritesOnTxOnly keeps write SQL off Q).
type Q struct {
	c   conn
	Now time.Time
	w   *txWatch // in a transaction: the read state it changed (read_watch.go)
}

// DB is one database file opened twice: a read pool and a write pool of one
// connection, so long reads never wait behind a writer and writers never race.
type DB struct {
	read  *sql.DB
	write *sql.DB
	stmts *stmtCache // prepared statements of the read pool
	// wstmts are the prepared statements of the write pool (stmt_cache_tx.go).
	wstmts *stmtCache
	path   string
	// Now is the clock; tests replace it.
	Now func() time.Time
	// UpgradedFrom is the schema version the file had when Open upgraded it (0 for a
	// fresh database or one that was already current).
	UpgradedFrom int
	// ObserveWriteTx, when set, is told the wait and hold time of every WithTx.
	ObserveWriteTx WriteTxObserver
	// watch keeps the storefront's read state in memory (read_watch.go).
	watch readWatch
	// readOnly: opened by OpenReadOnly, WithTx refuses.
	readOnly bool
}

// Tx is a write transaction: the store's writes are its methods, its reads those
// of the embedded Q. Now is fixed when it begins so every row it stamps and its
// audit entry carry the same time.
type Tx struct {
	*Q
	tx    *sql.Tx
	after []func()
}

// AfterCommit runs fn once the transaction has committed (never when it rolls
// back): work outside the database that must follow the committed state, such as
// media copies in object storage.
func (t *Tx) AfterCommit(fn func()) { t.after = append(t.after, fn) }

func dsn(path string, readOnly bool) string {
	v := url.Values{}
	// busy_timeout first so the later pragmas wait for a lock instead of failing.
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "foreign_keys(1)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Add("_time_format", "sqlite")
	if readOnly {
		v.Add("_pragma", "query_only(1)")
	} else {
		v.Set("_txlock", "immediate")
	}
	return "file:" + path + "?" + v.Encode()
}

// Open opens (creating when missing) the database file at path and brings its schema
// to the current version with schemaSQL (the embedded schema.sql).
func Open(ctx context.Context, path, schemaSQL string) (*DB, error) {
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	db := &DB{write: w, path: path, Now: func() time.Time { return time.Now().UTC() }}
	if err := db.migrate(ctx, schemaSQL); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open read pool: %w", err)
	}
	n := 2 * runtime.NumCPU()
	if n < 4 {
		n = 4
	}
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	db.read = r
	db.stmts = newStmtCache(r)
	db.wstmts = newStmtCache(w)
	return db, nil
}

// Close drops the cached statements and closes both pools.
func (db *DB) Close() error {
	if db.watch.polling.CompareAndSwap(false, true) && db.watch.pollConn != nil {
		_ = db.watch.pollConn.Close()
	}
	db.stmts.close()
	if db.wstmts != nil {
		db.wstmts.close()
	}
	return errors.Join(db.read.Close(), db.write.Close())
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Read returns the queries over the read pool.
func (db *DB) Read() *Q {
	return &Q{c: cachedConn{db: db.read, cache: db.stmts}, Now: db.Now()}
}

// WithTx runs fn in a write transaction; it commits when fn returns nil and rolls back
// otherwise (also when fn panics, after which the panic continues).
func (db *DB) WithTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	if db.readOnly {
		return ErrReadOnly
	}
	asked := time.Now()
	sqlTx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", translate(err))
	}
	committed := false
	if obs := db.ObserveWriteTx; obs != nil {
		begun := time.Now()
		defer func() { obs(begun.Sub(asked), time.Since(begun), committed) }()
	}
	tc := newTxConn(sqlTx, db.wstmts)
	defer func() { tc.done(committed) }() // after the rollback below
	tx := &Tx{Q: &Q{c: tc, Now: db.Now(), w: &txWatch{}}, tx: sqlTx}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	gen, qaSum, err := tx.beforeCommit(ctx)
	if err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", translate(err))
	}
	committed = true
	db.afterCommit(tx.w, gen, qaSum)
	for _, fn := range tx.after {
		fn()
	}
	return nil
}

// Ms converts a time to the stored form (milliseconds since the epoch, UTC).
func Ms(t time.Time) int64 { return t.UnixMilli() }

// Time converts a stored time back.
func Time(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// NullTime converts a nullable stored time; the zero time means NULL.
func NullTime(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return Time(v.Int64)
}

func nullMs(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return Ms(t)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// createPrivate creates a missing database file empty (a valid SQLite database)
// with mode 0600 before SQLite opens it: SQLite would create it 0644, and it gives
// the -wal and -shm files the mode of the database file.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	return errors.Join(f.Close(), os.Chmod(path, 0o600))
}

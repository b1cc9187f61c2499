package store

import (
	"context"
	"database/sql"
	"sync"
)

// Prepared statements of the read pool, kept by SQL text: SQLite spends most of a
// short read parsing and planning its SQL, and database/sql prepares every query
// afresh. A cached *sql.Stmt is prepared once per pooled connection and reused, so
// hot reads (storefront lists, key and channel lookups) only bind and step.

// maxCachedStmts bounds the cache; statements past it run uncached (queries built
// with a variable number of placeholders must not grow it without end).
const maxCachedStmts = 512

type stmtCache struct {
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

// stmtCaches holds the cache of each read pool (one per open database).
var stmtCaches sync.Map // *sql.DB -> *stmtCache

// cachedConn runs the read pool's queries through its statement cache.
type cachedConn struct {
	db    *sql.DB
	cache *stmtCache
}

// readConn returns the read pool wrapped with its statement cache.
func readConn(db *sql.DB) conn {
	c, ok := stmtCaches.Load(db)
	if !ok {
		c, _ = stmtCaches.LoadOrStore(db, &stmtCache{m: map[string]*sql.Stmt{}})
	}
	return cachedConn{db: db, cache: c.(*stmtCache)}
}

// stmt returns the cached statement of query, preparing it on first use; nil when
// the cache is full or the statement cannot be prepared (the caller then runs the
// query directly and gets its error).
func (c cachedConn) stmt(query string) *sql.Stmt {
	c.cache.mu.RLock()
	s := c.cache.m[query]
	n := len(c.cache.m)
	c.cache.mu.RUnlock()
	if s != nil || n >= maxCachedStmts {
		return s
	}
	c.cache.mu.Lock()
	defer c.cache.mu.Unlock()
	if s = c.cache.m[query]; s != nil {
		return s
	}
	s, err := c.db.PrepareContext(context.Background(), query)
	if err != nil {
		return nil
	}
	c.cache.m[query] = s
	return s
}

func (c cachedConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.db.ExecContext(ctx, query, args...)
}

func (c cachedConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := c.stmt(query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

func (c cachedConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := c.stmt(query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

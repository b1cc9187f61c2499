package store

import (
	"container/list"
	"context"
	"database/sql"
	"sync"
)

// Prepared statements of the read pool, kept by SQL text: SQLite spends most of a
// short read parsing and planning its SQL, and database/sql prepares every query
// afresh. A cached *sql.Stmt is prepared once per pooled connection and reused, so
// hot reads (storefront lists, key and channel lookups) only bind and step.

// maxCachedStmts bounds the cache. Past it the least recently used statement is
// dropped, so queries built with a variable number of placeholders cannot grow it
// without end nor push the hot statements out for good.
const maxCachedStmts = 512

// stmtCache is the statement cache of one read pool (a field of DB).
type stmtCache struct {
	db     *sql.DB
	mu     sync.Mutex
	m      map[string]*list.Element // of *cachedStmt
	lru    list.List                // front: most recently used
	closed bool
}

// cachedStmt is one statement with the number of queries starting on it; an
// evicted statement is closed when the last of them has started (rows already
// open keep their connection's statement until they are closed).
type cachedStmt struct {
	query   string
	stmt    *sql.Stmt
	users   int
	evicted bool
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*list.Element{}}
}

// acquire returns the statement of query, preparing it on first use; nil when the
// cache is closed or the statement cannot be prepared (the caller then runs the
// query directly and gets its error). A non-nil result is given back with release.
func (c *stmtCache) acquire(query string) *cachedStmt {
	if cs := c.lookup(query); cs != nil {
		return cs
	}
	return c.prepare(query)
}

// lookup returns the statement of query when it is cached (given back with
// release), nil when not.
func (c *stmtCache) lookup(query string) *cachedStmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[query]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(e)
	cs := e.Value.(*cachedStmt)
	cs.users++
	return cs
}

// prepare prepares query on the pool and caches it; nil when the cache is closed
// or the statement cannot be prepared. A non-nil result is given back with release.
func (c *stmtCache) prepare(query string) *cachedStmt {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil
	}
	s, err := c.db.PrepareContext(context.Background(), query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = s.Close()
		return nil
	}
	if e, ok := c.m[query]; ok { // prepared meanwhile by another caller
		_ = s.Close()
		c.lru.MoveToFront(e)
		cs := e.Value.(*cachedStmt)
		cs.users++
		return cs
	}
	cs := &cachedStmt{query: query, stmt: s, users: 1}
	c.m[query] = c.lru.PushFront(cs)
	for c.lru.Len() > maxCachedStmts {
		old := c.lru.Back()
		c.lru.Remove(old)
		o := old.Value.(*cachedStmt)
		delete(c.m, o.query)
		o.evicted = true
		if o.users == 0 {
			_ = o.stmt.Close()
		}
	}
	return cs
}

// release gives back a statement taken with acquire once its query has started.
func (c *stmtCache) release(cs *cachedStmt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs.users--
	if cs.evicted && cs.users == 0 {
		_ = cs.stmt.Close()
	}
}

// len is the number of cached statements.
func (c *stmtCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// close drops every statement; later queries run uncached.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for e := c.lru.Front(); e != nil; e = e.Next() {
		cs := e.Value.(*cachedStmt)
		cs.evicted = true
		if cs.users == 0 {
			_ = cs.stmt.Close()
		}
	}
	c.m = map[string]*list.Element{}
	c.lru.Init()
}

// cachedConn runs the read pool's queries through its statement cache.
type cachedConn struct {
	db    *sql.DB
	cache *stmtCache
}

func (c cachedConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.db.ExecContext(ctx, query, args...)
}

func (c cachedConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if cs := c.cache.acquire(query); cs != nil {
		defer c.cache.release(cs)
		return cs.stmt.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

func (c cachedConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if cs := c.cache.acquire(query); cs != nil {
		defer c.cache.release(cs)
		return cs.stmt.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

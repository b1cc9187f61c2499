package store

import (
	"context"
	"database/sql"
	"strings"
)

// Prepared statements of write transactions. The write pool's one connection is
// held by a transaction while it runs, so a statement a transaction meets for
// the first time runs unprepared and is prepared on the pool after the commit;
// later transactions bind the cached statement to themselves (sql.Tx.StmtContext
// reuses what the connection has prepared) and only bind and step.

// maxTxMisses bounds the statements one transaction leaves to prepare.
const maxTxMisses = 64

// txConn runs a write transaction's statements through the write pool's cache.
type txConn struct {
	tx    *sql.Tx
	cache *stmtCache
	// bound are the cached statements this transaction has bound to itself.
	bound map[string]*sql.Stmt
	held  []*cachedStmt
	// missed are the cacheable statements it ran unprepared.
	missed map[string]struct{}
}

func newTxConn(tx *sql.Tx, cache *stmtCache) *txConn {
	return &txConn{tx: tx, cache: cache}
}

// cacheable is false for text holding more than one statement (a prepared
// statement runs only the first) and for pragmas.
func cacheable(query string) bool {
	q := strings.TrimRight(strings.TrimSpace(query), "; \n\t")
	return !strings.Contains(q, ";") && !strings.HasPrefix(strings.ToUpper(q), "PRAGMA")
}

// stmt is the transaction's prepared statement of query, or nil: then the
// query runs unprepared and is noted for preparing after the commit.
func (c *txConn) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := c.bound[query]; ok {
		return st
	}
	if c.cache == nil {
		return nil
	}
	cs := c.cache.lookup(query)
	if cs == nil {
		if len(c.missed) < maxTxMisses && cacheable(query) {
			if c.missed == nil {
				c.missed = map[string]struct{}{}
			}
			c.missed[query] = struct{}{}
		}
		return nil
	}
	st := c.tx.StmtContext(ctx, cs.stmt)
	if c.bound == nil {
		c.bound = map[string]*sql.Stmt{}
	}
	c.bound[query] = st
	c.held = append(c.held, cs)
	return st
}

// done gives back the cached statements once the transaction has ended and, after
// a commit, prepares what it ran unprepared (the connection is free again).
func (c *txConn) done(committed bool) {
	for _, cs := range c.held {
		c.cache.release(cs)
	}
	c.held, c.bound = nil, nil
	if !committed || c.cache == nil {
		return
	}
	for q := range c.missed {
		if cs := c.cache.lookup(q); cs != nil {
			c.cache.release(cs)
			continue
		}
		if cs := c.cache.prepare(q); cs != nil {
			c.cache.release(cs)
		}
	}
	c.missed = nil
}

func (c *txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.tx.ExecContext(ctx, query, args...)
}

func (c *txConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.tx.QueryContext(ctx, query, args...)
}

func (c *txConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.tx.QueryRowContext(ctx, query, args...)
}

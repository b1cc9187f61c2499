package store

import "context"

// StmtCached reports whether the read pool's statement cache holds query, and how
// many statements it holds.
func StmtCached(db *DB, query string) (bool, int) {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	_, ok := db.stmts.m[query]
	return ok, db.stmts.lru.Len()
}

// ReadQueryRow runs one query on the read pool through its statement cache.
func ReadQueryRow(db *DB, query string, dest ...any) error {
	return db.Read().c.QueryRowContext(context.Background(), query).Scan(dest...)
}

// MaxCachedStmts is the cache's bound.
const MaxCachedStmts = maxCachedStmts

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

// QFeedReviews is the query of a review feed's page.
const QFeedReviews = qFeedReviews

// QueryPlan returns the detail lines of EXPLAIN QUERY PLAN for query and args.
func QueryPlan(db *DB, query string, args ...any) ([]string, error) {
	rows, err := db.Read().c.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		out = append(out, detail)
	}
	return out, rows.Err()
}

// WriteStmtCached reports whether the write pool has query prepared, and how many
// statements it holds.
func WriteStmtCached(db *DB, query string) (bool, int) {
	db.wstmts.mu.Lock()
	defer db.wstmts.mu.Unlock()
	_, ok := db.wstmts.m[query]
	return ok, db.wstmts.lru.Len()
}

// TxExec runs query in tx (as the store's write methods do).
func TxExec(tx *Tx, query string, args ...any) error {
	_, err := tx.c.ExecContext(context.Background(), query, args...)
	return err
}

// TxQueryRow reads one row in tx.
func TxQueryRow(tx *Tx, query string, dest ...any) error {
	return tx.c.QueryRowContext(context.Background(), query).Scan(dest...)
}

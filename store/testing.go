package store

import "context"

// QueryRowForTest runs one query and scans its single row; for tests that inspect
// stored bytes (hashes, encrypted values, pragmas).
func (q *Q) QueryRowForTest(ctx context.Context, query string, dest ...any) error {
	return translate(q.c.QueryRowContext(ctx, query).Scan(dest...))
}

// ExecForTest runs one statement; for tests that try forbidden changes.
func (q *Tx) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := q.c.ExecContext(ctx, query, args...)
	return translate(err)
}

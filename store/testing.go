package store

import "context"

// QueryRowForTest runs one query and scans its single row; for tests that inspect
// stored bytes (hashes, encrypted values, pragmas).
func (q *Q) QueryRowForTest(ctx context.Context, query string, dest ...any) error {
	return translate(q.c.QueryRowContext(ctx, query).Scan(dest...))
}

package store

import "context"

// QueryRowForTest runs one query and scans its single row; for tests that inspect
// stored bytes (hashes, encrypted values, pragmas).
func (q *Q) QueryRowForTest(ctx context.Context, query string, dest ...any) error {
	return translate(q.c.QueryRowContext(ctx, query).Scan(dest...))
}

// ExecForTest runs one statement; for tests that try forbidden changes.
func (q *Q) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := q.c.ExecContext(ctx, query, args...)
	return translate(err)
}

// QueryForPlan returns the detail column of EXPLAIN QUERY PLAN rows (scratch).
func (q *Q) QueryForPlan(ctx context.Context, query string) ([]string, error) {
	rows, err := q.c.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b, c int
		var d string
		if err := rows.Scan(&a, &b, &c, &d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

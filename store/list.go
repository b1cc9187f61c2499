package store

import (
	"context"
	"strings"
)

// collectIn runs head + "(?, …)" + tail with the ids as arguments, in chunks of at
// most maxParams ids, and collects the rows of every chunk in turn.
func collectIn[ID, T any](ctx context.Context, q *Q, head string, ids []ID, tail string, scan func(scanner) (T, error)) ([]T, error) {
	var out []T
	for start := 0; start < len(ids); start += maxParams {
		part := ids[start:min(start+maxParams, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := q.c.QueryContext(ctx, head+"("+placeholders(len(part))+")"+tail, args...)
		got, err := collect(rows, err, scan)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// The helpers below serve the filtered, paged admin lists: a total count, an order
// newest first (or oldest first) and one page.

// countRows runs `SELECT count(*)` + rest (FROM … WHERE …) and returns the count.
func (q *Q) countRows(ctx context.Context, rest string, args []any) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*)`+rest, args...).Scan(&n)
	return n, translate(err)
}

// countByKey runs a query of (key, count) rows, as `SELECT x, count(*) … GROUP BY x`,
// and returns the counts by key.
func (q *Q) countByKey(ctx context.Context, query string, args []any) (map[string]int, error) {
	rows, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, translate(rows.Err())
}

// listOrder is the ORDER BY clause of a list over cols: each column descending
// (newest first), or ascending with oldest.
func listOrder(oldest bool, cols ...string) string {
	if oldest {
		return ` ORDER BY ` + strings.Join(cols, ", ")
	}
	return ` ORDER BY ` + strings.Join(cols, " DESC, ") + ` DESC`
}

// pageArgs appends the LIMIT and OFFSET arguments of a page to args; a limit of 0
// or less is def.
func pageArgs(args []any, limit, offset, def int) []any {
	if limit <= 0 {
		limit = def
	}
	return append(args, limit, offset)
}

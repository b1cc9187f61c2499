package store

import (
	"context"
	"time"
)

// ReviewsPerWeek counts the reviews submitted in each of the weeks weeks ending at
// end (the last bucket is [end-7d, end)), oldest first: the panel overview chart.
func (q *Q) ReviewsPerWeek(ctx context.Context, end time.Time, weeks int) ([]int, error) {
	const week = 7 * 24 * time.Hour
	start := end.Add(-time.Duration(weeks) * week)
	rows, err := q.c.QueryContext(ctx, `SELECT (submitted_at - ?) / ?, count(*) FROM reviews
		WHERE submitted_at >= ? AND submitted_at < ? GROUP BY 1`, Ms(start), week.Milliseconds(), Ms(start), Ms(end))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]int, weeks)
	for rows.Next() {
		var i int64
		var n int
		if err := rows.Scan(&i, &n); err != nil {
			return nil, err
		}
		if i >= 0 && int(i) < weeks {
			out[i] = n
		}
	}
	return out, rows.Err()
}

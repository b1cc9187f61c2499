package store

import (
	"context"
	"fmt"
)

// ReviewsOfOrders lists the reviews written for the lines of the given orders, by
// order and then oldest first.
func (q *Q) ReviewsOfOrders(ctx context.Context, orderIDs []int64) ([]Review, error) {
	var out []Review
	for start := 0; start < len(orderIDs); start += maxParams {
		part := orderIDs[start:min(start+maxParams, len(orderIDs))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewCols+` FROM reviews WHERE order_id IN (`+placeholders(len(part))+`)
			ORDER BY order_id, id`, args...)
		got, err := collect(rows, err, scanReview)
		if err != nil {
			return nil, fmt.Errorf("store: reviews of orders: %w", err)
		}
		out = append(out, got...)
	}
	return out, nil
}

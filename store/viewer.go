package store

import (
	"context"
	"fmt"
)

// ReviewsOfOrders lists the reviews written for the lines of the given orders, by
// order and then oldest first.
func (q *Q) ReviewsOfOrders(ctx context.Context, orderIDs []int64) ([]Review, error) {
	out, err := collectIn(ctx, q, `SELECT `+qReviewCols+` FROM reviews WHERE order_id IN `, orderIDs, ` ORDER BY order_id, id`, scanReview)
	if err != nil {
		return nil, fmt.Errorf("store: reviews of orders: %w", err)
	}
	return out, nil
}

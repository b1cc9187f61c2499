package store

import (
	"context"
	"fmt"
	"time"
)

// ErasureCandidates lists orders that still hold customer data (not erased, with
// an address or customer key) and were placed at or before placedBefore; ids above
// afterID, ascending, at most limit.
func (q *Q) ErasureCandidates(ctx context.Context, placedBefore time.Time, afterID int64, limit int) ([]Order, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOrderCols+` FROM orders
		WHERE id > ? AND erased_at IS NULL AND (customer_email != '' OR customer_key != '') AND placed_at <= ?
		ORDER BY id LIMIT ?`, afterID, Ms(placedBefore), limit)
	return collect(rows, err, scanOrder)
}

// EraseOrderCustomer replaces the customer fields of an order with the given
// pseudonyms and sets erased_at to q.Now. It reports false when the order was
// erased already (nothing is changed then).
func (q *Q) EraseOrderCustomer(ctx context.Context, orderID int64, email, key string) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE orders SET customer_email = ?, customer_key = ?, erased_at = ?, updated_at = ?
		WHERE id = ? AND erased_at IS NULL`, email, key, Ms(q.Now), Ms(q.Now), orderID)
	if err != nil {
		return false, fmt.Errorf("store: erase order customer: %w", translate(err))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

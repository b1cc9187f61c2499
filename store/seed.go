package store

import (
	"context"
	"fmt"
)

// SeedOrders fills the database with n synthetic orders of one channel, numbered
// prefix1 .. prefixN, each with lines lines (the first delivered), in one
// transaction and inside SQLite itself (a recursive CTE), so a million orders take
// seconds. It exists for load measurements and demos, never for real data.
func (db *DB) SeedOrders(ctx context.Context, channelID int64, n, lines int, prefix string) error {
	now := Ms(db.Now())
	return db.WithTx(ctx, func(tx *Tx) error {
		var before int64
		if err := tx.c.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM orders`).Scan(&before); err != nil {
			return translate(err)
		}
		_, err := tx.c.ExecContext(ctx, `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
			INSERT INTO orders (channel_id, external_id, market, language, payment_state, placed_at, customer_email,
				customer_key, payment_changed_at, created_at, updated_at)
			SELECT c.id, ? || s.i, c.market, c.language, 'paid', ? - s.i * 1000, 'customer' || s.i || '@example.com',
				'cust-' || s.i, ?, ?, ?
			FROM s, channels c WHERE c.id = ?`, n, prefix, now, now, now, now, channelID)
		if err != nil {
			return fmt.Errorf("store: seed orders: %w", translate(err))
		}
		_, err = tx.c.ExecContext(ctx, `WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < ?)
			INSERT INTO order_lines (order_id, line_reference, variant_key, group_key, title, quantity, fulfilment_state,
				delivered_at, state_changed_at, created_at, updated_at)
			SELECT o.id, CAST(r.k AS TEXT), 'SKU-' || ((o.id * 7 + r.k) % 20000), 'G-' || ((o.id + r.k) % 4000), 'Product', 1,
				CASE r.k WHEN 1 THEN 'delivered' ELSE 'shipped' END, CASE r.k WHEN 1 THEN ? END, ?, ?, ?
			FROM orders o, r WHERE o.id > ?`, lines, now, now, now, now, before)
		if err != nil {
			return fmt.Errorf("store: seed lines: %w", translate(err))
		}
		_, err = tx.c.ExecContext(ctx, `INSERT INTO deliveries (line_id, state, observed_at, source, confidence, created_at)
			SELECT l.id, 'delivered', l.delivered_at, 'platform', 'verified', ? FROM order_lines l
			JOIN orders o ON o.id = l.order_id WHERE o.id > ? AND l.fulfilment_state = 'delivered'`, now, before)
		if err != nil {
			return fmt.Errorf("store: seed deliveries: %w", translate(err))
		}
		return nil
	})
}

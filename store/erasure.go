package store

import (
	"context"
	"fmt"
	"time"
)

// ErasureScan selects the orders of one channel whose customer data may be due for
// erasure (the caller decides exactly).
type ErasureScan struct {
	ChannelID int64
	Now       time.Time
	// WindowStart: a line delivered after it is still inside the review window.
	WindowStart time.Time
	// UninvitedBefore: orders placed at or before it without an invitation are
	// erased when they can never get one (30 days after the order).
	UninvitedBefore time.Time
	// GiveUpBefore: orders placed at or before it are erased without waiting for
	// lines still on their way (a year after the order).
	GiveUpBefore time.Time
	AfterID      int64
	Limit        int
	// PhoneInvites: orders with a phone but no address can still be invited (the
	// WhatsApp route is in use).
	PhoneInvites bool
}

// ErasureCandidates lists orders of a channel that still hold customer data and
// meet one of the erasure conditions (see core.erasureDue): every review window and
// link has ended and every line is settled (or the order is a year old); or the
// order is 30 days old, has no invitation and cannot get one (no address, refunded
// or voided, only cancelled or returned lines, address opted out); or the order is
// a year old with nothing delivered and no invitation. Ids above AfterID, ascending.
func (q *Q) ErasureCandidates(ctx context.Context, s ErasureScan) ([]Order, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOrderCols+` FROM orders o
		WHERE o.id > ? AND o.channel_id = ? AND o.erased_at IS NULL AND (o.customer_email != '' OR o.customer_key != '' OR o.customer_phone != '')
		  AND (
		    ((EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND l.fulfilment_state = 'delivered' AND l.delivered_at IS NOT NULL)
		      OR EXISTS (SELECT 1 FROM invitations i WHERE i.order_id = o.id AND i.kind != 'rejection' AND i.expires_at IS NOT NULL))
		     AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND l.fulfilment_state = 'delivered' AND l.delivered_at > ?)
		     AND NOT EXISTS (SELECT 1 FROM invitations i WHERE i.order_id = o.id AND i.kind != 'rejection' AND i.expires_at > ?)
		     AND (o.placed_at <= ? OR NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id
		                                          AND l.fulfilment_state NOT IN ('delivered', 'cancelled', 'returned'))))
		    OR (o.placed_at <= ? AND NOT EXISTS (SELECT 1 FROM invitations i WHERE i.order_id = o.id AND i.kind != 'rejection')
		        AND ((o.customer_email = '' AND (? = 0 OR o.customer_phone = '')) OR o.payment_state IN ('refunded', 'voided')
		             OR NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND l.fulfilment_state NOT IN ('cancelled', 'returned'))
		             OR EXISTS (SELECT 1 FROM opt_outs x WHERE x.address = lower(o.customer_email))))
		    OR (o.placed_at <= ? AND NOT EXISTS (SELECT 1 FROM invitations i WHERE i.order_id = o.id AND i.kind != 'rejection')
		        AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND l.fulfilment_state = 'delivered'))
		  )
		ORDER BY o.id LIMIT ?`, s.AfterID, s.ChannelID, Ms(s.WindowStart), Ms(s.Now), Ms(s.GiveUpBefore),
		Ms(s.UninvitedBefore), s.PhoneInvites, Ms(s.GiveUpBefore), s.Limit)
	return collect(rows, err, scanOrder)
}

// EraseOrderCustomer replaces the customer fields of an order with the given
// pseudonyms and sets erased_at to q.Now. It reports false when the order was
// erased already (nothing is changed then).
func (q *Tx) EraseOrderCustomer(ctx context.Context, orderID int64, email, key, phone string) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE orders SET customer_email = ?, customer_key = ?, customer_phone = ?, erased_at = ?,
		updated_at = ? WHERE id = ? AND erased_at IS NULL`, email, key, phone, Ms(q.Now), Ms(q.Now), orderID)
	if err != nil {
		return false, fmt.Errorf("store: erase order customer: %w", translate(err))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

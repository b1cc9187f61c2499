package orders

import (
	"context"
	"strconv"

	"reviewd/app/core"
	"reviewd/store"
)

// This file holds what follows a change of an order's payment_state or of a line's
// fulfilment_state. Both hooks run inside the transaction that made the change,
// after every order, line and delivery row of the request is written (ids are set),
// once per change and in the order the changes were made. An error rolls the whole
// transfer back. Features that react to order changes (invitations, review marks)
// plug in here and nowhere else.

// afterPaymentChange runs when a stored order's payment_state moves from old to new
// (not for new orders: their lines' first states reach afterLineStateChange).
func (c *Service) afterPaymentChange(ctx context.Context, tx *store.Tx, a *core.Actor, o store.Order, old, new string) error {
	switch new {
	case core.PaymentRefunded, core.PaymentVoided:
		// The order's earlier product reviews get the Returned mark on their proof
		// and their automatic checks rerun; shopping-experience reviews get no mark.
		if err := c.Reviews.MarkReturned(ctx, tx, a, o.ID, 0); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "order."+new, "order", core.OrderPublicID(o.ID),
			map[string]any{"external_id": o.ExternalID, "from": old})
	case core.PaymentPaid, core.PaymentPartiallyRefunded:
		// Invitations of delivered lines become due after the waiting time: the
		// invitations job finds them (RunInvitations).
	}
	return nil
}

// afterLineStateChange runs when a line's fulfilment_state moves from old to new;
// old is empty for a line received for the first time.
func (c *Service) afterLineStateChange(ctx context.Context, tx *store.Tx, a *core.Actor, o store.Order, l store.OrderLine, old, new string) error {
	switch new {
	case core.LineDelivered:
		// The invitation becomes due after the waiting time when the line is
		// reviewable: the invitations job finds it (RunInvitations).
	case core.LineReturned, core.LineCancelled:
		// A returned line's product review gets the Returned mark and its checks
		// rerun.
		if new == core.LineReturned {
			if err := c.Reviews.MarkReturned(ctx, tx, a, o.ID, l.ID); err != nil {
				return err
			}
		}
		// A line not yet reviewed gets a shopping-experience invitation
		// (invitations.go).
		if err := c.Sending.QueueExperienceInvitation(ctx, tx, o, l); err != nil {
			return err
		}
		if old == "" {
			return nil
		}
		return c.Record(ctx, tx, a, "line."+new, "order_line", strconv.FormatInt(l.ID, 10),
			map[string]any{"order": core.OrderPublicID(o.ID), "line_reference": l.LineReference, "from": old})
	}
	return nil
}

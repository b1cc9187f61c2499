package orders

import (
	"context"
	"fmt"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/sending"
	"reviewd/store"
)

// Reasons an order's customer data is pseudonymised (activity detail).
const (
	EraseWindowEnded    = "review_window_ended" // every line is settled and the review window is over
	EraseNeverInvited   = "never_invited"       // 30 days after the order, and no invitation can come
	EraseNeverDelivered = "never_delivered"     // a year after the order, nothing was delivered
	EraseRequest        = "deletion_request"    // the customer asked (personal data request)
)

// Erasure waiting times (spec 1 "Pseudonymised customer data"; docs/decisions.md).
const (
	eraseUninvitedAfter   = 30  // days after placed_at
	eraseUndeliveredAfter = 365 // days after placed_at
)

// erasedPrefix starts the pseudonyms that replace customer fields; it can never
// be a real address (no @) or be mistaken for one.
const erasedPrefix = "erased:"

// EraseOrderCustomer pseudonymises the customer fields of an order (customer_email,
// customer_key and customer_phone), empties the recipient of its
// messages and message-log rows, and records it with reason. Messages still
// queued are skipped when their turn comes. A re-sent order keeps the pseudonyms
// (SaveOrders never writes erased fields back). It reports false when the order
// was erased already.
func (c *Service) EraseOrderCustomer(ctx context.Context, tx *store.Tx, orderID int64, reason string) (bool, error) {
	o, err := tx.OrderByID(ctx, orderID)
	if err != nil {
		return false, err
	}
	if o.Erased() {
		return false, nil
	}
	email, key, phone := "", "", ""
	if o.CustomerPhone != "" {
		phone = erasedPrefix + c.Keys.Pseudonym("customer_phone", o.CustomerPhone)
	}
	if o.CustomerEmail != "" {
		email = erasedPrefix + c.Keys.Pseudonym("customer_email", strings.ToLower(o.CustomerEmail))
	}
	if o.CustomerKey != "" {
		key = erasedPrefix + c.Keys.Pseudonym("customer_key", o.CustomerKey)
	}
	done, err := tx.EraseOrderCustomer(ctx, o.ID, email, key, phone)
	if err != nil || !done {
		return false, err
	}
	if err := tx.EraseInvitationRecipients(ctx, o.ID); err != nil {
		return false, err
	}
	return true, c.Record(ctx, tx, core.System("erasure"), "order.erased", "order", core.OrderPublicID(o.ID), map[string]any{"reason": reason})
}

// ErasureRun is what one run of the erasure job did.
type ErasureRun struct {
	Checked int
	Erased  map[string]int
}

func (r ErasureRun) String() string {
	return fmt.Sprintf("checked=%d erased=%d (window_ended=%d never_invited=%d never_delivered=%d)", r.Checked,
		r.Erased[EraseWindowEnded]+r.Erased[EraseNeverInvited]+r.Erased[EraseNeverDelivered],
		r.Erased[EraseWindowEnded], r.Erased[EraseNeverInvited], r.Erased[EraseNeverDelivered])
}

// RunErasure is the erasure job at now: it pseudonymises the customer data of every
// order that is due (see erasureDue), channel by channel (the review window is the
// market rule in force for the channel).
func (c *Service) RunErasure(ctx context.Context, now time.Time) (ErasureRun, error) {
	run := ErasureRun{Erased: map[string]int{}}
	chans, err := c.DB.Read().ListChannels(ctx)
	if err != nil {
		return run, err
	}
	st, err := c.Brand.LoadSettings(ctx, c.DB.Read())
	if err != nil {
		return run, err
	}
	phones := c.Sending.WhatsApp.Enabled() && st.InviteDelivery == brand.RouteWhatsApp
	for _, ch := range chans {
		rule, _, err := c.Brand.RuleFor(ctx, c.DB.Read(), ch.Market, ch.ID, now)
		if err != nil {
			return run, err
		}
		scan := store.ErasureScan{ChannelID: ch.ID, Now: now, WindowStart: now.AddDate(0, 0, -rule.ReviewWindowDays),
			UninvitedBefore: now.AddDate(0, 0, -eraseUninvitedAfter), GiveUpBefore: now.AddDate(0, 0, -eraseUndeliveredAfter),
			Limit: sending.JobBatch, PhoneInvites: phones}
		for {
			orders, err := c.DB.Read().ErasureCandidates(ctx, scan)
			if err != nil {
				return run, err
			}
			for _, o := range orders {
				scan.AfterID = o.ID
				run.Checked++
				err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
					tx.Now = now
					o, err := tx.OrderByID(ctx, o.ID)
					if err != nil || o.Erased() {
						return err
					}
					reason, err := c.erasureDue(ctx, tx.Q, o, now)
					if err != nil || reason == "" {
						return err
					}
					done, err := c.EraseOrderCustomer(ctx, tx, o.ID, reason)
					if done {
						run.Erased[reason]++
					}
					return err
				})
				if err != nil {
					return run, err
				}
			}
			if len(orders) < sending.JobBatch {
				break
			}
		}
		if err := ctx.Err(); err != nil {
			return run, err
		}
	}
	return run, nil
}

// erasureDue decides whether an order's customer data is due for erasure at now and
// why ("" when not):
//
//   - review_window_ended: the latest review window (of a delivered line, or of a
//     link made for the order) has ended, and every line is delivered, cancelled
//     or returned (or the order is a year old: lines stuck on the way are given
//     up);
//   - never_invited: 30 days after the order, the order has no invitation and can
//     never get one (no address, refunded or voided, every line cancelled or
//     returned, or the address opted out);
//   - never_delivered: a year after the order, no line was ever delivered and no
//     invitation exists.
func (c *Service) erasureDue(ctx context.Context, q *store.Q, o store.Order, now time.Time) (string, error) {
	lines, err := q.LinesOfOrder(ctx, o.ID)
	if err != nil {
		return "", err
	}
	rule, _, err := c.Brand.RuleFor(ctx, q, o.Market, o.ChannelID, now)
	if err != nil {
		return "", err
	}
	invs, err := q.InvitationsOfOrder(ctx, o.ID)
	if err != nil {
		return "", err
	}
	settled, delivered := len(lines) > 0, false
	var windowEnd time.Time
	for _, l := range lines {
		switch l.FulfilmentState {
		case core.LineDelivered:
			if !l.DeliveredAt.IsZero() {
				delivered = true
				if end := l.DeliveredAt.AddDate(0, 0, rule.ReviewWindowDays); end.After(windowEnd) {
					windowEnd = end
				}
			}
		case core.LineCancelled, core.LineReturned:
		default:
			settled = false
		}
	}
	invited := false
	for _, inv := range invs {
		if inv.Kind == sending.MsgRejection {
			continue
		}
		invited = true
		if inv.ExpiresAt.After(windowEnd) {
			windowEnd = inv.ExpiresAt
		}
	}
	yearOld := !now.Before(o.PlacedAt.AddDate(0, 0, eraseUndeliveredAfter))
	if !windowEnd.IsZero() && !now.Before(windowEnd) && (settled || yearOld) {
		return EraseWindowEnded, nil
	}
	if invited {
		return "", nil
	}
	if !now.Before(o.PlacedAt.AddDate(0, 0, eraseUninvitedAfter)) {
		never := o.CustomerEmail == "" || o.PaymentState == core.PaymentRefunded || o.PaymentState == core.PaymentVoided || (settled && !delivered)
		if !never {
			out, err := q.OptedOut(ctx, o.CustomerEmail)
			if err != nil {
				return "", err
			}
			never = out
		}
		if never {
			return EraseNeverInvited, nil
		}
	}
	if !delivered && yearOld {
		return EraseNeverDelivered, nil
	}
	return "", nil
}

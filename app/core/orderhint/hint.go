// Package orderhint follows a refused order check: the order's own address is told
// how to correct a review it may still change, while the caller's answer stays the
// one refusal.
package orderhint

import (
	"context"
	"crypto/hmac"
	"errors"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/store"
)

// hintEvery is the least time between two correction hints for one review.
const hintEvery = time.Hour

// HintReviewedOrder follows a refused order check (buyer.ErrNotEligible) on
// channel site; the caller's answer stays that refusal, the same for everyone.
// When the order exists on the site's market, the address given is the order's,
// and the order has a review its author may still correct (rejected, own,
// core.Revisable), it queues the rejection notice again with a fresh correction
// link (mode revise) to the order's address, at most once per hintEvery per
// review; the invitations job sends it. Nothing is told to the caller: only the
// order's own address hears of it. It returns how many notices it queued.
func HintReviewedOrder(ctx context.Context, c *reviews.Service, site store.Channel, in buyer.EligibilityInput) (int, error) {
	if err := in.Normalize(); err != nil {
		return 0, nil
	}
	queued := 0
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		o, found, err := tx.OrderForCheck(ctx, in.Order)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !found) {
			return nil
		}
		if err != nil {
			return err
		}
		if o.Erased() || o.Market != site.Market || !core.ValidEmail(o.CustomerEmail) ||
			!hmac.Equal([]byte(strings.ToLower(o.CustomerEmail)), []byte(in.Email)) {
			return nil
		}
		rs, err := tx.ReviewsOfOrder(ctx, o.ID)
		if err != nil {
			return err
		}
		sent, err := tx.InvitationsOfOrder(ctx, o.ID)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if !core.Revisable(r) || recentlyHinted(sent, r.ID, tx.Now) {
				continue
			}
			reason, err := lastRejectReason(ctx, tx, r.ID)
			if err != nil {
				return err
			}
			if reason == "" {
				continue
			}
			id, err := c.NotifyRejection(ctx, tx, r.ID, reason, brand.ReasonLabel(brand.ReasonsReviewRejection, reason, r.Language))
			if err != nil {
				return err
			}
			if id != 0 {
				queued++
			}
		}
		return nil
	})
	return queued, err
}

// recentlyHinted reports whether review reviewID got a rejection notice within
// hintEvery of now.
func recentlyHinted(msgs []store.Invitation, reviewID int64, now time.Time) bool {
	for _, m := range msgs {
		if m.Kind == sending.MsgRejection && m.ReviewID == reviewID && now.Sub(m.CreatedAt) < hintEvery {
			return true
		}
	}
	return false
}

// lastRejectReason is the reason code of a review's latest rejection.
func lastRejectReason(ctx context.Context, tx *store.Tx, reviewID int64) (string, error) {
	evs, err := tx.ReviewEvents(ctx, reviewID)
	if err != nil {
		return "", err
	}
	reason := ""
	for _, e := range evs {
		if e.Event == reviews.EventReject {
			reason = e.Reason
		}
	}
	return reason, nil
}

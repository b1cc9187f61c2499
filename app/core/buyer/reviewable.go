package buyer

import (
	"context"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Reasons a line is not reviewable (Reviewability.Reason).
const (
	NotDelivered        = "not_delivered"         // not delivered, or returned or cancelled
	NotPaid             = "not_paid"              // payment_state is not paid or partially_refunded
	ReviewWindowClosed  = "review_window_closed"  // the market's review window has ended
	OrderErased         = "order_erased"          // the order's customer data is pseudonymised
	MarketWithoutPolicy = "market_without_policy" // no rule exists for the order's market
)

// Reviewability is the answer of LineReviewable.
type Reviewability struct {
	// Reviewable is true when a review may be written and an invitation sent.
	Reviewable bool
	// Reason says why not ("" when Reviewable).
	Reason string
	// DeliveredAt is the verified delivery time all review timing starts from (the
	// invitation waiting time, the review window); zero when the line is not
	// delivered.
	DeliveredAt time.Time
	// WindowEnds is when the market's review window closes (DeliveredAt plus
	// ReviewWindowDays); zero when the line is not delivered.
	WindowEnds time.Time
}

// LineReviewable is THE rule deciding whether a customer may review an order line
// (spec 1, "What the service does" 3): every feature that offers, invites to or
// accepts a review (invitations, the order check, the viewer, review submission)
// asks it, and nothing else re-implements it. A line is reviewable when all hold:
//
//   - the line is delivered: its fulfilment_state is delivered, which only verified
//     information sets (order data marked delivered, or a delivery report from a
//     source other than estimated with confidence verified; see LineMoves and
//     DeliveryEffective). Returned and cancelled lines are not reviewable;
//   - the order's payment_state is paid or partially_refunded;
//   - the order is not erased (its customer data is pseudonymised);
//   - now is before DeliveredAt + rule.ReviewWindowDays (the window of the market
//     rule in force for the order's channel, from c.RuleFor).
//
// It is pure: the caller loads the order, the line and the rule (see
// OrderReviewability for the usual loading). Checks are made in the order above
// and Reason names the first that fails, except that DeliveredAt and WindowEnds are
// filled whenever the line is delivered.
func LineReviewable(o store.Order, l store.OrderLine, rule brand.MarketRule, now time.Time) Reviewability {
	var r Reviewability
	if l.FulfilmentState != core.LineDelivered || l.DeliveredAt.IsZero() {
		r.Reason = NotDelivered
		return r
	}
	r.DeliveredAt = l.DeliveredAt
	if rule.ReviewWindowDays > 0 {
		r.WindowEnds = l.DeliveredAt.AddDate(0, 0, rule.ReviewWindowDays)
	}
	switch {
	case !core.PaymentAllowsReviews(o.PaymentState):
		r.Reason = NotPaid
	case o.Erased():
		r.Reason = OrderErased
	case rule.ReviewWindowDays <= 0:
		r.Reason = MarketWithoutPolicy
	case !now.Before(r.WindowEnds):
		r.Reason = ReviewWindowClosed
	default:
		r.Reviewable = true
	}
	return r
}

// OrderReviewability answers LineReviewable for every given line of one order (in
// the same order), loading the market rule in force at now once. Lines of another
// order are a programming error and answer not delivered.
func (c *Service) OrderReviewability(ctx context.Context, q *store.Q, o store.Order, lines []store.OrderLine, now time.Time) ([]Reviewability, error) {
	rule, ok, err := c.Brand.RuleFor(ctx, q, o.Market, o.ChannelID, now)
	if err != nil {
		return nil, err
	}
	if !ok {
		rule = brand.MarketRule{Market: o.Market}
	}
	out := make([]Reviewability, len(lines))
	for i, l := range lines {
		if l.OrderID != o.ID {
			out[i] = Reviewability{Reason: NotDelivered}
			continue
		}
		out[i] = LineReviewable(o, l, rule, now)
	}
	return out, nil
}

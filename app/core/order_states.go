package core

import "time"

// Payment states of an order (spec 1, "States and transitions").
const (
	PaymentPending           = "pending"
	PaymentPaid              = "paid"
	PaymentPartiallyRefunded = "partially_refunded"
	PaymentRefunded          = "refunded"
	PaymentVoided            = "voided"
)

// Fulfilment states of a line; delivery records use the same values.
const (
	LinePlaced    = "placed"
	LinePreparing = "preparing"
	LineShipped   = "shipped"
	LineInTransit = "in_transit"
	LineDelivered = "delivered"
	LineCancelled = "cancelled"
	LineReturned  = "returned"
)

// Sources and confidences of delivery records.
const (
	SourcePlatform      = "platform"
	SourceCarrier       = "carrier"
	SourceManual        = "manual"
	SourceEstimated     = "estimated"
	ConfidenceVerified  = "verified"
	ConfidenceEstimated = "estimated"
)

var (
	PaymentStates = map[string]bool{PaymentPending: true, PaymentPaid: true, PaymentPartiallyRefunded: true,
		PaymentRefunded: true, PaymentVoided: true}
	// lineRank orders the states a line passes on its way to the customer; returned
	// and cancelled are outside the sequence.
	lineRank    = map[string]int{LinePlaced: 0, LinePreparing: 1, LineShipped: 2, LineInTransit: 3, LineDelivered: 4}
	LineStates  = map[string]bool{LinePlaced: true, LinePreparing: true, LineShipped: true, LineInTransit: true, LineDelivered: true, LineCancelled: true, LineReturned: true}
	Sources     = map[string]bool{SourcePlatform: true, SourceCarrier: true, SourceManual: true, SourceEstimated: true}
	Confidences = map[string]bool{ConfidenceVerified: true, ConfidenceEstimated: true}
)

// PaymentAllowsReviews reports whether a payment state permits reviews and
// invitations (paid or partially_refunded).
func PaymentAllowsReviews(state string) bool {
	return state == PaymentPaid || state == PaymentPartiallyRefunded
}

// DeliveryEffective reports whether a delivery record may change a line: only
// verified records from a source other than estimated do. The others are recorded
// and have no effect.
func DeliveryEffective(source, confidence string) bool {
	return source != SourceEstimated && confidence == ConfidenceVerified
}

// LineMoves is the one rule for moving a line's fulfilment state, used by order
// data and delivery reports alike. cur is the line's state and curAt when it took
// effect; reported is the news and at the time it carries (a delivery report's
// observed_at, an order line's delivered_at; zero when order data gives no time).
// It reports whether the line takes the reported state:
//
//   - returned and cancelled apply from any other state;
//   - delivered applies from placed, preparing, shipped and in_transit; a line that
//     is returned or cancelled becomes delivered again only when the news carries a
//     time later than the return or cancellation (spec: order data with delivered
//     and no delivered_at leaves such a line unchanged);
//   - placed, preparing, shipped and in_transit only move a line forward among
//     themselves, so a re-send with an older or omitted (default placed) state never
//     takes back a line that a carrier report already moved on.
//
// Reports with an estimated source or confidence never reach this rule (see
// DeliveryEffective). A line not stored yet simply takes the reported state.
func LineMoves(cur string, curAt time.Time, reported string, at time.Time) bool {
	if cur == reported {
		return false
	}
	switch reported {
	case LineReturned, LineCancelled:
		return true
	case LineDelivered:
		if cur == LineReturned || cur == LineCancelled {
			return !at.IsZero() && at.After(curAt)
		}
		return true
	default:
		r, ok := lineRank[cur]
		return ok && cur != LineDelivered && lineRank[reported] > r
	}
}

package magento

import (
	"encoding/json"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
)

// Order is one order of the REST answer (the fields reviewd reads).
type Order struct {
	EntityID        flexID   `json:"entity_id"`
	IncrementID     string   `json:"increment_id"`
	StoreID         flexID   `json:"store_id"`
	CreatedAt       string   `json:"created_at"`
	UpdatedAt       string   `json:"updated_at"`
	State           string   `json:"state"`
	Status          string   `json:"status"`
	CustomerEmail   string   `json:"customer_email"`
	CustomerID      flexID   `json:"customer_id"`
	CustomerIsGuest flexID   `json:"customer_is_guest"`
	TotalRefunded   *float64 `json:"total_refunded"`
	BillingAddress  *struct {
		Telephone string `json:"telephone"`
	} `json:"billing_address"`
	Items *[]Item `json:"items"`
}

// Item is one order item row.
type Item struct {
	ItemID       flexID  `json:"item_id"`
	ParentItemID flexID  `json:"parent_item_id"`
	ProductID    flexID  `json:"product_id"`
	ProductType  string  `json:"product_type"`
	SKU          string  `json:"sku"`
	Name         string  `json:"name"`
	QtyOrdered   float64 `json:"qty_ordered"`
	QtyInvoiced  float64 `json:"qty_invoiced"`
	QtyShipped   float64 `json:"qty_shipped"`
	QtyRefunded  float64 `json:"qty_refunded"`
	QtyCanceled  float64 `json:"qty_canceled"`
}

// flexID reads an id given as a JSON number or string ("" for null or 0).
type flexID string

func (f *flexID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n json.Number
		if json.Unmarshal(b, &n) != nil {
			*f = ""
			return nil
		}
		s = n.String()
	}
	s = strings.TrimSpace(s)
	if s == "0" {
		s = ""
	}
	*f = flexID(s)
	return nil
}

// PaymentStates maps an order state to payment_state; a paid order with an amount
// refunded is partially_refunded. Other states skip the order as status_unknown.
var PaymentStates = map[string]string{
	"new":             core.PaymentPending,
	"pending_payment": core.PaymentPending,
	"payment_review":  core.PaymentPending,
	"holded":          core.PaymentPending,
	"processing":      core.PaymentPaid,
	"complete":        core.PaymentPaid,
	"closed":          core.PaymentRefunded,
	"canceled":        core.PaymentVoided,
}

// DeliveredStatus is the order status that delivery-tracking extensions set when
// the carrier reports delivery (core Magento has no delivered state).
const DeliveredStatus = "delivered"

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(TimeLayout, strings.TrimSpace(s))
	return t.UTC(), err == nil
}

// lineState derives a visible item's fulfilment_state from its counters and those of
// its child rows (configurable and bundle products):
//
//   - order state canceled: cancelled;
//   - the whole quantity refunded: returned when anything was shipped, else cancelled;
//   - the whole quantity canceled: cancelled;
//   - anything shipped: shipped (delivered when the order status is delivered);
//   - anything invoiced: preparing;
//   - otherwise placed.
func lineState(o Order, it Item, children []Item) string {
	shipped, invoiced := it.QtyShipped > 0, it.QtyInvoiced > 0
	allRefunded, allCanceled := it.QtyOrdered > 0 && it.QtyRefunded >= it.QtyOrdered, it.QtyOrdered > 0 && it.QtyCanceled >= it.QtyOrdered
	if len(children) > 0 {
		childRefunded, childCanceled := true, true
		for _, c := range children {
			shipped = shipped || c.QtyShipped > 0
			invoiced = invoiced || c.QtyInvoiced > 0
			childRefunded = childRefunded && c.QtyOrdered > 0 && c.QtyRefunded >= c.QtyOrdered
			childCanceled = childCanceled && c.QtyOrdered > 0 && c.QtyCanceled >= c.QtyOrdered
		}
		allRefunded = allRefunded || childRefunded
		allCanceled = allCanceled || childCanceled
	}
	switch {
	case o.State == "canceled":
		return core.LineCancelled
	case allRefunded && shipped:
		return core.LineReturned
	case allRefunded, allCanceled:
		return core.LineCancelled
	case shipped && o.Status == DeliveredStatus:
		return core.LineDelivered
	case shipped:
		return core.LineShipped
	case invoiced:
		return core.LinePreparing
	}
	return core.LinePlaced
}

// MapOrder maps one order. Items with a parent_item_id are the child rows of a
// configurable or bundle product: the visible (parent) row is the order line and the
// children only add their counters.
func MapOrder(o Order) orders.PlatformOrder {
	var po orders.PlatformOrder
	if t, ok := parseTime(o.UpdatedAt); ok {
		po.ChangedAt = t
	}
	number := strings.TrimSpace(o.IncrementID)
	placed, ok := parseTime(o.CreatedAt)
	if number == "" || !ok || o.Items == nil {
		po.Skip = orders.SkipOrderIncomplete
		return po
	}
	pay, ok := PaymentStates[o.State]
	if !ok {
		po.Skip = orders.SkipStatusUnknown
		return po
	}
	if pay == core.PaymentPaid && o.TotalRefunded != nil && *o.TotalRefunded > 0 {
		pay = core.PaymentPartiallyRefunded
	}
	in := orders.OrderInput{ExternalID: number, PaymentState: pay, PlacedAt: placed.Format(time.RFC3339),
		CustomerEmail: o.CustomerEmail}
	if o.BillingAddress != nil {
		in.CustomerPhone = o.BillingAddress.Telephone
	}
	if o.CustomerIsGuest == "" {
		in.CustomerKey = string(o.CustomerID)
	}
	children := map[flexID][]Item{}
	var visible []Item
	for _, it := range *o.Items {
		if it.ParentItemID != "" {
			children[it.ParentItemID] = append(children[it.ParentItemID], it)
			continue
		}
		visible = append(visible, it)
	}
	if len(visible) > orders.MaxPlatformLines {
		po.SkipLine(orders.SkipLinesTruncated)
		visible = visible[:orders.MaxPlatformLines]
	}
	deliveredAt := ""
	if o.Status == DeliveredStatus {
		deliveredAt = po.ChangedAt.Format(time.RFC3339)
	}
	for _, it := range visible {
		variant := strings.TrimSpace(it.SKU)
		if variant == "" {
			variant = string(it.ProductID)
		}
		if it.ItemID == "" || variant == "" {
			po.SkipLine(orders.SkipLineIncomplete)
			continue
		}
		state := lineState(o, it, children[it.ItemID])
		line := orders.LineInput{LineReference: string(it.ItemID), VariantKey: variant, GroupKey: string(it.ProductID),
			Title: it.Name, FulfilmentState: state}
		if state == core.LineDelivered {
			line.DeliveredAt = deliveredAt
		}
		q := it.QtyOrdered - it.QtyRefunded - it.QtyCanceled
		if q <= 0 {
			q = it.QtyOrdered
		}
		if q > 0 {
			line.Quantity = &q
		}
		in.Items = append(in.Items, line)
	}
	if len(in.Items) == 0 {
		po.Skip = orders.SkipOrderWithoutLines
		return po
	}
	po.Order = in
	return po
}

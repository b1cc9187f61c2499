package woocommerce

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
)

// Order is one order of the REST answer (the fields reviewd reads).
type Order struct {
	ID               int64     `json:"id"`
	Number           string    `json:"number"`
	Status           string    `json:"status"`
	CustomerID       int64     `json:"customer_id"`
	DateCreatedGMT   *string   `json:"date_created_gmt"`
	DateModifiedGMT  *string   `json:"date_modified_gmt"`
	DateCompletedGMT *string   `json:"date_completed_gmt"`
	Billing          Billing   `json:"billing"`
	LineItems        *[]Line   `json:"line_items"`
	Refunds          []Refund  `json:"refunds"`
	MetaData         []MetaRef `json:"meta_data"`
}

// Billing holds the contact fields reviewd reads.
type Billing struct {
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// Line is one line item.
type Line struct {
	ID          int64       `json:"id"`
	Name        string      `json:"name"`
	ProductID   int64       `json:"product_id"`
	VariationID int64       `json:"variation_id"`
	Quantity    json.Number `json:"quantity"`
	SKU         string      `json:"sku"`
}

// Refund is one refund of an order (total is a negative decimal string).
type Refund struct {
	ID    int64  `json:"id"`
	Total string `json:"total"`
}

// MetaRef is a meta_data entry; only read for the order language of multilingual
// plugins (wpml_language).
type MetaRef struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// Statuses maps an order status to payment_state and the fulfilment_state of every
// line. The core statuses are WooCommerce's own; shipped and delivered are the
// statuses that shipment-tracking plugins add. Other statuses skip the order as
// status_unknown.
var Statuses = map[string]struct{ Payment, Line string }{
	"pending":        {core.PaymentPending, core.LinePlaced},
	"on-hold":        {core.PaymentPending, core.LinePlaced},
	"checkout-draft": {core.PaymentPending, core.LinePlaced},
	"failed":         {core.PaymentVoided, core.LinePlaced},
	"processing":     {core.PaymentPaid, core.LinePreparing},
	"completed":      {core.PaymentPaid, core.LineShipped},
	"shipped":        {core.PaymentPaid, core.LineShipped},
	"delivered":      {core.PaymentPaid, core.LineDelivered},
	"cancelled":      {core.PaymentVoided, core.LineCancelled},
	"refunded":       {core.PaymentRefunded, core.LineReturned},
}

// gmt reads a *_gmt date (site time zone removed, no offset) as UTC.
func gmt(p *string) (time.Time, bool) {
	if p == nil {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02T15:04:05", strings.TrimSpace(*p))
	return t.UTC(), err == nil
}

func id(n int64) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// refunded is the amount refunded so far (refund totals are negative).
func (o Order) refunded() float64 {
	var sum float64
	for _, r := range o.Refunds {
		if v, err := strconv.ParseFloat(strings.TrimSpace(r.Total), 64); err == nil {
			sum += math.Abs(v)
		}
	}
	return sum
}

func (o Order) language() string {
	for _, m := range o.MetaData {
		if m.Key == "wpml_language" {
			var s string
			if json.Unmarshal(m.Value, &s) == nil {
				l, _, _ := strings.Cut(strings.ToLower(s), "-")
				return l
			}
		}
	}
	return ""
}

// MapOrder maps one order. external_id is the display number (the id when empty);
// a paid order with refunds is partially_refunded; a refunded order that was never
// completed has cancelled lines, not returned ones.
func MapOrder(o Order) orders.PlatformOrder {
	var po orders.PlatformOrder
	if t, ok := gmt(o.DateModifiedGMT); ok {
		po.ChangedAt = t
	}
	number := strings.TrimSpace(o.Number)
	if number == "" {
		number = id(o.ID)
	}
	placed, ok := gmt(o.DateCreatedGMT)
	if number == "" || !ok || o.LineItems == nil {
		po.Skip = orders.SkipOrderIncomplete
		return po
	}
	st, ok := Statuses[o.Status]
	if !ok {
		po.Skip = orders.SkipStatusUnknown
		return po
	}
	pay, lineState := st.Payment, st.Line
	if pay == core.PaymentPaid && o.refunded() > 0 {
		pay = core.PaymentPartiallyRefunded
	}
	_, completed := gmt(o.DateCompletedGMT)
	if lineState == core.LineReturned && !completed {
		lineState = core.LineCancelled
	}
	deliveredAt := ""
	if lineState == core.LineDelivered {
		deliveredAt = po.ChangedAt.Format(time.RFC3339)
	}
	in := orders.OrderInput{ExternalID: number, PaymentState: pay, PlacedAt: placed.Format(time.RFC3339),
		CustomerEmail: o.Billing.Email, CustomerPhone: o.Billing.Phone, CustomerKey: id(o.CustomerID), Language: o.language()}
	lines := *o.LineItems
	if len(lines) > orders.MaxPlatformLines {
		po.SkipLine(orders.SkipLinesTruncated)
		lines = lines[:orders.MaxPlatformLines]
	}
	for _, l := range lines {
		variant := strings.TrimSpace(l.SKU)
		if variant == "" {
			variant = id(l.VariationID)
		}
		if variant == "" {
			variant = id(l.ProductID)
		}
		ref := id(l.ID)
		if ref == "" || variant == "" {
			po.SkipLine(orders.SkipLineIncomplete)
			continue
		}
		line := orders.LineInput{LineReference: ref, VariantKey: variant, GroupKey: id(l.ProductID), Title: l.Name,
			FulfilmentState: lineState, DeliveredAt: deliveredAt}
		if q, err := l.Quantity.Float64(); err == nil && q > 0 {
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

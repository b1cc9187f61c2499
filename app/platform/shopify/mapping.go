package shopify

import (
	"encoding/json"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
)

// Order is one order node of the GraphQL answer (the fields reviewd reads).
type Order struct {
	ID                     string  `json:"id"`
	Name                   string  `json:"name"`
	CreatedAt              string  `json:"createdAt"`
	UpdatedAt              string  `json:"updatedAt"`
	CancelledAt            *string `json:"cancelledAt"`
	Email                  *string `json:"email"`
	Phone                  *string `json:"phone"`
	CustomerLocale         *string `json:"customerLocale"`
	DisplayFinancialStatus *string `json:"displayFinancialStatus"`
	LineItems              *struct {
		PageInfo struct {
			HasNextPage bool `json:"hasNextPage"`
		} `json:"pageInfo"`
		Nodes []LineItem `json:"nodes"`
	} `json:"lineItems"`
	Fulfillments []Fulfillment `json:"fulfillments"`
}

// LineItem is one line of an order.
type LineItem struct {
	ID              string     `json:"id"`
	SKU             *string    `json:"sku"`
	Name            string     `json:"name"`
	Quantity        *float64   `json:"quantity"`
	CurrentQuantity *float64   `json:"currentQuantity"`
	Variant         *legacyRef `json:"variant"`
	Product         *legacyRef `json:"product"`
}

type legacyRef struct {
	LegacyResourceID flexID `json:"legacyResourceId"`
}

// flexID reads an id given as a JSON string or number (UnsignedInt64 arrives as a
// string).
type flexID string

func (f *flexID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		*f = ""
		return nil
	}
	*f = flexID(n.String())
	return nil
}

// Fulfillment is one shipment of an order.
type Fulfillment struct {
	Status               string  `json:"status"`
	DisplayStatus        *string `json:"displayStatus"`
	DeliveredAt          *string `json:"deliveredAt"`
	UpdatedAt            *string `json:"updatedAt"`
	FulfillmentLineItems struct {
		Nodes []struct {
			LineItem struct {
				ID string `json:"id"`
			} `json:"lineItem"`
		} `json:"nodes"`
	} `json:"fulfillmentLineItems"`
}

// PaymentStates maps displayFinancialStatus to payment_state (spec 1, "Payment
// mapping"). Other values skip the order as status_unknown.
var PaymentStates = map[string]string{
	"PENDING":            core.PaymentPending,
	"AUTHORIZED":         core.PaymentPending,
	"PARTIALLY_PAID":     core.PaymentPending,
	"PAID":               core.PaymentPaid,
	"PARTIALLY_REFUNDED": core.PaymentPartiallyRefunded,
	"REFUNDED":           core.PaymentRefunded,
	"VOIDED":             core.PaymentVoided,
	"EXPIRED":            core.PaymentVoided,
}

// ShipmentStates maps a shipment's displayStatus to fulfilment_state (spec 1,
// "Line status mapping"); an empty displayStatus counts as FULFILLED. Lines in a
// shipment with another value are skipped as status_unknown.
var ShipmentStates = map[string]string{
	"SUBMITTED":           core.LinePreparing,
	"LABEL_PURCHASED":     core.LinePreparing,
	"LABEL_PRINTED":       core.LinePreparing,
	"LABEL_VOIDED":        core.LinePreparing,
	"FULFILLED":           core.LineShipped,
	"MARKED_AS_FULFILLED": core.LineShipped,
	"CONFIRMED":           core.LineShipped,
	"FAILURE":             core.LineShipped,
	"CARRIER_PICKED_UP":   core.LineInTransit,
	"IN_TRANSIT":          core.LineInTransit,
	"OUT_FOR_DELIVERY":    core.LineInTransit,
	"DELAYED":             core.LineInTransit,
	"ATTEMPTED_DELIVERY":  core.LineInTransit,
	"NOT_DELIVERED":       core.LineInTransit,
	"READY_FOR_PICKUP":    core.LineInTransit,
	"DELIVERED":           core.LineDelivered,
	"PICKED_UP":           core.LineDelivered,
}

// ignoredShipment: shipments with these statuses (Fulfillment.status) are ignored,
// as are those whose displayStatus is CANCELED.
var ignoredShipment = map[string]bool{"CANCELLED": true, "ERROR": true, "FAILURE": true}

// rank orders the shipment states; a line in several shipments takes the furthest.
var rank = map[string]int{core.LinePreparing: 1, core.LineShipped: 2, core.LineInTransit: 3, core.LineDelivered: 4}

const maxShipments = 5

// lineShipment is what the shipments of an order say about one line.
type lineShipment struct {
	state       string
	deliveredAt string
	unknown     bool
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

func validTime(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// trailingNumber returns the number at the end of a GraphQL id
// (gid://shopify/LineItem/9001 -> 9001), or "".
func trailingNumber(id string) string {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	return id[i:]
}

// MapOrder maps one order node by spec 1's field mapping, payment mapping, line
// status mapping and shipment rules. An order that cannot be read carries its skip
// key; skipped lines are counted in Skipped.
func MapOrder(o Order) orders.PlatformOrder {
	var po orders.PlatformOrder
	if t, err := time.Parse(time.RFC3339, o.UpdatedAt); err == nil {
		po.ChangedAt = t.UTC()
	}
	name := strings.TrimSpace(o.Name)
	if name == "" || !validTime(o.CreatedAt) || o.LineItems == nil {
		po.Skip = orders.SkipOrderIncomplete
		return po
	}
	pay, ok := PaymentStates[str(o.DisplayFinancialStatus)]
	if !ok {
		po.Skip = orders.SkipStatusUnknown
		return po
	}
	lang, _, _ := strings.Cut(str(o.CustomerLocale), "-")
	in := orders.OrderInput{ExternalID: name, PaymentState: pay, PlacedAt: o.CreatedAt, CustomerEmail: str(o.Email),
		CustomerPhone: str(o.Phone), Language: strings.ToLower(lang)}

	shipped := map[string]lineShipment{}
	for i, f := range o.Fulfillments {
		if i == maxShipments {
			break
		}
		display := str(f.DisplayStatus)
		if ignoredShipment[f.Status] || display == "CANCELED" {
			continue
		}
		if display == "" {
			display = "FULFILLED"
		}
		state, known := ShipmentStates[display]
		at := str(f.DeliveredAt)
		if at == "" {
			at = str(f.UpdatedAt)
		}
		for _, n := range f.FulfillmentLineItems.Nodes {
			cur := shipped[n.LineItem.ID]
			switch {
			case !known:
				cur.unknown = true
			case rank[state] > rank[cur.state]:
				cur.state = state
				if state == core.LineDelivered {
					cur.deliveredAt = at
				}
			}
			shipped[n.LineItem.ID] = cur
		}
	}

	nodes := o.LineItems.Nodes
	if o.LineItems.PageInfo.HasNextPage || len(nodes) > orders.MaxPlatformLines {
		po.SkipLine(orders.SkipLinesTruncated)
		if len(nodes) > orders.MaxPlatformLines {
			nodes = nodes[:orders.MaxPlatformLines]
		}
	}
	cancelled := str(o.CancelledAt) != ""
	for _, li := range nodes {
		ref := trailingNumber(li.ID)
		variant := str(li.SKU)
		if variant == "" && li.Variant != nil {
			variant = strings.TrimSpace(string(li.Variant.LegacyResourceID))
		}
		if ref == "" || variant == "" {
			po.SkipLine(orders.SkipLineIncomplete)
			continue
		}
		line := orders.LineInput{LineReference: ref, VariantKey: variant, Title: li.Name, FulfilmentState: core.LinePlaced}
		if li.Product != nil {
			line.GroupKey = strings.TrimSpace(string(li.Product.LegacyResourceID))
		}
		current := li.CurrentQuantity
		qty := current
		if qty == nil || *qty == 0 {
			qty = li.Quantity
		}
		if qty != nil {
			q := *qty
			line.Quantity = &q
		}
		sh, inShipment := shipped[li.ID]
		switch {
		case cancelled:
			line.FulfilmentState = core.LineCancelled
		case current != nil && *current == 0:
			// The whole line was refunded or removed: before shipping it is
			// cancelled, after shipping returned.
			line.FulfilmentState = core.LineCancelled
			if inShipment {
				line.FulfilmentState = core.LineReturned
			}
		case inShipment && sh.unknown:
			po.SkipLine(orders.SkipStatusUnknown)
			continue
		case inShipment && sh.state != "":
			line.FulfilmentState = sh.state
			line.DeliveredAt = sh.deliveredAt
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

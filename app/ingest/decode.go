package ingest

import (
	"bytes"
	"encoding/json"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// lineBody is an order line as the spec names its fields.
type lineBody struct {
	LineReference   string   `json:"line_reference"`
	VariantKey      string   `json:"variant_key"`
	GroupKey        string   `json:"group_key"`
	CatalogID       string   `json:"catalog_id"`
	Title           string   `json:"title"`
	Quantity        *float64 `json:"quantity"`
	FulfilmentState string   `json:"fulfilment_state"`
	DeliveredAt     string   `json:"delivered_at"`
	Incentive       *bool    `json:"incentive"`
}

// orderBody is one order.
type orderBody struct {
	Channel       string     `json:"channel"`
	ExternalID    string     `json:"external_id"`
	PaymentState  string     `json:"payment_state"`
	Market        string     `json:"market"`
	Language      string     `json:"language"`
	PlacedAt      string     `json:"placed_at"`
	CustomerEmail string     `json:"customer_email"`
	CustomerKey   string     `json:"customer_key"`
	CustomerPhone string     `json:"customer_phone"`
	Items         []lineBody `json:"items"`
}

// orderEnvelope is either one order or {"channel", "orders": [...]}.
type orderEnvelope struct {
	orderBody
	Orders json.RawMessage `json:"orders"`
}

func (o orderBody) input() orders.OrderInput {
	in := orders.OrderInput{Channel: o.Channel, ExternalID: o.ExternalID, PaymentState: o.PaymentState, Market: o.Market,
		Language: o.Language, PlacedAt: o.PlacedAt, CustomerEmail: o.CustomerEmail, CustomerKey: o.CustomerKey,
		CustomerPhone: o.CustomerPhone, Items: make([]orders.LineInput, len(o.Items))}
	for i, l := range o.Items {
		in.Items[i] = orders.LineInput{LineReference: l.LineReference, VariantKey: l.VariantKey, GroupKey: l.GroupKey,
			CatalogID: l.CatalogID, Title: l.Title, Quantity: l.Quantity, FulfilmentState: l.FulfilmentState,
			DeliveredAt: l.DeliveredAt, Incentive: l.Incentive}
	}
	return in
}

// list decodes the array member name of a batch body: null is field_missing, a
// value that is not an array field_invalid; an empty array yields no items.
func list[T any](raw json.RawMessage, name string, v *[]T) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(raw, []byte("null")):
		return core.Invalidf("field_missing", name)
	case len(raw) == 0 || raw[0] != '[':
		return core.Invalidf("field_invalid", name)
	}
	return web.ParseJSON(raw, web.ModeIngest, v)
}

// decodeOrders reads an order body. On an error the request holds what was read
// (for the transfer figures).
func decodeOrders(raw []byte) (orders.OrderRequest, error) {
	var env orderEnvelope
	if err := web.ParseJSON(raw, web.ModeIngest, &env); err != nil {
		return orders.OrderRequest{}, err
	}
	if env.Orders == nil {
		return orders.OrderRequest{Orders: []orders.OrderInput{env.input()}}, nil
	}
	req := orders.OrderRequest{Channel: env.Channel, Batch: true}
	var bodies []orderBody
	if err := list(env.Orders, "orders", &bodies); err != nil {
		return req, err
	}
	req.Orders = make([]orders.OrderInput, len(bodies))
	for i, o := range bodies {
		req.Orders[i] = o.input()
	}
	return req, nil
}

// deliveryBody is one delivery record; detail is accepted and never read.
type deliveryBody struct {
	ExternalID    string `json:"external_id"`
	LineReference string `json:"line_reference"`
	State         string `json:"state"`
	ObservedAt    string `json:"observed_at"`
	Source        string `json:"source"`
	Confidence    string `json:"confidence"`
}

type deliveryEnvelope struct {
	deliveryBody
	Deliveries json.RawMessage `json:"deliveries"`
}

func (d deliveryBody) input() orders.DeliveryInput {
	return orders.DeliveryInput{ExternalID: d.ExternalID, LineReference: d.LineReference, State: d.State,
		ObservedAt: d.ObservedAt, Source: d.Source, Confidence: d.Confidence}
}

// decodeDeliveries reads a delivery body.
func decodeDeliveries(raw []byte) (orders.DeliveryRequest, error) {
	var env deliveryEnvelope
	if err := web.ParseJSON(raw, web.ModeIngest, &env); err != nil {
		return orders.DeliveryRequest{}, err
	}
	if env.Deliveries == nil {
		return orders.DeliveryRequest{Deliveries: []orders.DeliveryInput{env.input()}}, nil
	}
	req := orders.DeliveryRequest{Batch: true}
	var ds []deliveryBody
	if err := list(env.Deliveries, "deliveries", &ds); err != nil {
		return req, err
	}
	req.Deliveries = make([]orders.DeliveryInput, len(ds))
	for i, d := range ds {
		req.Deliveries[i] = d.input()
	}
	return req, nil
}

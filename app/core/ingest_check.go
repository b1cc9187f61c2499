package core

import (
	"context"
	"strconv"
)

// The dry runs of the panel (POST /admin/v1/ingest/check) validate on the read
// pool: the same checks, channel and market rules and merge with the stored
// orders as a transfer, but no write transaction, so any number of dry runs never
// delays a real transfer behind the single writer. They stop where a transfer
// starts writing.

// CheckOrdersRead is the read-only dry run of an order transfer: the refusal a
// transfer would answer, else the number of orders it would accept.
func (c *Core) CheckOrdersRead(ctx context.Context, a *Actor, req OrderRequest) (OrderResult, error) {
	if len(req.Orders) == 0 {
		if req.Batch {
			return OrderResult{}, Invalidf("field_missing", "orders")
		}
		return OrderResult{}, Invalidf("field_missing", "external_id")
	}
	if len(req.Orders) > MaxOrdersPerRequest {
		return OrderResult{}, Invalidf("batch_too_large", MaxOrdersPerRequest)
	}
	top, err := text("channel", req.Channel, maxChannelLen, false)
	if err != nil {
		return OrderResult{}, err
	}
	ins := make([]orderIn, len(req.Orders))
	exts := make([]string, 0, len(req.Orders))
	for i, in := range req.Orders {
		path := ""
		if req.Batch {
			path = "orders[" + strconv.Itoa(i) + "]."
		}
		if ins[i], err = validateOrder(in, path); err != nil {
			return OrderResult{}, err
		}
		exts = append(exts, ins[i].externalID)
	}
	q := c.DB.Read()
	b, err := loadBook(ctx, q, q.Now, exts)
	if err != nil {
		return OrderResult{}, err
	}
	channels := newChannelCache(q)
	for _, in := range ins {
		if err := c.placeOrder(ctx, b, channels, top, in); err != nil {
			return OrderResult{}, err
		}
	}
	return OrderResult{Accepted: len(ins)}, nil
}

// CheckDeliveriesRead is the read-only dry run of a delivery transfer: the refusal
// a transfer would answer, else the records it would accept and the pairs of order
// and line it does not know.
func (c *Core) CheckDeliveriesRead(ctx context.Context, a *Actor, req DeliveryRequest) (DeliveryResult, error) {
	res := DeliveryResult{Unknown: []UnknownLine{}}
	if len(req.Deliveries) == 0 {
		if req.Batch {
			return res, Invalidf("field_missing", "deliveries")
		}
		return res, Invalidf("field_missing", "external_id")
	}
	if len(req.Deliveries) > MaxDeliveriesPerRequest {
		return res, Invalidf("batch_too_large", MaxDeliveriesPerRequest)
	}
	ins := make([]deliveryIn, len(req.Deliveries))
	exts := make([]string, 0, len(ins))
	for i, in := range req.Deliveries {
		path := ""
		if req.Batch {
			path = "deliveries[" + strconv.Itoa(i) + "]."
		}
		var err error
		if ins[i], err = validateDelivery(in, path); err != nil {
			return res, err
		}
		exts = append(exts, ins[i].ext)
	}
	q := c.DB.Read()
	b, err := loadBook(ctx, q, q.Now, exts)
	if err != nil {
		return res, err
	}
	seenUnknown := map[lineRef]bool{}
	for _, d := range ins {
		k := lineRef{d.ext, d.ref}
		if _, ok := b.lines[d.ext][d.ref]; ok {
			res.Accepted++
			continue
		}
		if !seenUnknown[k] {
			seenUnknown[k] = true
			res.Unknown = append(res.Unknown, UnknownLine{ExternalID: d.ext, Line: d.ref})
		}
	}
	return res, nil
}

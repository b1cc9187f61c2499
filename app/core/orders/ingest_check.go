package orders

import (
	"context"

	"reviewd/app/core"
)

// The dry runs of the panel (POST /admin/v1/ingest/check) validate on the read
// pool: the same checks, channel and market rules and merge with the stored
// orders as a transfer (planOrders, planDeliveries), but no write transaction, so
// any number of dry runs never delays a real transfer behind the single writer.
// They stop where a transfer starts writing.

// CheckOrdersRead is the read-only dry run of an order transfer: the refusal a
// transfer would answer, else the number of orders it would accept.
func (c *Service) CheckOrdersRead(ctx context.Context, a *core.Actor, req OrderRequest) (OrderResult, error) {
	q := c.DB.Read()
	_, ins, err := c.planOrders(ctx, q, q.Now, req)
	if err != nil {
		return OrderResult{}, err
	}
	return OrderResult{Accepted: len(ins)}, nil
}

// CheckDeliveriesRead is the read-only dry run of a delivery transfer: the refusal
// a transfer would answer, else the records it would accept and the pairs of order
// and line it does not know.
func (c *Service) CheckDeliveriesRead(ctx context.Context, a *core.Actor, req DeliveryRequest) (DeliveryResult, error) {
	res := DeliveryResult{Unknown: []UnknownLine{}}
	ins, b, err := planDeliveries(ctx, c.DB.Read(), c.DB.Read().Now, req)
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

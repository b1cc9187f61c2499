package orders

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// DeliveryInput is one delivery record as it arrives (the detail field is accepted
// and never stored, so it is not here).
type DeliveryInput struct {
	ExternalID    string
	LineReference string
	State         string
	ObservedAt    string
	Source        string // empty: platform
	Confidence    string // empty: verified
}

// DeliveryRequest is one delivery transfer.
type DeliveryRequest struct {
	Deliveries []DeliveryInput
	// Batch is true for the {"deliveries": [...]} form; error paths then start with
	// deliveries[i].
	Batch bool
}

// UnknownLine is an order and line pair of a delivery transfer that matches no
// stored line.
type UnknownLine struct {
	ExternalID string `json:"external_id"`
	Line       string `json:"line"`
}

// DeliveryResult is the answer of a delivery transfer. Accepted counts the records
// that matched a line (a record stored before counts too; it is not stored twice).
type DeliveryResult struct {
	Accepted int           `json:"accepted"`
	Unknown  []UnknownLine `json:"unknown"`

	channelID int64 // channel of the first matched order, for the transfer figures
}

type deliveryIn struct {
	ext, ref, state, source, confidence string
	observedAt                          time.Time
}

func validateDelivery(in DeliveryInput, path string) (deliveryIn, error) {
	var d deliveryIn
	var err error
	if d.ext, err = core.Text("external_id", in.ExternalID, core.MaxIDLen, true); err != nil {
		return d, err
	}
	if d.ref, err = core.Text("line_reference", in.LineReference, core.MaxIDLen, true); err != nil {
		return d, err
	}
	d.state = strings.TrimSpace(in.State)
	if d.state == "" {
		return d, core.Invalidf("field_missing", "state")
	}
	if !core.LineStates[d.state] {
		return d, unmapped(path, "state", d.state)
	}
	if d.observedAt, err = timestamp("observed_at", in.ObservedAt, true); err != nil {
		return d, err
	}
	d.source, d.confidence = core.SourcePlatform, core.ConfidenceVerified
	if s := strings.TrimSpace(in.Source); s != "" {
		if !core.Sources[s] {
			return d, core.Invalidf("field_invalid", "source")
		}
		d.source = s
	}
	if s := strings.TrimSpace(in.Confidence); s != "" {
		if !core.Confidences[s] {
			return d, core.Invalidf("field_invalid", "confidence")
		}
		d.confidence = s
	}
	return d, nil
}

// SaveDeliveries validates and applies the delivery records of one transfer inside
// tx. Every record is checked first, so an unknown state value refuses the whole
// request (status_unmapped) before anything is written. Pairs that match no stored
// line are listed in Unknown and the rest is still saved. A record whose line,
// state, source and observed time is stored already is not stored again and has no
// second effect. New records from a source other than estimated with confidence
// verified move their line by LineMoves, in observation order; the others are
// recorded only. A verified delivery of an already delivered line keeps the earliest
// delivery time.
// planDeliveries validates a delivery transfer and loads the orders it names
// through q, without writing: the shared first half of SaveDeliveries and of the
// read-only dry run.
func planDeliveries(ctx context.Context, q *store.Q, now time.Time, req DeliveryRequest) ([]deliveryIn, *orderBook, error) {
	if len(req.Deliveries) == 0 {
		if req.Batch {
			return nil, nil, core.Invalidf("field_missing", "deliveries")
		}
		return nil, nil, core.Invalidf("field_missing", "external_id")
	}
	if len(req.Deliveries) > MaxDeliveriesPerRequest {
		return nil, nil, core.Invalidf("batch_too_large", MaxDeliveriesPerRequest)
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
			return nil, nil, err
		}
		exts = append(exts, ins[i].ext)
	}
	b, err := loadBook(ctx, q, now, exts)
	return ins, b, err
}

func (c *Service) SaveDeliveries(ctx context.Context, tx *store.Tx, a *core.Actor, req DeliveryRequest) (DeliveryResult, error) {
	res := DeliveryResult{Unknown: []UnknownLine{}}
	ins, b, err := planDeliveries(ctx, tx.Q, tx.Now, req)
	if err != nil {
		return res, err
	}
	known := make([]int, 0, len(ins)) // indexes of records that match a line
	seenUnknown := map[lineRef]bool{}
	for i, d := range ins {
		k := lineRef{d.ext, d.ref}
		if _, ok := b.lines[d.ext][d.ref]; ok {
			if res.channelID == 0 {
				res.channelID = b.orders[d.ext].ChannelID
			}
			known = append(known, i)
			b.newDel = append(b.newDel, pendingDelivery{at: k, rec: store.Delivery{State: d.state, ObservedAt: d.observedAt,
				Source: d.source, Confidence: d.confidence}})
			continue
		}
		if !seenUnknown[k] {
			seenUnknown[k] = true
			res.Unknown = append(res.Unknown, UnknownLine{ExternalID: d.ext, Line: d.ref})
		}
	}
	res.Accepted = len(known)
	if len(known) == 0 {
		return res, nil
	}
	// Insert the records first: only those really inserted (not stored before) may
	// move a line.
	inserted, err := b.flush(ctx, tx)
	if err != nil {
		return res, err
	}
	type dkey struct {
		line          int64
		state, source string
		at            int64
	}
	fresh := make(map[dkey]bool, len(inserted))
	for _, d := range inserted {
		fresh[dkey{d.LineID, d.State, d.Source, store.Ms(d.ObservedAt)}] = true
	}
	order := append([]pendingDelivery(nil), b.newDel...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].rec.ObservedAt.Before(order[j].rec.ObservedAt) })
	b.newDel = nil
	for _, p := range order {
		l := b.lines[p.at.ext][p.at.ref]
		k := dkey{l.ID, p.rec.State, p.rec.Source, store.Ms(p.rec.ObservedAt)}
		if !fresh[k] || !core.DeliveryEffective(p.rec.Source, p.rec.Confidence) {
			continue
		}
		delete(fresh, k) // the same record twice in one request acts once
		switch {
		case core.LineMoves(l.FulfilmentState, l.StateChangedAt, p.rec.State, p.rec.ObservedAt):
			b.moves = append(b.moves, lineChange{ext: p.at.ext, ref: p.at.ref, old: l.FulfilmentState, new: p.rec.State})
			l.FulfilmentState, l.StateChangedAt = p.rec.State, p.rec.ObservedAt
			if p.rec.State == core.LineDelivered {
				l.DeliveredAt = p.rec.ObservedAt
			}
		case l.FulfilmentState == core.LineDelivered && p.rec.State == core.LineDelivered && p.rec.ObservedAt.Before(l.DeliveredAt):
			l.DeliveredAt = p.rec.ObservedAt
		default:
			continue
		}
		b.lines[p.at.ext][p.at.ref] = l
		b.markLine(p.at)
	}
	if _, err := b.flush(ctx, tx); err != nil {
		return res, err
	}
	return res, c.effects(ctx, tx, a, b)
}

// IngestDeliveries serves one delivery transfer: SaveDeliveries in its own
// transaction, plus the activity entry and the transfer-figures row.
func (c *Service) IngestDeliveries(ctx context.Context, a *core.Actor, req DeliveryRequest) (DeliveryResult, error) {
	var res DeliveryResult
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if res, err = c.SaveDeliveries(ctx, tx, a, req); err != nil {
			return err
		}
		code := ""
		if res.channelID != 0 {
			ch, err := tx.ChannelByID(ctx, res.channelID)
			if err != nil {
				return err
			}
			code = ch.Code
		}
		if err := c.Record(ctx, tx, a, "deliveries.received", "channel", code, map[string]any{"accepted": res.Accepted, "unknown": len(res.Unknown)}); err != nil {
			return err
		}
		return tx.AddIngestRequest(ctx, store.IngestRequest{Channel: code, Kind: KindDelivery, Status: core.StatusOK,
			Records: res.Accepted, ActorID: core.ActorID(a)})
	})
	return res, err
}

// CheckDeliveries is the dry run of a delivery transfer (rolled back).
func (c *Service) CheckDeliveries(ctx context.Context, a *core.Actor, req DeliveryRequest) (DeliveryResult, error) {
	var res DeliveryResult
	err := c.dryRun(ctx, func(tx *store.Tx) error {
		var err error
		res, err = c.SaveDeliveries(ctx, tx, a, req)
		return err
	})
	return res, err
}

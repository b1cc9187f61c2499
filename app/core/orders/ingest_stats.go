package orders

import (
	"context"
	"errors"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// RecordRefusedIngest files a refused order or delivery transfer in the transfer
// figures, in its own transaction (the request's own one was rolled back). channel
// is the code as sent ("" when unknown, for example when the credentials were
// refused) and records the number of records the body carried (0 when unread).
// Answers 429 are not filed: a caller over its limit would otherwise turn every
// refused request into a write. Failures are logged, never returned: the figures
// must not change the answer.
func (c *Service) RecordRefusedIngest(ctx context.Context, a *core.Actor, kind, channel string, records int, refusal error) {
	status, code := core.StatusInternalServerError, core.ErrInternal.Code+" / "+core.ErrInternal.Detail
	var ce *core.Error
	switch {
	case errors.As(refusal, &ce):
		status, code = ce.Status, ce.Code+" / "+ce.Detail
	case errors.Is(refusal, context.Canceled):
		return
	}
	if status == core.StatusTooManyRequests {
		return
	}
	ctx = context.WithoutCancel(ctx)
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return tx.AddIngestRequest(ctx, store.IngestRequest{Channel: core.TruncateRunes(channel, core.MaxChannelLen), Kind: kind,
			Status: status, Error: core.TruncateRunes(code, 200), Records: records, ActorID: core.ActorID(a)})
	})
	if err != nil {
		c.Log.Error("record refused transfer", "kind", kind, "err", err)
	}
}

// IngestStats are the panel's transfer figures (spec 1, behaviour rule 6).
type IngestStats struct {
	// OrdersReceived counts the stored orders of the chosen channel (all channels
	// when none is chosen).
	OrdersReceived int
	// Daily has one entry per UTC day of the last 7 days, oldest first, for the
	// chosen channel (all requests when none is chosen).
	Daily []store.IngestDay
	// Recent lists the newest requests across all channels.
	Recent []store.IngestRequest
}

// StatsDays and StatsRecent size the transfer figures.
const (
	StatsDays   = 7
	StatsRecent = 20
)

// IngestStats reads the transfer figures; an unknown channel code is 400 invalid /
// channel.
func (c *Service) IngestStats(ctx context.Context, channelCode string) (IngestStats, error) {
	q := c.DB.Read()
	var st IngestStats
	only, err := core.ChannelFilter(ctx, q, channelCode, "")
	if err != nil {
		return st, err
	}
	channelID := only.ID
	if st.OrdersReceived, err = q.CountOrders(ctx, channelID); err != nil {
		return st, err
	}
	now := c.Now().UTC()
	today := now.Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -(StatsDays - 1))
	days, err := q.IngestDaily(ctx, first, channelCode)
	if err != nil {
		return st, err
	}
	byDay := make(map[int64]store.IngestDay, len(days))
	for _, d := range days {
		byDay[d.Date.Unix()] = d
	}
	for i := 0; i < StatsDays; i++ {
		d := first.AddDate(0, 0, i)
		v, ok := byDay[d.Unix()]
		if !ok {
			v = store.IngestDay{Date: d}
		}
		st.Daily = append(st.Daily, v)
	}
	if st.Recent, err = q.RecentIngestRequests(ctx, StatsRecent); err != nil {
		return st, err
	}
	return st, nil
}

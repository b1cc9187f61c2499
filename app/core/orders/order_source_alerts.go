package orders

import (
	"context"
	"fmt"
	"time"

	"reviewd/app/core/sending"
	"reviewd/store"
)

// alertSubject names a connection's alert episodes; the creation time keeps a later
// connection with the same number apart.
func alertSubject(s store.OrderSource) string {
	return fmt.Sprintf("order_source:%s:%d", OrderSourcePublicID(s.ID), s.CreatedAt.UnixMilli())
}

// alertAfterRead tells the brand administrators when a connection's reads have
// failed in a row as often as warning_limit (one e-mail per episode, spec 3
// "Events"); a read that did not fail ends the episode.
func (c *Service) alertAfterRead(ctx context.Context, s store.OrderSource, out ReadOutcome, now time.Time) {
	if c.Sending == nil {
		return
	}
	subject := alertSubject(s)
	var err error
	if !out.Failed {
		err = c.Sending.EndAlert(ctx, subject, sending.AlertFailed)
	} else {
		var cur store.OrderSource
		if cur, err = c.DB.Read().OrderSourceByID(ctx, s.ID); err == nil {
			what := fmt.Sprintf("the %s order connection %s (channel %s)", s.Platform, OrderSourcePublicID(s.ID), s.ChannelCode)
			_, err = c.Sending.RaiseAlert(ctx, sending.Alert{Subject: subject, Kind: sending.AlertFailed, What: what,
				Count: cur.Failures, Error: out.Error, At: now})
		}
	}
	if err != nil {
		c.Log.Warn("order connection alert not handled", "connection", OrderSourcePublicID(s.ID), "err", err)
	}
}

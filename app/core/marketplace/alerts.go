package marketplace

import (
	"context"
	"fmt"

	"reviewd/app/core/sending"
	"reviewd/store"
)

// alertSubject names a connection's alert episodes; the creation time keeps a
// later connection that gets the same number apart.
func alertSubject(s store.MarketplaceSource) string {
	return fmt.Sprintf("marketplace_source:%s:%d", SourceID(s.ID), s.CreatedAt.UnixMilli())
}

// alertAfterRun tells the brand administrators about a finished read (spec 3,
// "Events"): removals held back, or reads failed in a row as often as
// warning_limit; a succeeded read ends both episodes, a held one the failures'.
func (c *Service) alertAfterRun(ctx context.Context, s store.MarketplaceSource, state, failure string, counts RunCounts) {
	if c.Sending == nil {
		return
	}
	subject := alertSubject(s)
	p, _ := PlatformOf(s.Platform)
	what := fmt.Sprintf("the %s review connection %s (channel %s, seller %s)", p.Name, SourceID(s.ID), s.Channel, s.SellerID)
	var err error
	switch state {
	case RunSucceeded:
		err = c.Sending.EndAlert(ctx, subject, "")
	case RunHeld:
		if err = c.Sending.EndAlert(ctx, subject, sending.AlertFailed); err == nil {
			_, err = c.Sending.RaiseAlert(ctx, sending.Alert{Subject: subject, Kind: sending.AlertHeld, What: what, Count: counts.Held})
		}
	case RunFailed:
		var n int
		if n, err = c.DB.Read().MarketplaceFailedInRow(ctx, s.ID); err == nil {
			_, err = c.Sending.RaiseAlert(ctx, sending.Alert{Subject: subject, Kind: sending.AlertFailed, What: what,
				Count: n, Error: failure, At: c.now()})
		}
	}
	if err != nil {
		c.Log.Warn("marketplace alert not handled", "source", SourceID(s.ID), "err", err)
	}
}

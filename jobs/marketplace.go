package jobs

import (
	"context"
	"fmt"
	"time"

	"reviewd/app/core/catalogue"
	"reviewd/app/core/marketplace"
)

// Marketplace is the marketplace job: it fills catalogue gaps from order lines,
// reads the due product feeds and every due marketplace feed connection (route feed), one after the other,
// then tries again the marketplace photos that could not be fetched before (every route). A
// connection has at most one queued or running read (a unique index), so a console
// run, serve's schedule and a manual read never read it at once.
type Marketplace struct {
	Marketplace *marketplace.Service
	Catalogue   *catalogue.Service
}

// Name is the job name.
func (Marketplace) Name() string { return "marketplace" }

// Run reads the connections due at now.
func (j Marketplace) Run(ctx context.Context, now time.Time) (string, error) {
	if _, err := j.Catalogue.FillFromOrders(ctx); err != nil {
		return "", err
	}
	pread, pfailed, err := j.Catalogue.RunDueFeeds(ctx, now)
	if err != nil {
		return "", err
	}
	read, failed, err := j.Marketplace.RunDue(ctx, now)
	return fmt.Sprintf("%d product feeds read (%d failed), %d marketplace feeds read (%d failed)", pread, pfailed, read, failed), err
}

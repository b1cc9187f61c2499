package jobs

import (
	"context"
	"time"

	"reviewd/app/core/orders"
)

// OrderSources is the order-sources job: it reads every due platform order
// connection (enabled, channel active, interval passed since its last read), one
// after the other. One read runs at a time per connection (a lease), so a console
// run, serve's schedule and a manual read never read the same connection at once.
type OrderSources struct{ Orders *orders.Service }

// Name is the job name.
func (OrderSources) Name() string { return "order-sources" }

// Run reads the connections due at now.
func (j OrderSources) Run(ctx context.Context, now time.Time) (string, error) {
	r, err := j.Orders.RunOrderSources(ctx, now)
	return r.String(), err
}

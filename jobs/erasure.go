package jobs

import (
	"context"
	"time"

	"reviewd/app/core/orders"
)

// Erasure is the erasure job: it pseudonymises the customer data of orders whose
// review window has ended, or that will never get an invitation.
type Erasure struct{ Orders *orders.Service }

// Name is the job name.
func (Erasure) Name() string { return "erasure" }

// Run does the work due at now.
func (j Erasure) Run(ctx context.Context, now time.Time) (string, error) {
	r, err := j.Orders.RunErasure(ctx, now)
	return r.String(), err
}

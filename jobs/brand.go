package jobs

import (
	"context"
	"time"

	"reviewd/app/core/access"
)

// WhileActive runs Job only while the brand is active: a frozen or closed brand
// sends nothing and reads no connection (see docs/decisions.md, "Brand state").
// The run is recorded as usual, with a detail naming the state.
type WhileActive struct {
	Job
	Access *access.Service
}

// Run runs the job when the brand is active at the time of the run.
func (w WhileActive) Run(ctx context.Context, now time.Time) (string, error) {
	st, err := w.Access.BrandState(ctx)
	if err != nil {
		return "", err
	}
	if st != access.BrandActive {
		return "brand " + st + ": nothing sent or read", nil
	}
	return w.Job.Run(ctx, now)
}

package jobs

import (
	"context"
	"time"

	"reviewd/app/core/ai"
)

// AI is the job ai (every minute): queued AI requests, then the due product
// summaries (each at most once an hour), within ai.daily_requests.
type AI struct{ AI *ai.Service }

// Name is the job name.
func (AI) Name() string { return "ai" }

// Run does one round of the AI package's work.
func (j AI) Run(ctx context.Context, _ time.Time) (string, error) {
	return "", j.AI.RunJob(ctx)
}

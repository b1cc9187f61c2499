package jobs

import (
	"context"
	"reviewd/app/core/reviews"
	"time"
)

// Media is the media job: it processes waiting photo and video uploads (metadata
// removed, renditions, video poster). Uploads are claimed atomically, so a console
// run and serve's schedule never process the same file.
type Media struct {
	Reviews *reviews.Service
	// Batch is the most uploads one run processes (default 50).
	Batch int
}

// Name is the job name.
func (Media) Name() string { return "media" }

// Run processes the uploads waiting at now.
func (j Media) Run(ctx context.Context, now time.Time) (string, error) {
	n := j.Batch
	if n <= 0 {
		n = 50
	}
	run, err := j.Reviews.ProcessMedia(ctx, now, n)
	return run.String(), err
}

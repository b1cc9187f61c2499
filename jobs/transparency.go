package jobs

import (
	"context"
	"fmt"
	"time"

	"reviewd/app/core/transparency"
)

// Transparency is the transparency job: it signs a checkpoint of the transparency
// log when the log grew since the latest one.
type Transparency struct{ Log *transparency.Service }

// Name is the job name.
func (Transparency) Name() string { return "transparency" }

// Run signs a checkpoint when there is something new.
func (j Transparency) Run(ctx context.Context, _ time.Time) (string, error) {
	n, signed, err := j.Log.SignCheckpoint(ctx)
	if err != nil || !signed {
		return "", err
	}
	return fmt.Sprintf("signed checkpoint of %d entries", n), nil
}

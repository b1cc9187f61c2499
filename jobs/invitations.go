package jobs

import (
	"context"
	"time"

	"reviewd/app/core"
)

// Invitations is the invitations job: it creates due invitations and reminders and
// sends every due message (first sends and retries) by the brand's route, e-mail or
// notice.
type Invitations struct{ Core *core.Core }

// Name is the job name.
func (Invitations) Name() string { return "invitations" }

// Run does the work due at now.
func (j Invitations) Run(ctx context.Context, now time.Time) (string, error) {
	r, err := j.Core.RunInvitations(ctx, now)
	return r.String(), err
}

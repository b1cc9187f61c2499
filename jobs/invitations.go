package jobs

import (
	"context"
	"reviewd/app/core/sending"
	"time"
)

// Invitations is the invitations job: it creates due invitations and reminders and
// sends every due message (first sends and retries) by the brand's route, e-mail or
// notice.
type Invitations struct{ Sending *sending.Service }

// Name is the job name.
func (Invitations) Name() string { return "invitations" }

// Run does the work due at now.
func (j Invitations) Run(ctx context.Context, now time.Time) (string, error) {
	r, err := j.Sending.RunInvitations(ctx, now)
	return r.String(), err
}

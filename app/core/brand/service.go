// Package brand owns what the brand decides: settings, market rules and their
// versions (policies), removal and rejection reasons, rating-topic templates and the
// word lists.
package brand

import (
	"context"

	"reviewd/app/core"
	"reviewd/store"
)

// Service is the brand domain service.
type Service struct {
	DB *store.DB
	// Recorder writes the activity history.
	*core.Recorder
	core.Clock
	// Passwords makes the notification password of own-system sending.
	Passwords Passwords
}

// Passwords makes stored passwords (the users, keys and passwords code).
type Passwords interface {
	CreatePassword(ctx context.Context, a *core.Actor, purpose, channelCode string) (core.CreatedPassword, error)
}

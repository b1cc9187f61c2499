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
	// Senders checks a new sender address (the channels service: verified domains
	// and DNS).
	Senders SenderCheck
	// WhatsApp is true when the WhatsApp route is configured (deliveries lists it).
	WhatsApp bool
}

// SenderCheck checks a sender address: invalid / sender_address,
// sender_domain_unverified, 502 sender_domain_check_failed / dns_unreachable.
type SenderCheck interface {
	CheckSender(ctx context.Context, address string) error
}

// Passwords makes stored passwords (the users, keys and passwords code).
type Passwords interface {
	CreatePassword(ctx context.Context, a *core.Actor, purpose, channelCode string) (core.CreatedPassword, error)
}

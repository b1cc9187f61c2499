// Package buyer owns what proves a customer bought something: review and answer
// tokens, the reviewable rule of an order line, the order check, and the viewer
// (a signed-in customer's own reviews and open lines).
package buyer

import (
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Service is the buyer domain service.
type Service struct {
	DB *store.DB
	// Keys seals addresses and pseudonymises the order and customer references.
	Keys *core.Keyring
	// Recorder writes the activity history.
	*core.Recorder
	core.Clock
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}

// Package orders owns the order side of reviewd: order and delivery ingest, the
// effects of order changes on invitations and reviews, order connections read from
// store platforms, and the erasure of customer data.
package orders

import (
	"context"
	"log/slog"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Service is the order domain service.
type Service struct {
	DB *store.DB
	// Keys seals customer addresses and pseudonymises references.
	Keys *core.Keyring
	// Recorder writes the activity history.
	*core.Recorder
	core.Clock
	Log *slog.Logger
	// Outbound is the SSRF-safe client of order-connection reads.
	Outbound *outbound.Client
	// Wait pauses for a platform's request limit (product rating fields); nil
	// waits on a timer.
	Wait func(context.Context, time.Duration) error
	// Platforms are the readers of the order connections' platforms.
	Platforms Platforms
	// Reviews marks reviews Returned when their order line is refunded or returned.
	Reviews *reviews.Service
	// Sending queues experience invitations for cancelled or returned lines.
	Sending *sending.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}

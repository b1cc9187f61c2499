// Package orders owns the order side of reviewd: order and delivery ingest, the
// effects of order changes on invitations and reviews, order connections read from
// store platforms, and the erasure of customer data.
package orders

import (
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
)

// Service is the order domain service.
type Service struct {
	*core.Core
	// Reviews marks reviews Returned when their order line is refunded or returned.
	Reviews *reviews.Service
	// Sending queues experience invitations for cancelled or returned lines.
	Sending *sending.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}

// New builds the order service.
func New(c *core.Core, rv *reviews.Service, snd *sending.Service, br *brand.Service) *Service {
	return &Service{Core: c, Reviews: rv, Sending: snd, Brand: br}
}

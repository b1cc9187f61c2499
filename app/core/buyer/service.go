// Package buyer owns what proves a customer bought something: review and answer
// tokens, the reviewable rule of an order line, the order check, and the viewer
// (a signed-in customer's own reviews and open lines).
package buyer

import (
	"reviewd/app/core"
	"reviewd/app/core/brand"
)

// Service is the buyer domain service.
type Service struct {
	*core.Core
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}

// New builds the buyer service.
func New(c *core.Core, br *brand.Service) *Service { return &Service{Core: c, Brand: br} }

// Package sending owns what reviewd sends and what comes back: invitations and
// reminders, notices to store servers, opt-outs, mail events and the send log.
package sending

import (
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
)

// Service is the sending domain service.
type Service struct {
	*core.Core
	// Buyer issues the tokens of the links and tells which lines can be reviewed.
	Buyer *buyer.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}

// New builds the sending service.
func New(c *core.Core, b *buyer.Service, br *brand.Service) *Service {
	return &Service{Core: c, Buyer: b, Brand: br}
}

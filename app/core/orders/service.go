// Package orders owns the order side of reviewd: order and delivery ingest, the
// effects of order changes on invitations and reviews, order connections read from
// store platforms, and the erasure of customer data.
package orders

import "reviewd/app/core"

// Service is the order domain service.
type Service struct {
	*core.Core
}

// New builds the order service.
func New(c *core.Core) *Service { return &Service{Core: c} }

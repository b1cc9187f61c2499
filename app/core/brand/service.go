// Package brand owns what the brand decides: settings, market rules and their
// versions (policies), removal and rejection reasons, rating-topic templates and the
// word lists.
package brand

import "reviewd/app/core"

// Service is the brand domain service.
type Service struct {
	*core.Core
}

// New builds the brand service.
func New(c *core.Core) *Service { return &Service{Core: c} }

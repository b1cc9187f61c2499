// Package checks owns the automatic content checks of reviews and answers (personal
// data, links, profanity, health claims, brand terms, duplicates) and the brand's
// term list.
package checks

import "reviewd/app/core"

// Service is the content-check domain service.
type Service struct {
	*core.Core
}

// New builds the content-check service.
func New(c *core.Core) *Service { return &Service{Core: c} }

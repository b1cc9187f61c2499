// Package reviews owns the life of a review: writing and revising, media uploads and
// processing, publishing, moderation, the admin lists, the trace, reports and votes.
// It is the only package that writes review state, and every such write refreshes
// the read model (AfterReviewStateChange).
package reviews

import "reviewd/app/core"

// Service is the review domain service.
type Service struct {
	*core.Core
}

// New builds the review service.
func New(c *core.Core) *Service { return &Service{Core: c} }

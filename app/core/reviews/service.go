// Package reviews owns the life of a review: writing and revising, media uploads and
// processing, publishing, moderation, the admin lists, the trace, reports and votes.
// It is the only package that writes review state, and every such write refreshes
// the read model (AfterReviewStateChange).
package reviews

import (
	"sync"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/checks"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/sending"
	"reviewd/app/media"
)

// Service is the review domain service.
type Service struct {
	*core.Core
	// Sending queues rejection notices and sends them.
	Sending *sending.Service
	// Buyer reads and verifies the customer tokens.
	Buyer *buyer.Service
	// Checks runs the automatic content checks.
	Checks *checks.Service
	// Read is the read model every review-state write refreshes.
	Read *readmodel.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
	// Media is where processed photos and videos are kept (media.store); nil is
	// the local folder MediaDir.
	Media media.Store
	// publicSync orders the public-copy updates of this process (media_store.go).
	publicSync sync.Mutex
}

// New builds the review service.
func New(c *core.Core, snd *sending.Service, read *readmodel.Service, b *buyer.Service, chk *checks.Service, br *brand.Service) *Service {
	return &Service{Core: c, Sending: snd, Read: read, Buyer: b, Checks: chk, Brand: br}
}

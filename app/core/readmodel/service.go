// Package readmodel owns what the storefront reads: product figures, the review
// list and search, server-rendered HTML with JSON-LD, the method statement, view
// counts and the answer caches.
package readmodel

import (
	"reviewd/app/core"
	"reviewd/app/core/brand"
)

// Service is the read-model domain service.
type Service struct {
	*core.Core
	// cache holds the built answers, channel configurations and verified callers of
	// this service (one per opened data folder).
	cache *readCaches
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
	// MediaPublicURL is media.public_url: the address media files are served at
	// ("<it>/<media id>/<file>"); empty is {public_url}/media.
	MediaPublicURL string
}

// New builds the read-model service.
func New(c *core.Core, br *brand.Service) *Service {
	return &Service{Core: c, cache: &readCaches{list: newAnswerCache(), ssr: newAnswerCache()}, Brand: br}
}

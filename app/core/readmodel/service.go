// Package readmodel owns what the storefront reads: product figures, the review
// list and search, server-rendered HTML with JSON-LD, the method statement, view
// counts and the answer caches.
package readmodel

import "reviewd/app/core"

// Service is the read-model domain service.
type Service struct {
	*core.Core
	// cache holds the built answers, channel configurations and verified callers of
	// this service (one per opened data folder).
	cache *readCaches
}

// New builds the read-model service.
func New(c *core.Core) *Service {
	return &Service{Core: c, cache: &readCaches{list: newAnswerCache(), ssr: newAnswerCache()}}
}

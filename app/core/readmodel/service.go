// Package readmodel owns what the storefront reads: product figures, the review
// list and search, server-rendered HTML with JSON-LD, the method statement, view
// counts and the answer caches.
package readmodel

import (
	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/brand"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Service is the read-model domain service.
type Service struct {
	DB *store.DB
	// Recorder writes the activity history.
	*core.Recorder
	core.Clock
	// PublicURL is reviewd's public address (links in the served HTML).
	PublicURL string
	// cache holds the built answers, channel configurations and verified callers of
	// this service (one per opened data folder).
	cache *readCaches
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
	// MediaPublicURL is media.public_url: the address media files are served at
	// ("<it>/<media id>/<file>"); empty is {public_url}/media.
	MediaPublicURL string
	// Outbound fetches a method statement's external page to check it.
	Outbound *outbound.Client
	// AI is the AI package: the stored summaries shown while ai_summary_enabled
	// (nil or off: ai_summary stays null).
	AI *ai.Service
}

// New builds the read-model service from s (its exported fields), with empty caches.
func New(s Service) *Service {
	s.cache = &readCaches{list: newAnswerCache(), ssr: newAnswerCache(), badges: newAnswerCache()}
	return &s
}

// Package checks owns the automatic content checks of reviews and answers (personal
// data, links, profanity, health claims, brand terms, duplicates) and the brand's
// term list.
package checks

import (
	"context"
	"regexp"
	"sync"

	"reviewd/app/core"
	"reviewd/store"
)

// Service is the content-check domain service.
type Service struct {
	DB *store.DB
	// Recorder writes the activity history.
	*core.Recorder
	terms termCache
	// AI runs the ai_review check (nil while ai.provider is off: no such check).
	AI ContentReviewer
}

// ContentReviewer gives the content reasons of the ai_review check of a stored
// review in tx (app/core/ai; connected by app.NewDomain).
type ContentReviewer interface {
	ReviewContent(ctx context.Context, tx *store.Tx, r store.Review) ([]string, error)
}

// termCache keeps the compiled brand expressions of one service by their text.
// Expressions are validated when saved, so it holds at most the saved list and the
// expressions tried since the service started.
type termCache struct {
	m sync.Map // pattern -> *regexp.Regexp
}

// compile returns the compiled expression of pattern, compiling it on first use.
func (c *termCache) compile(pattern string) (*regexp.Regexp, error) {
	if re, ok := c.m.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := CompileTerm(pattern)
	if err != nil {
		return nil, err
	}
	c.m.Store(pattern, re)
	return re, nil
}

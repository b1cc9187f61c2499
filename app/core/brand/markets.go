package brand

import (
	"context"
	"errors"
	"time"

	"reviewd/store"
)

// Sort codes of review lists.
const (
	SortNewest     = "newest"
	SortOldest     = "oldest"
	SortRatingHigh = "rating_high"
	SortRatingLow  = "rating_low"
	SortHelpful    = "helpful"
)

// AllSorts lists every sort code the service knows, in display order.
var AllSorts = []string{SortNewest, SortHelpful, SortRatingHigh, SortRatingLow, SortOldest}

// MarketRule is the rule set of one market: the service's own (Own false) or a brand
// version (Own true) that may only tighten what the service's rule allows.
type MarketRule struct {
	Market                  string
	Own                     bool
	VerificationRequired    bool
	ReviewWindowDays        int
	AllowedSorts            []string
	DefaultSort             string
	SortLocked              bool
	MethodStatementRequired bool
	SourceLabelRequired     bool
	StreamsTogether         bool // syndicated and own reviews shown in one stream
	ResolutionInline        bool // resolution notes shown under the review
	Version                 string
	ValidFrom               time.Time
}

// builtinRules are the service's rules for the markets it ships. The reasons for
// each value are in docs/decisions.md ("Built-in market rules").
var builtinRules = map[string]MarketRule{
	"TR": {
		Market: "TR", VerificationRequired: true, ReviewWindowDays: 180,
		AllowedSorts: []string{SortNewest}, DefaultSort: SortNewest, SortLocked: true,
		MethodStatementRequired: true, SourceLabelRequired: true, StreamsTogether: false, ResolutionInline: true,
		Version: "TR-2026-10",
	},
	"DE": {
		Market: "DE", VerificationRequired: false, ReviewWindowDays: 365,
		AllowedSorts: AllSorts, DefaultSort: SortNewest, SortLocked: false,
		MethodStatementRequired: true, SourceLabelRequired: true, StreamsTogether: false, ResolutionInline: true,
		Version: "DE-2026-10",
	},
	"GB": {
		Market: "GB", VerificationRequired: false, ReviewWindowDays: 365,
		AllowedSorts: AllSorts, DefaultSort: SortNewest, SortLocked: false,
		MethodStatementRequired: true, SourceLabelRequired: true, StreamsTogether: true, ResolutionInline: true,
		Version: "GB-2026-10",
	},
	"US": {
		Market: "US", VerificationRequired: false, ReviewWindowDays: 365,
		AllowedSorts: AllSorts, DefaultSort: SortHelpful, SortLocked: false,
		MethodStatementRequired: false, SourceLabelRequired: true, StreamsTogether: true, ResolutionInline: true,
		Version: "US-2026-10",
	},
}

// BuiltinMarkets lists the markets the service ships rules for.
func BuiltinMarkets() []string { return []string{"DE", "GB", "TR", "US"} }

// BuiltinRule returns the service's own rule of a market.
func BuiltinRule(market string) (MarketRule, bool) {
	r, ok := builtinRules[market]
	if ok {
		r.AllowedSorts = append([]string(nil), r.AllowedSorts...)
	}
	return r, ok
}

// RuleFor returns the rule in force for a channel of a market at now: the newest
// brand version whose valid_from has come (for that channel, else for the market),
// else the service's rule. ok is false when the market has no rule at all.
func (c *Service) RuleFor(ctx context.Context, q *store.Q, market string, channelID int64, now time.Time) (MarketRule, bool, error) {
	base, ok := BuiltinRule(market)
	if !ok {
		return MarketRule{}, false, nil
	}
	v, err := q.MarketRuleInForce(ctx, market, channelID, now)
	if errors.Is(err, store.ErrNotFound) {
		return base, true, nil
	}
	if err != nil {
		return MarketRule{}, false, err
	}
	r := base
	r.Own = true
	r.VerificationRequired = v.VerificationRequired
	r.ReviewWindowDays = v.ReviewWindowDays
	r.AllowedSorts = v.AllowedSorts
	r.DefaultSort = v.DefaultSort
	r.ValidFrom = v.ValidFrom
	r.Version = market + "-brand-" + v.ValidFrom.Format("20060102150405")
	return r, true, nil
}

package brand

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Limits of a brand version of a market rule (spec 3, "Limits").
const (
	MinReviewWindowDays = 7
	MaxReviewWindowDays = 365
)

// PolicyLimits are what a brand version of a market's rule may choose: the review
// window range, the sort options the service's rule offers, and whether the
// service's rule requires proof of purchase (then it cannot be turned off).
type PolicyLimits struct {
	ReviewWindowDaysMin int      `json:"review_window_days_min"`
	ReviewWindowDaysMax int      `json:"review_window_days_max"`
	SortOptions         []string `json:"sort_options"`
	VerificationLocked  bool     `json:"verification_locked"`
}

// PolicyRow is one rule of GET /admin/v1/policies: the service's rule of a market
// (own false) or a brand version (own true, for the whole market or one channel).
// in_force marks the rule that applies now (for its channel, else for the market);
// scheduled marks a brand version whose valid_from is still ahead.
type PolicyRow struct {
	ID                      string       `json:"id"`
	Market                  string       `json:"market"`
	Channel                 string       `json:"channel"`
	Own                     bool         `json:"own"`
	InForce                 bool         `json:"in_force"`
	Scheduled               bool         `json:"scheduled"`
	Version                 string       `json:"version"`
	VerificationRequired    bool         `json:"verification_required"`
	ReviewWindowDays        int          `json:"review_window_days"`
	AllowedSortOptions      []string     `json:"allowed_sort_options"`
	DefaultSortOption       string       `json:"default_sort_option"`
	SortLocked              bool         `json:"sort_locked"`
	MethodStatementRequired bool         `json:"method_statement_required"`
	SourceLabelRequired     bool         `json:"source_label_required"`
	StreamsTogether         bool         `json:"streams_together"`
	ResolutionInline        bool         `json:"resolution_inline"`
	ValidFrom               *time.Time   `json:"valid_from"`
	CreatedBy               string       `json:"created_by,omitempty"`
	Limits                  PolicyLimits `json:"limits"`
}

// PolicyList is the answer of GET /admin/v1/policies.
type PolicyList struct {
	Items []PolicyRow `json:"items"`
}

func marketPolicyLimits(base MarketRule) PolicyLimits {
	return PolicyLimits{ReviewWindowDaysMin: MinReviewWindowDays, ReviewWindowDaysMax: MaxReviewWindowDays,
		SortOptions: append([]string(nil), base.AllowedSorts...), VerificationLocked: base.VerificationRequired}
}

func policyServiceRow(base MarketRule, inForce bool) PolicyRow {
	return PolicyRow{ID: "service:" + base.Market, Market: base.Market, Own: false, InForce: inForce, Version: base.Version,
		VerificationRequired: base.VerificationRequired, ReviewWindowDays: base.ReviewWindowDays,
		AllowedSortOptions: append([]string(nil), base.AllowedSorts...), DefaultSortOption: base.DefaultSort,
		SortLocked: base.SortLocked, MethodStatementRequired: base.MethodStatementRequired,
		SourceLabelRequired: base.SourceLabelRequired, StreamsTogether: base.StreamsTogether,
		ResolutionInline: base.ResolutionInline, Limits: marketPolicyLimits(base)}
}

func policyVersionRow(base MarketRule, v store.MarketRuleVersion, channel string, inForce bool, now time.Time) PolicyRow {
	from := v.ValidFrom
	return PolicyRow{ID: "rule_" + strconv.FormatInt(v.ID, 10), Market: v.Market, Channel: channel, Own: true, InForce: inForce,
		Scheduled: from.After(now), Version: v.Market + "-brand-" + from.Format("20060102150405"),
		VerificationRequired: v.VerificationRequired, ReviewWindowDays: v.ReviewWindowDays,
		AllowedSortOptions: v.AllowedSorts, DefaultSortOption: v.DefaultSort, SortLocked: base.SortLocked,
		MethodStatementRequired: base.MethodStatementRequired, SourceLabelRequired: base.SourceLabelRequired,
		StreamsTogether: base.StreamsTogether, ResolutionInline: base.ResolutionInline, ValidFrom: &from,
		CreatedBy: v.CreatedBy, Limits: marketPolicyLimits(base)}
}

// inForceID is the id of the brand version in force for a market and channel (0
// for the market itself) at now; 0 when the service's rule applies.
func policyInForceID(ctx context.Context, q *store.Q, market string, channelID int64, now time.Time) (int64, error) {
	v, err := q.MarketRuleInForce(ctx, market, channelID, now)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	return v.ID, err
}

// Policies lists the market rules (GET /admin/v1/policies): for every market the
// service ships a rule for (only the channel's market with channel), the service's
// rule and the brand versions, newest first, each with in_force, scheduled and the
// market's limits. With channel, in_force is answered for that channel and other
// channels' versions are left out. Errors: invalid / channel.
func (c *Service) Policies(ctx context.Context, channel string) (PolicyList, error) {
	q := c.DB.Read()
	now := q.Now
	out := PolicyList{Items: []PolicyRow{}}
	markets := BuiltinMarkets()
	var only store.Channel
	if channel != "" {
		ch, err := core.ChannelFilter(ctx, q, channel, "")
		if err != nil {
			return out, err
		}
		only, markets = ch, []string{ch.Market}
	}
	codes, err := core.ChannelCodes(ctx, q)
	if err != nil {
		return out, err
	}
	versions, err := q.ListMarketRules(ctx)
	if err != nil {
		return out, err
	}
	for _, m := range markets {
		base, ok := BuiltinRule(m)
		if !ok {
			continue
		}
		current, err := policyInForceID(ctx, q, m, only.ID, now)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, policyServiceRow(base, current == 0))
		for _, v := range versions {
			if v.Market != m || (only.ID != 0 && v.ChannelID != 0 && v.ChannelID != only.ID) {
				continue
			}
			in := v.ID == current
			if only.ID == 0 && v.ChannelID != 0 {
				id, err := policyInForceID(ctx, q, m, v.ChannelID, now)
				if err != nil {
					return out, err
				}
				in = id == v.ID
			}
			out.Items = append(out.Items, policyVersionRow(base, v, codes[v.ChannelID], in, now))
		}
	}
	return out, nil
}

// PolicyInput is the body of POST /admin/v1/policies, read field by field so a
// wrong type names its field.
type PolicyInput map[string]json.RawMessage

func (in PolicyInput) has(k string) bool {
	v, ok := in[k]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

func (in PolicyInput) str(k string) (string, error) {
	if !in.has(k) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(in[k], &s); err != nil {
		return "", core.Invalid(k)
	}
	return strings.TrimSpace(s), nil
}

// CreatePolicy opens a brand version of a market's rule (POST /admin/v1/policies):
// only in a panel session with the manage-market-rules permission (a key with write
// gets 403 forbidden / panel_session_required, other keys and users scope_missing).
// The body names a market, or a channel (a version for that channel only). Fields
// not sent keep the value of the rule in force. valid_from (RFC 3339, default now)
// may not be in the past. Errors: invalid / market_required, market, channel,
// channel_market_mismatch, verification_required, verification_locked,
// review_window_days, review_window_days_out_of_range, allowed_sort_options,
// allowed_sort_options_required, sort_not_offered: <option>, default_sort_option,
// default_sort_not_allowed, valid_from, valid_from_past.
func (c *Service) CreatePolicy(ctx context.Context, a *core.Actor, in PolicyInput) (PolicyRow, error) {
	switch {
	case !a.IsPanel() && a.Can(core.PermWrite):
		return PolicyRow{}, core.ErrPanelSession
	case !a.IsPanel() || !a.Can(core.PermMarketRules):
		return PolicyRow{}, core.ErrScopeMissing
	}
	var row PolicyRow
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		v, base, code, err := c.policyVersion(ctx, tx.Q, a, in)
		if err != nil {
			return err
		}
		if v, err = tx.CreateMarketRule(ctx, v); err != nil {
			return err
		}
		id, err := policyInForceID(ctx, tx.Q, v.Market, v.ChannelID, tx.Now)
		if err != nil {
			return err
		}
		row = policyVersionRow(base, v, code, id == v.ID, tx.Now)
		return c.Record(ctx, tx, a, "market_rule.created", "market_rule", row.ID, map[string]any{"market": v.Market,
			"channel": code, "verification_required": v.VerificationRequired, "review_window_days": v.ReviewWindowDays,
			"allowed_sort_options": v.AllowedSorts, "default_sort_option": v.DefaultSort, "valid_from": v.ValidFrom})
	})
	return row, err
}

// policyVersion validates a policy body into a brand version.
func (c *Service) policyVersion(ctx context.Context, q *store.Q, a *core.Actor, in PolicyInput) (store.MarketRuleVersion, MarketRule, string, error) {
	var v store.MarketRuleVersion
	market, err := in.str("market")
	if err != nil {
		return v, MarketRule{}, "", err
	}
	market = strings.ToUpper(market)
	code, err := in.str("channel")
	if err != nil {
		return v, MarketRule{}, "", err
	}
	if code != "" {
		ch, err := q.ChannelByCode(ctx, code)
		if errors.Is(err, store.ErrNotFound) {
			return v, MarketRule{}, "", core.Invalid("channel")
		}
		if err != nil {
			return v, MarketRule{}, "", err
		}
		if market != "" && market != ch.Market {
			return v, MarketRule{}, "", core.Invalid("channel_market_mismatch")
		}
		market, v.ChannelID = ch.Market, ch.ID
	}
	if market == "" {
		return v, MarketRule{}, "", core.Invalid("market_required")
	}
	base, ok := BuiltinRule(market)
	if !ok {
		return v, MarketRule{}, "", core.Invalid("market")
	}
	cur, _, err := c.RuleFor(ctx, q, market, v.ChannelID, q.Now)
	if err != nil {
		return v, MarketRule{}, "", err
	}
	v.Market, v.CreatedBy = market, a.Name
	v.VerificationRequired, v.ReviewWindowDays = cur.VerificationRequired, cur.ReviewWindowDays
	v.AllowedSorts, v.DefaultSort = cur.AllowedSorts, cur.DefaultSort

	if in.has("verification_required") {
		if err := json.Unmarshal(in["verification_required"], &v.VerificationRequired); err != nil {
			return v, base, "", core.Invalid("verification_required")
		}
	}
	if base.VerificationRequired && !v.VerificationRequired {
		return v, base, "", core.Invalid("verification_locked")
	}
	if in.has("review_window_days") {
		var f float64
		if err := json.Unmarshal(in["review_window_days"], &f); err != nil || f != math.Trunc(f) {
			return v, base, "", core.Invalid("review_window_days")
		}
		if f < MinReviewWindowDays || f > MaxReviewWindowDays {
			return v, base, "", core.Invalid("review_window_days_out_of_range")
		}
		v.ReviewWindowDays = int(f)
	}
	if in.has("allowed_sort_options") {
		var opts []string
		if err := json.Unmarshal(in["allowed_sort_options"], &opts); err != nil {
			return v, base, "", core.Invalid("allowed_sort_options")
		}
		if len(opts) == 0 {
			return v, base, "", core.Invalid("allowed_sort_options_required")
		}
		seen := map[string]bool{}
		v.AllowedSorts = nil
		for _, o := range opts {
			o = strings.TrimSpace(o)
			if !slices.Contains(base.AllowedSorts, o) {
				return v, base, "", core.Invalidf("sort_not_offered", o)
			}
			if !seen[o] {
				seen[o] = true
				v.AllowedSorts = append(v.AllowedSorts, o)
			}
		}
		// Keep the service's display order.
		sort.SliceStable(v.AllowedSorts, func(i, j int) bool {
			return policySortRank(v.AllowedSorts[i]) < policySortRank(v.AllowedSorts[j])
		})
	}
	if in.has("default_sort_option") {
		d, err := in.str("default_sort_option")
		if err != nil {
			return v, base, "", err
		}
		v.DefaultSort = d
		if !slices.Contains(v.AllowedSorts, d) {
			return v, base, "", core.Invalid("default_sort_not_allowed")
		}
	} else if !slices.Contains(v.AllowedSorts, v.DefaultSort) {
		if slices.Contains(v.AllowedSorts, base.DefaultSort) {
			v.DefaultSort = base.DefaultSort
		} else {
			v.DefaultSort = v.AllowedSorts[0]
		}
	}
	v.ValidFrom = q.Now
	if in.has("valid_from") {
		s, err := in.str("valid_from")
		if err != nil {
			return v, base, "", core.Invalid("valid_from")
		}
		t, ok := core.ParseTimestamp(s)
		if !ok {
			return v, base, "", core.Invalid("valid_from")
		}
		if t.Before(q.Now) {
			return v, base, "", core.Invalid("valid_from_past")
		}
		v.ValidFrom = t.UTC()
	}
	code = ""
	if v.ChannelID != 0 {
		code, _ = in.str("channel")
	}
	return v, base, code, nil
}

func policySortRank(s string) int {
	for i, x := range AllSorts {
		if x == s {
			return i
		}
	}
	return len(AllSorts)
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// MarketRuleVersion is a brand version of a market rule.
type MarketRuleVersion struct {
	ID                   int64
	Market               string
	ChannelID            int64
	VerificationRequired bool
	ReviewWindowDays     int
	AllowedSorts         []string
	DefaultSort          string
	ValidFrom            time.Time
	CreatedBy            string
	CreatedAt            time.Time
}

const qRuleCols = `id, market, channel_id, verification_required, review_window_days, allowed_sorts, default_sort, valid_from, created_by, created_at`

func scanRule(sc interface{ Scan(...any) error }) (MarketRuleVersion, error) {
	var r MarketRuleVersion
	var ch sql.NullInt64
	var ver int
	var sorts string
	var from, created int64
	err := sc.Scan(&r.ID, &r.Market, &ch, &ver, &r.ReviewWindowDays, &sorts, &r.DefaultSort, &from, &r.CreatedBy, &created)
	r.ChannelID = idOf(ch)
	r.VerificationRequired = ver == 1
	r.AllowedSorts = strings.Split(sorts, ",")
	r.ValidFrom = Time(from)
	r.CreatedAt = Time(created)
	return r, translate(err)
}

// CreateMarketRule stores a brand version of a market rule.
func (q *Tx) CreateMarketRule(ctx context.Context, r MarketRuleVersion) (MarketRuleVersion, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO market_rules (market, channel_id, verification_required, review_window_days, allowed_sorts, default_sort, valid_from, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.Market, nullID(r.ChannelID), boolInt(r.VerificationRequired), r.ReviewWindowDays,
		strings.Join(r.AllowedSorts, ","), r.DefaultSort, Ms(r.ValidFrom), r.CreatedBy, Ms(q.Now))
	if err != nil {
		return r, fmt.Errorf("store: create market rule: %w", translate(err))
	}
	r.ID, _ = res.LastInsertId()
	r.CreatedAt = q.Now
	return r, nil
}

// MarketRuleInForce is the newest brand version in force at now for a channel (its
// own version first) or its market; ErrNotFound when there is none.
func (q *Q) MarketRuleInForce(ctx context.Context, market string, channelID int64, now time.Time) (MarketRuleVersion, error) {
	return scanRule(q.c.QueryRowContext(ctx, `SELECT `+qRuleCols+` FROM market_rules
		WHERE market = ? AND (channel_id IS NULL OR channel_id = ?) AND valid_from <= ?
		ORDER BY (channel_id IS NOT NULL) DESC, valid_from DESC, id DESC LIMIT 1`, market, channelID, Ms(now)))
}

// ListMarketRules lists every brand version, newest first.
func (q *Q) ListMarketRules(ctx context.Context) ([]MarketRuleVersion, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qRuleCols+` FROM market_rules ORDER BY valid_from DESC, id DESC`)
	return collect(rows, err, scanRule)
}

package store

import (
	"context"
	"database/sql"
	"time"
)

// ReadState reads, in one statement, the read generation (see read_generation in
// schema.sql) and the revisions of a product's figures in every market.
func (q *Q) ReadState(ctx context.Context, scope, key string) (gen int64, revs []ProductRevision, err error) {
	rows, err := q.c.QueryContext(ctx, `SELECT g.n, p.market, p.revision FROM read_generation g
		LEFT JOIN product_stats p ON p.scope = ? AND p.product_key = ? ORDER BY p.market`, scope, key)
	if err != nil {
		return 0, nil, translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var market sql.NullString
		var rev sql.NullInt64
		if err := rows.Scan(&gen, &market, &rev); err != nil {
			return 0, nil, translate(err)
		}
		if market.Valid {
			revs = append(revs, ProductRevision{Market: market.String, Revision: rev.Int64})
		}
	}
	return gen, revs, translate(rows.Err())
}

// NextMarketRuleChange is the earliest valid_from after now of a brand rule
// version of a market (or of one of its channels); zero when none is scheduled.
func (q *Q) NextMarketRuleChange(ctx context.Context, market string, channelID int64, now time.Time) (time.Time, error) {
	var next sql.NullInt64
	err := q.c.QueryRowContext(ctx, `SELECT min(valid_from) FROM market_rules WHERE market = ?
		AND (channel_id IS NULL OR channel_id = ?) AND valid_from > ?`, market, channelID, Ms(now)).Scan(&next)
	return NullTime(next), translate(err)
}

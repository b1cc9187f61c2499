package store

import (
	"context"
	"time"
)

// CDNPurge is one waiting CDN purge (cdn_purges): a product's public answers, or
// every answer when Scope and ProductKey are empty.
type CDNPurge struct {
	Scope      string
	ProductKey string
	Seq        int64
	Attempts   int
}

// DueCDNPurges lists up to limit waiting purges whose next attempt is due at now,
// those waiting longest (fewest attempts) first.
func (db *DB) DueCDNPurges(ctx context.Context, now time.Time, limit int) ([]CDNPurge, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT scope, product_key, seq, attempts FROM cdn_purges
		WHERE next_at <= ? ORDER BY attempts, scope, product_key LIMIT ?`, Ms(now), limit)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []CDNPurge
	for rows.Next() {
		var p CDNPurge
		if err := rows.Scan(&p.Scope, &p.ProductKey, &p.Seq, &p.Attempts); err != nil {
			return nil, translate(err)
		}
		out = append(out, p)
	}
	return out, translate(rows.Err())
}

// CDNPurgesSent deletes the purges that went out; a row changed since it was read
// (its seq moved on) stays for its own purge.
func (db *DB) CDNPurgesSent(ctx context.Context, ps []CDNPurge) error {
	return db.WithTx(ctx, func(tx *Tx) error {
		for _, p := range ps {
			if _, err := tx.c.ExecContext(ctx, `DELETE FROM cdn_purges WHERE scope = ? AND product_key = ? AND seq = ?`,
				p.Scope, p.ProductKey, p.Seq); err != nil {
				return translate(err)
			}
		}
		return nil
	})
}

// CDNPurgesFailed holds the purges back until next, counting the attempt; a row
// changed since it was read is due at once as it is.
func (db *DB) CDNPurgesFailed(ctx context.Context, ps []CDNPurge, next time.Time) error {
	return db.WithTx(ctx, func(tx *Tx) error {
		for _, p := range ps {
			if _, err := tx.c.ExecContext(ctx, `UPDATE cdn_purges SET attempts = attempts + 1, next_at = ?
				WHERE scope = ? AND product_key = ? AND seq = ?`, Ms(next), p.Scope, p.ProductKey, p.Seq); err != nil {
				return translate(err)
			}
		}
		return nil
	})
}

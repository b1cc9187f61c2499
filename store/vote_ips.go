package store

import (
	"context"
	"time"
)

// ClaimVoteIP records that the address-and-day hash ipDay has cast its counted vote
// on a review for visitor; it reports false when another visitor holds it.
func (q *Tx) ClaimVoteIP(ctx context.Context, reviewID int64, ipDay, visitor string) (bool, error) {
	if _, err := q.c.ExecContext(ctx, `INSERT OR IGNORE INTO review_vote_ips (review_id, ip_day, visitor, created_at)
		VALUES (?, ?, ?, ?)`, reviewID, ipDay, visitor, Ms(q.Now)); err != nil {
		return false, translate(err)
	}
	var holder string
	err := q.c.QueryRowContext(ctx, `SELECT visitor FROM review_vote_ips WHERE review_id = ? AND ip_day = ?`, reviewID, ipDay).Scan(&holder)
	return holder == visitor, translate(err)
}

// DeleteVoteIPsBefore deletes vote address records made before t.
func (q *Tx) DeleteVoteIPsBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM review_vote_ips WHERE created_at < ?`, Ms(t))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

package store

import (
	"context"
	"errors"
	"fmt"
)

// VoteOf returns a visitor's helpful vote on a review (up or down), "" when none.
func (q *Q) VoteOf(ctx context.Context, reviewID int64, visitor string) (string, error) {
	var v string
	err := translate(q.c.QueryRowContext(ctx, `SELECT vote FROM review_votes WHERE review_id = ? AND visitor = ?`,
		reviewID, visitor).Scan(&v))
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	return v, err
}

// SetVote records (or changes) a visitor's vote on a review.
func (q *Tx) SetVote(ctx context.Context, reviewID int64, visitor, vote string) error {
	now := Ms(q.Now)
	_, err := q.c.ExecContext(ctx, `INSERT INTO review_votes (review_id, visitor, vote, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (review_id, visitor) DO UPDATE SET vote = excluded.vote,
		updated_at = excluded.updated_at`, reviewID, visitor, vote, now, now)
	if err != nil {
		return fmt.Errorf("store: set vote: %w", translate(err))
	}
	return nil
}

// DeleteVote withdraws a visitor's vote on a review.
func (q *Tx) DeleteVote(ctx context.Context, reviewID int64, visitor string) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM review_votes WHERE review_id = ? AND visitor = ?`, reviewID, visitor)
	return translate(err)
}

// AddHelpfulCounts adds to a review's helpful and unhelpful counts (never below
// zero) and returns the new counts.
func (q *Tx) AddHelpfulCounts(ctx context.Context, reviewID int64, up, down int) (helpful, unhelpful int, err error) {
	err = q.c.QueryRowContext(ctx, `UPDATE reviews SET helpful_count = max(helpful_count + ?, 0),
		unhelpful_count = max(unhelpful_count + ?, 0) WHERE id = ? RETURNING helpful_count, unhelpful_count`,
		up, down, reviewID).Scan(&helpful, &unhelpful)
	return helpful, unhelpful, translate(err)
}

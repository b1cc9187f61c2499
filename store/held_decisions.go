package store

import (
	"context"
	"fmt"
	"time"
)

// HeldDecision is a panel approve or reject waiting out its undo window.
type HeldDecision struct {
	ReviewID  int64
	PublicID  string // the review's public id (read, never written)
	Event     string
	Reason    string
	FromState string
	Actor     string // JSON of who decided
	DecidedAt time.Time
	DueAt     time.Time
}

const (
	qHeldCols = `h.review_id, r.public_id, h.event, h.reason, h.from_state, h.actor, h.decided_at, h.due_at`
	qHeldFrom = ` FROM held_decisions h JOIN reviews r ON r.id = h.review_id`
	// One row per review: a second decision on a held review is a conflict.
	qHeldInsert = `INSERT INTO held_decisions (review_id, event, reason, from_state, actor, decided_at, due_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
)

func scanHeld(sc interface{ Scan(...any) error }) (HeldDecision, error) {
	var h HeldDecision
	var decided, due int64
	if err := sc.Scan(&h.ReviewID, &h.PublicID, &h.Event, &h.Reason, &h.FromState, &h.Actor, &decided, &due); err != nil {
		return h, translate(err)
	}
	h.DecidedAt, h.DueAt = Time(decided), Time(due)
	return h, nil
}

// HoldDecision stores a held decision; ErrConflict when the review has one.
func (q *Tx) HoldDecision(ctx context.Context, h HeldDecision) error {
	_, err := q.c.ExecContext(ctx, qHeldInsert, h.ReviewID, h.Event, h.Reason, h.FromState, h.Actor, Ms(h.DecidedAt), Ms(h.DueAt))
	if err != nil {
		return fmt.Errorf("store: hold decision: %w", translate(err))
	}
	return nil
}

// HeldDecisionOf finds the held decision of a review (ErrNotFound: none).
func (q *Q) HeldDecisionOf(ctx context.Context, reviewID int64) (HeldDecision, error) {
	return scanHeld(q.c.QueryRowContext(ctx, `SELECT `+qHeldCols+qHeldFrom+` WHERE h.review_id = ?`, reviewID))
}

// DueHeldDecisions lists the held decisions due at t, earliest first (at most limit).
func (q *Q) DueHeldDecisions(ctx context.Context, t time.Time, limit int) ([]HeldDecision, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qHeldCols+qHeldFrom+` WHERE h.due_at <= ? ORDER BY h.due_at, h.review_id LIMIT ?`, Ms(t), limit)
	return collect(rows, err, scanHeld)
}

// DropHeldDecision deletes a review's held decision and reports whether there was one.
func (q *Tx) DropHeldDecision(ctx context.Context, reviewID int64) (bool, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM held_decisions WHERE review_id = ?`, reviewID)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ReviewEvent is one entry of a review's history.
type ReviewEvent struct {
	ID        int64
	ReviewID  int64
	Event     string
	FromState string
	ToState   string
	Reason    string
	ActorType string
	ActorID   string
	ActorName string
	Detail    string // JSON object
	At        time.Time
}

// ReviewCheck is one automatic check result of a review.
type ReviewCheck struct {
	ID         int64
	ReviewID   int64
	Kind       string
	Outcome    string // passed or flagged
	Finding    string
	Field      string
	At         time.Time
	ResolvedAt time.Time
	Resolution string
	ResolvedBy string
}

// Open reports whether the check is a finding that awaits a decision.
func (c ReviewCheck) Open() bool { return c.Outcome == "flagged" && c.ResolvedAt.IsZero() }

const (
	qReviewEventCols = `id, review_id, event, from_state, to_state, reason, actor_type, actor_id, actor_name, detail, at`
	qReviewCheckCols = `id, review_id, kind, outcome, finding, field, at, resolved_at, resolution, resolved_by`
)

func scanReviewEvent(sc scanner) (ReviewEvent, error) {
	var e ReviewEvent
	var at int64
	err := sc.Scan(&e.ID, &e.ReviewID, &e.Event, &e.FromState, &e.ToState, &e.Reason, &e.ActorType, &e.ActorID,
		&e.ActorName, &e.Detail, &at)
	e.At = Time(at)
	return e, translate(err)
}

func scanReviewCheck(sc scanner) (ReviewCheck, error) {
	var c ReviewCheck
	var at int64
	var resolved sql.NullInt64
	err := sc.Scan(&c.ID, &c.ReviewID, &c.Kind, &c.Outcome, &c.Finding, &c.Field, &at, &resolved, &c.Resolution, &c.ResolvedBy)
	c.At, c.ResolvedAt = Time(at), NullTime(resolved)
	return c, translate(err)
}

// AddReviewEvent appends one history entry stamped q.Now.
func (q *Tx) AddReviewEvent(ctx context.Context, e ReviewEvent) error {
	if e.Detail == "" {
		e.Detail = "{}"
	}
	_, err := q.c.ExecContext(ctx, `INSERT INTO review_history (review_id, event, from_state, to_state, reason, actor_type,
		actor_id, actor_name, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ReviewID, e.Event, e.FromState, e.ToState, e.Reason, e.ActorType, e.ActorID, e.ActorName, e.Detail, Ms(q.Now))
	if err != nil {
		return fmt.Errorf("store: add review event: %w", translate(err))
	}
	return nil
}

// ReviewEvents lists a review's history, oldest first.
func (q *Q) ReviewEvents(ctx context.Context, reviewID int64) ([]ReviewEvent, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewEventCols+` FROM review_history WHERE review_id = ? ORDER BY at, id`, reviewID)
	return collect(rows, err, scanReviewEvent)
}

// AddReviewChecks stores check results stamped q.Now.
func (q *Tx) AddReviewChecks(ctx context.Context, cs []ReviewCheck) error {
	for _, c := range cs {
		_, err := q.c.ExecContext(ctx, `INSERT INTO review_checks (review_id, kind, outcome, finding, field, at)
			VALUES (?, ?, ?, ?, ?, ?)`, c.ReviewID, c.Kind, c.Outcome, c.Finding, c.Field, Ms(q.Now))
		if err != nil {
			return fmt.Errorf("store: add review check: %w", translate(err))
		}
	}
	return nil
}

// ReviewChecks lists a review's check results, oldest first.
func (q *Q) ReviewChecks(ctx context.Context, reviewID int64) ([]ReviewCheck, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewCheckCols+` FROM review_checks WHERE review_id = ? ORDER BY at, id`, reviewID)
	return collect(rows, err, scanReviewCheck)
}

// ResolveReviewChecks closes every open finding of a review with a resolution
// (approved, rejected, superseded, ...) and who resolved it; it returns how many were
// closed.
func (q *Tx) ResolveReviewChecks(ctx context.Context, reviewID int64, resolution, by string) (int64, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE review_checks SET resolved_at = ?, resolution = ?, resolved_by = ?
		WHERE review_id = ? AND outcome = 'flagged' AND resolved_at IS NULL`, Ms(q.Now), resolution, by, reviewID)
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// CountOpenChecks counts a review's open findings.
func (q *Q) CountOpenChecks(ctx context.Context, reviewID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM review_checks WHERE review_id = ? AND outcome = 'flagged'
		AND resolved_at IS NULL`, reviewID).Scan(&n)
	return n, translate(err)
}

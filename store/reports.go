package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Report is one visitor report of a review (review_reports row).
type Report struct {
	ID         int64
	PublicID   string
	ReviewID   int64
	ChannelID  int64
	Reason     string
	Note       string
	Visitor    string // keyed hash of the visitor key or IP address
	State      string // open or closed
	CreatedAt  time.Time
	ResolvedAt time.Time
	ResolvedBy string
}

const qReportCols = `id, public_id, review_id, channel_id, reason, note, visitor, state, created_at, resolved_at, resolved_by`

func scanReport(sc scanner) (Report, error) {
	var r Report
	var created int64
	var resolved sql.NullInt64
	err := sc.Scan(&r.ID, &r.PublicID, &r.ReviewID, &r.ChannelID, &r.Reason, &r.Note, &r.Visitor, &r.State, &created,
		&resolved, &r.ResolvedBy)
	r.CreatedAt, r.ResolvedAt = Time(created), NullTime(resolved)
	return r, translate(err)
}

// OpenReportOf finds a visitor's open report on a review; ErrNotFound when none.
func (q *Q) OpenReportOf(ctx context.Context, reviewID int64, visitor string) (Report, error) {
	return scanReport(q.c.QueryRowContext(ctx, `SELECT `+qReportCols+` FROM review_reports
		WHERE review_id = ? AND visitor = ? AND state = 'open'`, reviewID, visitor))
}

// CreateReport stores an open report stamped q.Now; a second open report of the
// same visitor on the review is ErrConflict.
func (q *Tx) CreateReport(ctx context.Context, r Report) (Report, error) {
	r.State, r.CreatedAt = "open", q.Now
	res, err := q.c.ExecContext(ctx, `INSERT INTO review_reports (public_id, review_id, channel_id, reason, note, visitor,
		state, created_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?)`, r.PublicID, r.ReviewID, r.ChannelID, r.Reason, r.Note,
		r.Visitor, Ms(q.Now))
	if err != nil {
		return r, fmt.Errorf("store: create report: %w", translate(err))
	}
	r.ID, _ = res.LastInsertId()
	return r, nil
}

// ReportsOfReview lists a review's reports, oldest first.
func (q *Q) ReportsOfReview(ctx context.Context, reviewID int64) ([]Report, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReportCols+` FROM review_reports WHERE review_id = ? ORDER BY id`, reviewID)
	return collect(rows, err, scanReport)
}

// CloseReports closes every open report of a review and returns how many were
// closed.
func (q *Tx) CloseReports(ctx context.Context, reviewID int64, by string) (int64, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE review_reports SET state = 'closed', resolved_at = ?, resolved_by = ?
		WHERE review_id = ? AND state = 'open'`, Ms(q.Now), by, reviewID)
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// CountOpenReports counts a review's open reports.
func (q *Q) CountOpenReports(ctx context.Context, reviewID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM review_reports WHERE review_id = ? AND state = 'open'`,
		reviewID).Scan(&n)
	return n, translate(err)
}

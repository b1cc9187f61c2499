package store

import (
	"context"
	"fmt"
	"strings"
)

// AdminReviewFilter selects reviews for the admin list, the moderation queue and
// their counters. Zero fields do not filter.
type AdminReviewFilter struct {
	ChannelID int64
	// ExceptChannelID counts only other channels (the queue's "elsewhere").
	ExceptChannelID int64
	State           string
	Market          string
	Rating          int
	Origin          string // own or imported
	FlagOpen        bool   // only reviews with an open check finding
	Reported        bool   // only reviews with an open report
	// NotHeld leaves out reviews with a held panel decision (held_decisions).
	NotHeld bool
	// Q searches title, text, product name and codes, order number, author name and
	// the order's e-mail address; QID (a full review id) matches that review only.
	Q      string
	QID    string
	Oldest bool
	// Limit < 0 lists every matching row.
	Limit, Offset int
}

// AdminReviewRow is a review with what the admin list adds.
type AdminReviewRow struct {
	Review
	ChannelCode string
	ReportsOpen int
	MediaCount  int // attached media not removed
}

func (f AdminReviewFilter) where() (string, []any) {
	w := ` WHERE 1=1`
	var args []any
	if f.ChannelID != 0 {
		w += ` AND r.channel_id = ?`
		args = append(args, f.ChannelID)
	}
	if f.ExceptChannelID != 0 {
		w += ` AND r.channel_id != ?`
		args = append(args, f.ExceptChannelID)
	}
	if f.State != "" {
		w += ` AND r.state = ?`
		args = append(args, f.State)
	}
	if f.Market != "" {
		w += ` AND r.market = ?`
		args = append(args, f.Market)
	}
	if f.Rating != 0 {
		w += ` AND r.rating = ?`
		args = append(args, f.Rating)
	}
	if f.Origin != "" {
		w += ` AND r.origin = ?`
		args = append(args, f.Origin)
	}
	if f.FlagOpen {
		w += ` AND r.flag_open = 1`
	}
	if f.NotHeld {
		w += ` AND NOT EXISTS (SELECT 1 FROM held_decisions h WHERE h.review_id = r.id)`
	}
	if f.Reported {
		w += ` AND EXISTS (SELECT 1 FROM review_reports p WHERE p.review_id = r.id AND p.state = 'open')`
	}
	switch {
	case f.QID != "":
		w += ` AND r.public_id = ?`
		args = append(args, f.QID)
	case strings.TrimSpace(f.Q) != "":
		like := "%" + likeEscape(strings.TrimSpace(f.Q)) + "%"
		// The order columns come from a correlated lookup so reviews without an order
		// (imported) still match on their own fields.
		w += ` AND (r.title LIKE ? ESCAPE '\' OR r.body LIKE ? ESCAPE '\' OR r.product_name LIKE ? ESCAPE '\'
			OR r.variant_key LIKE ? ESCAPE '\' OR r.group_key LIKE ? ESCAPE '\' OR r.author_name LIKE ? ESCAPE '\'
			OR EXISTS (SELECT 1 FROM orders o WHERE o.id = r.order_id
				AND (o.external_id LIKE ? ESCAPE '\' OR o.customer_email LIKE ? ESCAPE '\')))`
		for range 8 {
			args = append(args, like)
		}
	}
	return w, args
}

const qAdminReviewExtra = `, c.code,
	(SELECT count(*) FROM review_reports p WHERE p.review_id = r.id AND p.state = 'open'),
	(SELECT count(*) FROM review_media m WHERE m.review_id = r.id AND m.state != 'removed')`

// adminReviewCols are the review columns prefixed with the table alias r.
var adminReviewCols = func() string {
	cols := strings.Split(qReviewCols, ",")
	for i, c := range cols {
		cols[i] = "r." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}()

// ListAdminReviews lists reviews for the admin list, newest submission first
// (oldest with f.Oldest), with the total count.
func (q *Q) ListAdminReviews(ctx context.Context, f AdminReviewFilter) ([]AdminReviewRow, int, error) {
	where, args := f.where()
	total, err := q.countRows(ctx, ` FROM reviews r`+where, args)
	if err != nil {
		return nil, 0, fmt.Errorf("store: count admin reviews: %w", err)
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+adminReviewCols+qAdminReviewExtra+` FROM reviews r
		JOIN channels c ON c.id = r.channel_id`+where+listOrder(f.Oldest, "r.submitted_at", "r.id")+` LIMIT ? OFFSET ?`,
		pageArgs(args, f.Limit, f.Offset, 25)...)
	out, err := collect(rows, err, func(sc scanner) (AdminReviewRow, error) {
		var row AdminReviewRow
		var err error
		row.Review, err = scanReview(extraScanner{sc, []any{&row.ChannelCode, &row.ReportsOpen, &row.MediaCount}})
		return row, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: list admin reviews: %w", err)
	}
	return out, total, nil
}

// CountAdminReviews counts the reviews under f (paging ignored).
func (q *Q) CountAdminReviews(ctx context.Context, f AdminReviewFilter) (int, error) {
	where, args := f.where()
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM reviews r`+where, args...).Scan(&n)
	return n, translate(err)
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ReviewNote is a seller response or a resolution note of a review. At is the
// response's published_at or the note's created_at; UpdatedAt is the last change
// of a response.
type ReviewNote struct {
	ReviewID  int64
	Body      string
	ActorID   string
	At        time.Time
	UpdatedAt time.Time
	// Notice is the outcome of the reviewer's e-mail about a seller response.
	Notice   string
	NoticeAt time.Time
}

const (
	qSellerResponseCols = `review_id, body, actor_id, published_at, updated_at, notice, notice_at`
	qResolutionCols     = `review_id, body, actor_id, created_at, created_at, '', NULL`
)

func scanReviewNote(sc scanner) (ReviewNote, error) {
	var n ReviewNote
	var at, upd int64
	var noticeAt sql.NullInt64
	err := sc.Scan(&n.ReviewID, &n.Body, &n.ActorID, &at, &upd, &n.Notice, &noticeAt)
	n.At, n.UpdatedAt, n.NoticeAt = Time(at), Time(upd), NullTime(noticeAt)
	return n, translate(err)
}

// SellerResponseOf returns the seller response of a review (ErrNotFound: none).
func (q *Q) SellerResponseOf(ctx context.Context, reviewID int64) (ReviewNote, error) {
	return scanReviewNote(q.c.QueryRowContext(ctx, `SELECT `+qSellerResponseCols+` FROM seller_responses WHERE review_id = ?`, reviewID))
}

// ResolutionOf returns the resolution note of a review (ErrNotFound: none).
func (q *Q) ResolutionOf(ctx context.Context, reviewID int64) (ReviewNote, error) {
	return scanReviewNote(q.c.QueryRowContext(ctx, `SELECT `+qResolutionCols+` FROM review_resolutions WHERE review_id = ?`, reviewID))
}

// SellerResponsesOf returns the seller responses of the given reviews.
func (q *Q) SellerResponsesOf(ctx context.Context, reviewIDs []int64) ([]ReviewNote, error) {
	out, err := collectIn(ctx, q, `SELECT `+qSellerResponseCols+` FROM seller_responses WHERE review_id IN `, reviewIDs, ``, scanReviewNote)
	if err != nil {
		return nil, fmt.Errorf("store: seller responses of reviews: %w", err)
	}
	return out, nil
}

// ResolutionsOf returns the resolution notes of the given reviews.
func (q *Q) ResolutionsOf(ctx context.Context, reviewIDs []int64) ([]ReviewNote, error) {
	out, err := collectIn(ctx, q, `SELECT `+qResolutionCols+` FROM review_resolutions WHERE review_id IN `, reviewIDs, ``, scanReviewNote)
	if err != nil {
		return nil, fmt.Errorf("store: resolutions of reviews: %w", err)
	}
	return out, nil
}

// CreateSellerResponse stores a review's seller response, published at tx.Now;
// ErrConflict when the review has one.
func (tx *Tx) CreateSellerResponse(ctx context.Context, reviewID int64, body, actorID string) (ReviewNote, error) {
	_, err := tx.c.ExecContext(ctx, `INSERT INTO seller_responses (review_id, body, actor_id, published_at, updated_at)
		VALUES (?, ?, ?, ?, ?)`,
		reviewID, body, actorID, Ms(tx.Now), Ms(tx.Now))
	if err != nil {
		return ReviewNote{}, translate(err)
	}
	return ReviewNote{ReviewID: reviewID, Body: body, ActorID: actorID, At: tx.Now, UpdatedAt: tx.Now}, nil
}

// UpdateSellerResponse changes the text of a review's seller response (ErrNotFound:
// none); published_at stays.
func (tx *Tx) UpdateSellerResponse(ctx context.Context, reviewID int64, body, actorID string) error {
	res, err := tx.c.ExecContext(ctx, `UPDATE seller_responses SET body = ?, actor_id = ?, updated_at = ? WHERE review_id = ?`,
		body, actorID, Ms(tx.Now), reviewID)
	return affectedOne(res, err)
}

// DeleteSellerResponse removes a review's seller response (ErrNotFound: none).
func (tx *Tx) DeleteSellerResponse(ctx context.Context, reviewID int64) error {
	res, err := tx.c.ExecContext(ctx, `DELETE FROM seller_responses WHERE review_id = ?`, reviewID)
	return affectedOne(res, err)
}

// SetSellerResponseNotice records the outcome of the reviewer's e-mail about a
// seller response, at tx.Now.
func (tx *Tx) SetSellerResponseNotice(ctx context.Context, reviewID int64, notice string) error {
	_, err := tx.c.ExecContext(ctx, `UPDATE seller_responses SET notice = ?, notice_at = ? WHERE review_id = ?`,
		notice, Ms(tx.Now), reviewID)
	return translate(err)
}

// SetResolution stores a review's resolution note, replacing an earlier one.
func (tx *Tx) SetResolution(ctx context.Context, reviewID int64, body, actorID string) (ReviewNote, error) {
	_, err := tx.c.ExecContext(ctx, `INSERT INTO review_resolutions (review_id, body, actor_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (review_id) DO UPDATE SET body = excluded.body, actor_id = excluded.actor_id, created_at = excluded.created_at`,
		reviewID, body, actorID, Ms(tx.Now))
	if err != nil {
		return ReviewNote{}, translate(err)
	}
	return ReviewNote{ReviewID: reviewID, Body: body, ActorID: actorID, At: tx.Now, UpdatedAt: tx.Now}, nil
}

// DeleteResolution removes a review's resolution note (ErrNotFound: none).
func (tx *Tx) DeleteResolution(ctx context.Context, reviewID int64) error {
	res, err := tx.c.ExecContext(ctx, `DELETE FROM review_resolutions WHERE review_id = ?`, reviewID)
	return affectedOne(res, err)
}

// MaskSellerResponse replaces the text of a review's seller response after an
// erasure masked the reviewer's personal data in it; the actor and times stay.
func (tx *Tx) MaskSellerResponse(ctx context.Context, reviewID int64, body string) error {
	_, err := tx.c.ExecContext(ctx, `UPDATE seller_responses SET body = ? WHERE review_id = ?`, body, reviewID)
	return translate(err)
}

// MaskResolution replaces the text of a review's resolution note after an erasure
// masked the reviewer's personal data in it.
func (tx *Tx) MaskResolution(ctx context.Context, reviewID int64, body string) error {
	_, err := tx.c.ExecContext(ctx, `UPDATE review_resolutions SET body = ? WHERE review_id = ?`, body, reviewID)
	return translate(err)
}

// affectedOne turns the result of a write that names one row into ErrNotFound when
// it touched none.
func affectedOne(res sql.Result, err error) error {
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RecordTexts lists the id and detail (JSON) of a review's history entries and of
// the activity entries about it (target review publicID) that hold a detail: an
// erasure masks the person's data in them.
func (q *Q) RecordTexts(ctx context.Context, reviewID int64, publicID string) (history, activity []TextRow, err error) {
	scan := func(sc scanner) (TextRow, error) {
		var t TextRow
		return t, translate(sc.Scan(&t.ID, &t.Text))
	}
	rows, err := q.c.QueryContext(ctx, `SELECT id, detail FROM review_history WHERE review_id = ? AND detail NOT IN ('', 'null', '{}')`, reviewID)
	if history, err = collect(rows, err, scan); err != nil {
		return nil, nil, err
	}
	rows, err = q.c.QueryContext(ctx, `SELECT id, detail FROM activity_log WHERE target_type = 'review' AND target_id = ?
		AND detail NOT IN ('', 'null', '{}')`, publicID)
	activity, err = collect(rows, err, scan)
	return history, activity, err
}

// MaskRecordTexts replaces the details of history and activity entries (RecordTexts)
// after an erasure masked the person's data in them.
func (tx *Tx) MaskRecordTexts(ctx context.Context, history, activity []TextRow) error {
	for _, t := range history {
		if _, err := tx.c.ExecContext(ctx, `UPDATE review_history SET detail = ? WHERE id = ?`, t.Text, t.ID); err != nil {
			return translate(err)
		}
	}
	for _, t := range activity {
		if _, err := tx.c.ExecContext(ctx, `UPDATE activity_log SET detail = ? WHERE id = ?`, t.Text, t.ID); err != nil {
			return translate(err)
		}
	}
	return nil
}

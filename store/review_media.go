package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Media is one uploaded photo or video of a review (review_media row).
type Media struct {
	ID            int64
	PublicID      string
	ReviewID      int64  // 0 until attached to a review
	OrderID       int64  // 0 for the photos of an imported review
	LineID        int64  // 0 for the photos of an imported review
	Kind          string // image or video
	Type          string // jpeg, png, webp, mp4, mov (by content)
	State         string
	Position      int
	Width         int
	Height        int
	DurationMs    int64
	Files         string // JSON, see core.MediaFiles
	Bytes         int64
	AltText       string
	Refusal       string
	RemovalReason string
	Attempts      int
	ClaimedUntil  time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	ProcessedAt   time.Time
	RemovedAt     time.Time
}

// Media states.
const (
	MediaUploaded    = "uploaded"
	MediaProcessing  = "processing"
	MediaReady       = "ready"
	MediaFailed      = "failed"
	MediaQuarantined = "quarantined"
	MediaRemoved     = "removed"
)

const qMediaCols = `id, public_id, review_id, order_id, line_id, kind, type, state, position, width, height, duration_ms,
	files, bytes, alt_text, refusal, removal_reason, attempts, claimed_until, created_at, updated_at, processed_at, removed_at`

func scanMedia(sc scanner) (Media, error) {
	var m Media
	var review, order, line, claimed, processed, removed sql.NullInt64
	var created, updated int64
	err := sc.Scan(&m.ID, &m.PublicID, &review, &order, &line, &m.Kind, &m.Type, &m.State, &m.Position, &m.Width,
		&m.Height, &m.DurationMs, &m.Files, &m.Bytes, &m.AltText, &m.Refusal, &m.RemovalReason, &m.Attempts, &claimed,
		&created, &updated, &processed, &removed)
	m.ReviewID, m.OrderID, m.LineID = idOf(review), idOf(order), idOf(line)
	m.ClaimedUntil, m.ProcessedAt, m.RemovedAt = NullTime(claimed), NullTime(processed), NullTime(removed)
	m.CreatedAt, m.UpdatedAt = Time(created), Time(updated)
	return m, translate(err)
}

// CreateMedia stores a new upload; it returns it with ID and times set.
func (q *Tx) CreateMedia(ctx context.Context, m Media) (Media, error) {
	if m.Files == "" {
		m.Files = "{}"
	}
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, `INSERT INTO review_media (public_id, review_id, order_id, line_id, kind, type, state,
		position, width, height, duration_ms, files, bytes, alt_text, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.PublicID, nullID(m.ReviewID), nullID(m.OrderID), nullID(m.LineID), m.Kind, m.Type, m.State, m.Position, m.Width, m.Height,
		m.DurationMs, m.Files, m.Bytes, m.AltText, now, now)
	if err != nil {
		return m, fmt.Errorf("store: create media: %w", translate(err))
	}
	m.ID, _ = res.LastInsertId()
	m.CreatedAt, m.UpdatedAt = q.Now, q.Now
	return m, nil
}

// MediaByID finds a media row by id.
func (q *Q) MediaByID(ctx context.Context, id int64) (Media, error) {
	return scanMedia(q.c.QueryRowContext(ctx, `SELECT `+qMediaCols+` FROM review_media WHERE id = ?`, id))
}

// MediaByPublicID finds a media row by its public id.
func (q *Q) MediaByPublicID(ctx context.Context, publicID string) (Media, error) {
	return scanMedia(q.c.QueryRowContext(ctx, `SELECT `+qMediaCols+` FROM review_media WHERE public_id = ?`, publicID))
}

// MediaOfReview lists the media attached to a review (every state), by position.
func (q *Q) MediaOfReview(ctx context.Context, reviewID int64) ([]Media, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qMediaCols+` FROM review_media WHERE review_id = ? ORDER BY position, id`, reviewID)
	return collect(rows, err, scanMedia)
}

// MediaOfReviews lists the media of several reviews (every state), by review and
// position.
func (q *Q) MediaOfReviews(ctx context.Context, reviewIDs []int64) ([]Media, error) {
	out, err := collectIn(ctx, q, `SELECT `+qMediaCols+` FROM review_media WHERE review_id IN `, reviewIDs,
		` ORDER BY review_id, position, id`, scanMedia)
	if err != nil {
		return nil, fmt.Errorf("store: media of reviews: %w", err)
	}
	return out, nil
}

// CountUnattachedMedia counts a line's uploads not attached to a review that are
// still usable (uploaded, processing or ready).
func (q *Q) CountUnattachedMedia(ctx context.Context, lineID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM review_media WHERE line_id = ? AND review_id IS NULL
		AND state IN ('uploaded', 'processing', 'ready')`, lineID).Scan(&n)
	return n, translate(err)
}

// AttachMedia ties an unattached upload to a review at position; it reports false
// when the row is attached already.
func (q *Tx) AttachMedia(ctx context.Context, id, reviewID int64, position int) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE review_media SET review_id = ?, position = ?, updated_at = ?
		WHERE id = ? AND review_id IS NULL`, reviewID, position, Ms(q.Now), id)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SetMediaPosition moves an attached media item to position.
func (q *Tx) SetMediaPosition(ctx context.Context, id int64, position int) error {
	_, err := q.c.ExecContext(ctx, `UPDATE review_media SET position = ?, updated_at = ? WHERE id = ?`, position, Ms(q.Now), id)
	return translate(err)
}

// RemoveMedia marks a media row removed with a reason and forgets its files (the
// caller deletes them from disk).
func (q *Tx) RemoveMedia(ctx context.Context, id int64, reason string) error {
	now := Ms(q.Now)
	_, err := q.c.ExecContext(ctx, `UPDATE review_media SET state = 'removed', removal_reason = ?, files = '{}',
		claimed_until = NULL, removed_at = ?, updated_at = ? WHERE id = ?`, reason, now, now, id)
	return translate(err)
}

// ClaimMedia claims the oldest upload due for processing (uploaded, or processing
// whose claim ran out) until until, in one atomic statement, so two job runners never
// process the same file. ok is false when nothing is due.
func (q *Tx) ClaimMedia(ctx context.Context, until time.Time) (m Media, ok bool, err error) {
	now := Ms(q.Now)
	m, err = scanMedia(q.c.QueryRowContext(ctx, `UPDATE review_media SET state = 'processing', claimed_until = ?,
		attempts = attempts + 1, updated_at = ?
		WHERE id = (SELECT id FROM review_media WHERE state = 'uploaded'
			OR (state = 'processing' AND claimed_until < ?) ORDER BY id LIMIT 1)
		RETURNING `+qMediaCols, Ms(until), now, now))
	if errors.Is(err, ErrNotFound) {
		return Media{}, false, nil
	}
	return m, err == nil, err
}

// MediaDone is the outcome of processing.
type MediaDone struct {
	Width, Height int
	DurationMs    int64
	Files         string
}

// FinishMedia marks a claimed row ready with its processed files; it reports false
// when the row is no longer in processing (removed meanwhile).
func (q *Tx) FinishMedia(ctx context.Context, id int64, d MediaDone) (bool, error) {
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, `UPDATE review_media SET state = 'ready', width = ?, height = ?, duration_ms = ?,
		files = ?, claimed_until = NULL, processed_at = ?, updated_at = ? WHERE id = ? AND state = 'processing'`,
		d.Width, d.Height, d.DurationMs, d.Files, now, now, id)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// FailMedia marks a claimed row failed with the refusal detail.
func (q *Tx) FailMedia(ctx context.Context, id int64, refusal string) error {
	now := Ms(q.Now)
	_, err := q.c.ExecContext(ctx, `UPDATE review_media SET state = 'failed', refusal = ?, claimed_until = NULL,
		processed_at = ?, updated_at = ? WHERE id = ? AND state = 'processing'`, refusal, now, now, id)
	return translate(err)
}

// ReleaseMedia gives a claimed row back (state uploaded, the attempt not counted) so
// a later run retries it.
func (q *Tx) ReleaseMedia(ctx context.Context, id int64) error {
	_, err := q.c.ExecContext(ctx, `UPDATE review_media SET state = 'uploaded', claimed_until = NULL,
		attempts = max(attempts - 1, 0), updated_at = ?
		WHERE id = ? AND state = 'processing'`, Ms(q.Now), id)
	return translate(err)
}

// FailAbandonedMedia fails the rows whose claim ran out after maxAttempts claims:
// a file that crashed or hung the processing that many times is not claimed again.
// It returns the failed rows.
func (q *Tx) FailAbandonedMedia(ctx context.Context, maxAttempts int, refusal string) ([]Media, error) {
	now := Ms(q.Now)
	rows, err := q.c.QueryContext(ctx, `UPDATE review_media SET state = 'failed', refusal = ?, claimed_until = NULL,
		processed_at = ?, updated_at = ?
		WHERE state = 'processing' AND claimed_until < ? AND attempts >= ?
		RETURNING `+qMediaCols, refusal, now, now, now, maxAttempts)
	return collect(rows, err, scanMedia)
}

package store

import (
	"context"
	"time"
)

// Photo states of marketplace_photos.
const (
	PhotoPending = "pending"
	PhotoFetched = "fetched"
	PhotoRefused = "refused"
)

// PhotoTooMany is the error of a photo refused for its position: the row lists
// more photos than a review may show.
const PhotoTooMany = "too_many_items"

// MarketplacePhoto is one photo address of an imported review (table
// marketplace_photos).
type MarketplacePhoto struct {
	ReviewID  int64
	SourceID  int64
	URL       string
	Position  int
	State     string
	MediaID   int64
	Attempts  int
	Error     string
	NextTryAt time.Time
}

const qPhotoCols = `p.review_id, p.source_id, p.url, p.position, p.state, COALESCE(p.media_id, 0), p.attempts, p.error, p.next_try_at`

func scanPhoto(sc scanner) (MarketplacePhoto, error) {
	var p MarketplacePhoto
	var next int64
	err := sc.Scan(&p.ReviewID, &p.SourceID, &p.URL, &p.Position, &p.State, &p.MediaID, &p.Attempts, &p.Error, &next)
	p.NextTryAt = Time(next)
	return p, translate(err)
}

// MarketplacePhotosOf lists the photo addresses of imported reviews, by review and
// position.
func (q *Q) MarketplacePhotosOf(ctx context.Context, reviewIDs []int64) ([]MarketplacePhoto, error) {
	return collectIn(ctx, q, `SELECT `+qPhotoCols+` FROM marketplace_photos p WHERE p.review_id IN `, reviewIDs,
		` ORDER BY p.review_id, p.position`, scanPhoto)
}

// AddMarketplacePhoto adds a photo address to a review (state pending, or refused
// with its error). An address the review has already moves to position, and its
// state follows the move where the position decides it: a pending photo moved past
// the limit is refused PhotoTooMany, one refused PhotoTooMany moved within it
// waits to be fetched again; a fetched photo, or one refused for another reason,
// keeps its state.
func (q *Tx) AddMarketplacePhoto(ctx context.Context, p MarketplacePhoto) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO marketplace_photos AS m (review_id, source_id, url, position, state, error, next_try_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (review_id, url) DO UPDATE SET position = excluded.position,
			state = iif(`+qPhotoMoved+`, excluded.state, m.state), error = iif(`+qPhotoMoved+`, excluded.error, m.error),
			next_try_at = iif(`+qPhotoMoved+`, excluded.next_try_at, m.next_try_at)`,
		p.ReviewID, p.SourceID, p.URL, p.Position, p.State, p.Error, Ms(q.Now))
	return translate(err)
}

// qPhotoMoved: the new position changes whether a photo may be shown.
const qPhotoMoved = `(m.state = 'pending' AND excluded.state = 'refused' OR
	m.state = 'refused' AND m.error = '` + PhotoTooMany + `' AND excluded.state = 'pending')`

// DeleteMarketplacePhoto forgets one photo address of a review.
func (q *Tx) DeleteMarketplacePhoto(ctx context.Context, reviewID int64, url string) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM marketplace_photos WHERE review_id = ? AND url = ?`, reviewID, url)
	return translate(err)
}

// DeleteMarketplacePhotosOf forgets every photo address of a review.
func (q *Tx) DeleteMarketplacePhotosOf(ctx context.Context, reviewID int64) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM marketplace_photos WHERE review_id = ?`, reviewID)
	return translate(err)
}

// DueMarketplacePhotos lists up to limit pending photos due at now of live
// imported reviews, of one connection (sourceID > 0) or of all, oldest review first.
func (q *Q) DueMarketplacePhotos(ctx context.Context, sourceID int64, now time.Time, limit int) ([]MarketplacePhoto, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qPhotoCols+` FROM marketplace_photos p JOIN reviews r ON r.id = p.review_id
		WHERE p.state = 'pending' AND p.next_try_at <= ? AND (? = 0 OR p.source_id = ?) AND r.state != 'removed'
		ORDER BY p.review_id, p.position LIMIT ?`, Ms(now), sourceID, sourceID, limit)
	return collect(rows, err, scanPhoto)
}

// MarkMarketplacePhotoFetched records the media row a pending photo became; it
// reports false when the photo is no longer pending (forgotten or fetched already).
func (q *Tx) MarkMarketplacePhotoFetched(ctx context.Context, reviewID int64, url string, mediaID int64) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE marketplace_photos SET state = 'fetched', media_id = ?, error = '',
		attempts = attempts + 1 WHERE review_id = ? AND url = ? AND state = 'pending'`, mediaID, reviewID, url)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// FailMarketplacePhoto records a failed fetch: refused for good (final), or
// pending again from next.
func (q *Tx) FailMarketplacePhoto(ctx context.Context, reviewID int64, url, reason string, final bool, next time.Time) error {
	state := PhotoPending
	if final {
		state = PhotoRefused
	}
	_, err := q.c.ExecContext(ctx, `UPDATE marketplace_photos SET state = ?, error = ?, attempts = attempts + 1,
		next_try_at = ? WHERE review_id = ? AND url = ? AND state = 'pending'`, state, reason, Ms(next), reviewID, url)
	return translate(err)
}

// CountMissingMarketplacePhotos counts the photo addresses of a connection's live
// imported reviews that are not shown: not fetched (yet), or fetched into a media
// item that failed or was removed.
func (q *Q) CountMissingMarketplacePhotos(ctx context.Context, sourceID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM marketplace_photos p JOIN reviews r ON r.id = p.review_id
		WHERE p.source_id = ? AND r.state != 'removed' AND (p.state != 'fetched' OR NOT EXISTS (SELECT 1 FROM review_media m
		WHERE m.id = p.media_id AND m.state IN ('uploaded', 'processing', 'ready')))`, sourceID).Scan(&n)
	return n, translate(err)
}

// MarketplaceFailedInRow counts a connection's failed reads since its last read
// that succeeded or held removals back.
func (q *Q) MarketplaceFailedInRow(ctx context.Context, sourceID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM marketplace_runs WHERE source_id = ? AND state = 'failed'
		AND id > COALESCE((SELECT max(id) FROM marketplace_runs WHERE source_id = ? AND state IN ('succeeded', 'held')), 0)`,
		sourceID, sourceID).Scan(&n)
	return n, translate(err)
}

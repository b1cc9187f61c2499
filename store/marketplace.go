package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// MarketplaceSource is one marketplace review connection (table marketplace_sources).
type MarketplaceSource struct {
	ID        int64
	Platform  string
	ChannelID int64
	Channel   string // the channel code (joined)
	SellerID  string
	Route     string
	FeedURL   string
	SecretEnc []byte
	Enabled   bool
	Failures  int
	NextRunAt time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

const qMarketSourceCols = `s.id, s.platform, s.channel_id, c.code, s.seller_id, s.route, s.feed_url, s.secret_enc, s.enabled,
	s.failures, s.next_run_at, s.created_at, s.updated_at`

const qMarketSourceFrom = ` FROM marketplace_sources s JOIN channels c ON c.id = s.channel_id`

func scanMarketSource(sc scanner) (MarketplaceSource, error) {
	var s MarketplaceSource
	var enabled int
	var next sql.NullInt64
	var created, updated int64
	err := sc.Scan(&s.ID, &s.Platform, &s.ChannelID, &s.Channel, &s.SellerID, &s.Route, &s.FeedURL, &s.SecretEnc,
		&enabled, &s.Failures, &next, &created, &updated)
	s.Enabled, s.NextRunAt, s.CreatedAt, s.UpdatedAt = enabled == 1, NullTime(next), Time(created), Time(updated)
	return s, translate(err)
}

// CreateMarketplaceSource inserts a connection; a second one for the same channel,
// marketplace and seller is ErrConflict. Feed connections are due at once.
func (q *Tx) CreateMarketplaceSource(ctx context.Context, s MarketplaceSource) (MarketplaceSource, error) {
	now := Ms(q.Now)
	var next any
	if s.Route == "feed" {
		next = now
	}
	res, err := q.c.ExecContext(ctx, `INSERT INTO marketplace_sources (platform, channel_id, seller_id, route, feed_url,
		secret_enc, enabled, next_run_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.Platform, s.ChannelID, s.SellerID, s.Route, s.FeedURL, s.SecretEnc, boolInt(s.Enabled), next, now, now)
	if err != nil {
		return s, translate(err)
	}
	id, _ := res.LastInsertId()
	return q.MarketplaceSourceByID(ctx, id)
}

// MarketplaceSourceByID finds a connection.
func (q *Q) MarketplaceSourceByID(ctx context.Context, id int64) (MarketplaceSource, error) {
	return scanMarketSource(q.c.QueryRowContext(ctx, `SELECT `+qMarketSourceCols+qMarketSourceFrom+` WHERE s.id = ?`, id))
}

// ListMarketplaceSources lists every connection, oldest first.
func (q *Q) ListMarketplaceSources(ctx context.Context) ([]MarketplaceSource, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qMarketSourceCols+qMarketSourceFrom+` ORDER BY s.id`)
	return collect(rows, err, scanMarketSource)
}

// DueMarketplaceSources lists the enabled feed connections due at now.
func (q *Q) DueMarketplaceSources(ctx context.Context, now time.Time) ([]MarketplaceSource, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qMarketSourceCols+qMarketSourceFrom+` WHERE s.route = 'feed'
		AND s.enabled = 1 AND s.next_run_at IS NOT NULL AND s.next_run_at <= ? ORDER BY s.next_run_at`, Ms(now))
	return collect(rows, err, scanMarketSource)
}

// UpdateMarketplaceSource saves enabled, feed_url and secret_enc.
func (q *Tx) UpdateMarketplaceSource(ctx context.Context, s MarketplaceSource) error {
	_, err := q.c.ExecContext(ctx, `UPDATE marketplace_sources SET enabled = ?, feed_url = ?, secret_enc = ?, updated_at = ?
		WHERE id = ?`, boolInt(s.Enabled), s.FeedURL, s.SecretEnc, Ms(q.Now), s.ID)
	return translate(err)
}

// FinishMarketplaceFeedRead records the outcome of a feed read: failures is reset
// on success and counted up on failure; the next scheduled read is at next.
func (q *Tx) FinishMarketplaceFeedRead(ctx context.Context, id int64, failed bool, next time.Time) (failures int, err error) {
	err = q.c.QueryRowContext(ctx, `UPDATE marketplace_sources SET failures = CASE WHEN ? THEN failures + 1 ELSE 0 END,
		next_run_at = ?, updated_at = ? WHERE id = ? RETURNING failures`, failed, Ms(next), Ms(q.Now), id).Scan(&failures)
	return failures, translate(err)
}

// DeferMarketplaceFeed sets when a feed connection is due again. The read job
// commits it before reading, so a read that takes the process down is not started
// again at once.
func (q *Tx) DeferMarketplaceFeed(ctx context.Context, id int64, next time.Time) error {
	_, err := q.c.ExecContext(ctx, `UPDATE marketplace_sources SET next_run_at = ?, updated_at = ? WHERE id = ?`,
		Ms(next), Ms(q.Now), id)
	return translate(err)
}

// DeleteMarketplaceSource removes a connection with its runs and the links of its
// (removed) imported reviews.
func (q *Tx) DeleteMarketplaceSource(ctx context.Context, id int64) error {
	if _, err := q.c.ExecContext(ctx, `DELETE FROM marketplace_photos WHERE source_id = ?`, id); err != nil {
		return translate(err)
	}
	if _, err := q.c.ExecContext(ctx, `DELETE FROM marketplace_reviews WHERE source_id = ?`, id); err != nil {
		return translate(err)
	}
	_, err := q.c.ExecContext(ctx, `DELETE FROM marketplace_sources WHERE id = ?`, id)
	return translate(err)
}

// MarketplaceSourceHolds reports whether a connection has live imported reviews
// (not removed) and whether a removal request touched it.
func (q *Q) MarketplaceSourceHolds(ctx context.Context, id int64) (live bool, removal bool, err error) {
	err = q.c.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM marketplace_reviews m JOIN reviews r ON r.id = m.review_id WHERE m.source_id = ? AND r.state != 'removed'),
		EXISTS (SELECT 1 FROM marketplace_removal_sources WHERE source_id = ?)`, id, id).Scan(&live, &removal)
	return live, removal, translate(err)
}

// MarketplaceRun is one read of a connection (table marketplace_runs).
type MarketplaceRun struct {
	ID              int64
	SourceID        int64
	Trigger         string
	Scope           string
	ConfirmRemovals bool
	State           string
	Error           string
	FileName        string
	Counts          string
	Report          string
	CreatedAt       time.Time
	StartedAt       time.Time
	FinishedAt      time.Time
}

const qMarketRunCols = `id, source_id, trigger, scope, confirm_removals, state, error, file_name, counts, report,
	created_at, started_at, finished_at`

func scanMarketRun(sc scanner) (MarketplaceRun, error) {
	var r MarketplaceRun
	var confirm int
	var created int64
	var started, finished sql.NullInt64
	err := sc.Scan(&r.ID, &r.SourceID, &r.Trigger, &r.Scope, &confirm, &r.State, &r.Error, &r.FileName, &r.Counts,
		&r.Report, &created, &started, &finished)
	r.ConfirmRemovals, r.CreatedAt, r.StartedAt, r.FinishedAt = confirm == 1, Time(created), NullTime(started), NullTime(finished)
	return r, translate(err)
}

// CreateMarketplaceRun inserts a queued run; while another run of the connection is
// queued or running it is ErrConflict.
func (q *Tx) CreateMarketplaceRun(ctx context.Context, r MarketplaceRun) (MarketplaceRun, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO marketplace_runs (source_id, trigger, scope, confirm_removals, state,
		file_name, created_at) VALUES (?, ?, ?, ?, 'queued', ?, ?)`, r.SourceID, r.Trigger, r.Scope,
		boolInt(r.ConfirmRemovals), r.FileName, Ms(q.Now))
	if err != nil {
		return r, translate(err)
	}
	r.ID, _ = res.LastInsertId()
	r.State, r.CreatedAt, r.Counts, r.Report = "queued", q.Now, "{}", "{}"
	return r, nil
}

// StartMarketplaceRun moves a queued run to running.
func (q *Tx) StartMarketplaceRun(ctx context.Context, id int64) error {
	_, err := q.c.ExecContext(ctx, `UPDATE marketplace_runs SET state = 'running', started_at = ? WHERE id = ? AND state = 'queued'`,
		Ms(q.Now), id)
	return translate(err)
}

// FinishMarketplaceRun records the end of a run.
func (q *Tx) FinishMarketplaceRun(ctx context.Context, id int64, state, failure, counts, report string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE marketplace_runs SET state = ?, error = ?, counts = ?, report = ?, finished_at = ?
		WHERE id = ?`, state, failure, counts, report, Ms(q.Now), id)
	return translate(err)
}

// FailStaleMarketplaceRuns fails runs left queued or running before since (the
// process ended during the read).
func (q *Tx) FailStaleMarketplaceRuns(ctx context.Context, since time.Time) (int64, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE marketplace_runs SET state = 'failed', error = 'interrupted', finished_at = ?
		WHERE state IN ('queued', 'running') AND created_at < ?`, Ms(q.Now), Ms(since))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// MarketplaceRuns lists the newest runs of a connection, newest first.
func (q *Q) MarketplaceRuns(ctx context.Context, sourceID int64, limit int) ([]MarketplaceRun, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qMarketRunCols+` FROM marketplace_runs WHERE source_id = ?
		ORDER BY id DESC LIMIT ?`, sourceID, limit)
	return collect(rows, err, scanMarketRun)
}

// MarketplaceRunByID finds a run.
func (q *Q) MarketplaceRunByID(ctx context.Context, id int64) (MarketplaceRun, error) {
	return scanMarketRun(q.c.QueryRowContext(ctx, `SELECT `+qMarketRunCols+` FROM marketplace_runs WHERE id = ?`, id))
}

// CountMarketplaceRuns counts a connection's runs.
func (q *Q) CountMarketplaceRuns(ctx context.Context, sourceID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM marketplace_runs WHERE source_id = ?`, sourceID).Scan(&n)
	return n, translate(err)
}

// MarketplaceLink ties an imported review to its marketplace row.
type MarketplaceLink struct {
	ReviewID         int64
	SourceID         int64
	SourceReviewID   string
	Barcode          string
	Fingerprint      string
	RemovedByRequest bool
	SeenRunID        int64
	State            string // the review's state (joined)
	VariantKey       string // the review's product (joined)
}

// MarketplaceLinkOf finds the link of a marketplace review number.
func (q *Q) MarketplaceLinkOf(ctx context.Context, sourceID int64, sourceReviewID string) (MarketplaceLink, error) {
	var l MarketplaceLink
	var removed int
	err := q.c.QueryRowContext(ctx, `SELECT m.review_id, m.source_id, m.source_review_id, m.barcode, m.fingerprint,
		m.removed_by_request, m.seen_run_id, r.state, r.variant_key FROM marketplace_reviews m JOIN reviews r ON r.id = m.review_id
		WHERE m.source_id = ? AND m.source_review_id = ?`, sourceID, sourceReviewID).Scan(&l.ReviewID, &l.SourceID,
		&l.SourceReviewID, &l.Barcode, &l.Fingerprint, &removed, &l.SeenRunID, &l.State, &l.VariantKey)
	l.RemovedByRequest = removed == 1
	return l, translate(err)
}

// SaveMarketplaceLink inserts or replaces the link of an imported review.
func (q *Tx) SaveMarketplaceLink(ctx context.Context, l MarketplaceLink) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO marketplace_reviews (review_id, source_id, source_review_id, barcode,
		fingerprint, removed_by_request, seen_run_id) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (review_id) DO UPDATE SET barcode = excluded.barcode, fingerprint = excluded.fingerprint,
			seen_run_id = excluded.seen_run_id`,
		l.ReviewID, l.SourceID, l.SourceReviewID, l.Barcode, l.Fingerprint, boolInt(l.RemovedByRequest), l.SeenRunID)
	return translate(err)
}

// MarkMarketplaceSeen stamps a link as seen by a run.
func (q *Tx) MarkMarketplaceSeen(ctx context.Context, reviewID, runID int64) error {
	_, err := q.c.ExecContext(ctx, `UPDATE marketplace_reviews SET seen_run_id = ? WHERE review_id = ?`, runID, reviewID)
	return translate(err)
}

// MarkMarketplaceRemovedByRequest flags links whose review was removed by a
// removal request.
func (q *Tx) MarkMarketplaceRemovedByRequest(ctx context.Context, reviewID int64) error {
	_, err := q.c.ExecContext(ctx, `UPDATE marketplace_reviews SET removed_by_request = 1 WHERE review_id = ?`, reviewID)
	return translate(err)
}

// MarketplaceUnseen lists the live imported reviews of a connection that a run did
// not see (candidates for removal in a full comparison).
func (q *Q) MarketplaceUnseen(ctx context.Context, sourceID, runID int64) ([]MarketplaceLink, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT m.review_id, m.source_id, m.source_review_id, m.barcode, m.fingerprint,
		m.removed_by_request, m.seen_run_id, r.state, r.variant_key FROM marketplace_reviews m JOIN reviews r ON r.id = m.review_id
		WHERE m.source_id = ? AND m.seen_run_id != ? AND r.state != 'removed' ORDER BY m.review_id`, sourceID, runID)
	return collect(rows, err, func(sc scanner) (MarketplaceLink, error) {
		var l MarketplaceLink
		var removed int
		err := sc.Scan(&l.ReviewID, &l.SourceID, &l.SourceReviewID, &l.Barcode, &l.Fingerprint, &removed, &l.SeenRunID,
			&l.State, &l.VariantKey)
		l.RemovedByRequest = removed == 1
		return l, err
	})
}

// MarketplaceLinks lists every link of a connection (removed reviews included) by
// marketplace review number, with the review's state and product.
func (q *Q) MarketplaceLinks(ctx context.Context, sourceID int64) (map[string]MarketplaceLink, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT m.review_id, m.source_id, m.source_review_id, m.barcode, m.fingerprint,
		m.removed_by_request, m.seen_run_id, r.state, r.variant_key FROM marketplace_reviews m JOIN reviews r ON r.id = m.review_id
		WHERE m.source_id = ?`, sourceID)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string]MarketplaceLink{}
	for rows.Next() {
		var l MarketplaceLink
		var removed int
		if err := rows.Scan(&l.ReviewID, &l.SourceID, &l.SourceReviewID, &l.Barcode, &l.Fingerprint, &removed, &l.SeenRunID,
			&l.State, &l.VariantKey); err != nil {
			return nil, translate(err)
		}
		l.RemovedByRequest = removed == 1
		out[l.SourceReviewID] = l
	}
	return out, translate(rows.Err())
}

// ImportedReviewRow is one row of the imported-review list.
type ImportedReviewRow struct {
	Review
	SourceID  int64
	Barcode   string
	Channel   string
	SellerID  string
	RemovedBy bool
}

// ImportedReviewFilter narrows the imported-review list.
type ImportedReviewFilter struct {
	Q        string
	Platform string
	Limit    int
	Offset   int
}

func (f ImportedReviewFilter) where() (string, []any) {
	w := []string{`r.origin = 'imported'`}
	var args []any
	if f.Platform != "" {
		w = append(w, `s.platform = ?`)
		args = append(args, f.Platform)
	}
	if q := strings.TrimSpace(f.Q); q != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q) + "%"
		w = append(w, `(r.body LIKE ? ESCAPE '\' OR r.title LIKE ? ESCAPE '\' OR r.author_name LIKE ? ESCAPE '\' OR m.source_review_id = ?)`)
		args = append(args, like, like, like, q)
	}
	return strings.Join(w, " AND "), args
}

// ImportedReviews lists imported reviews, newest first, with the total.
func (q *Q) ImportedReviews(ctx context.Context, f ImportedReviewFilter) ([]ImportedReviewRow, int, error) {
	where, args := f.where()
	from := ` FROM marketplace_reviews m JOIN reviews r ON r.id = m.review_id JOIN marketplace_sources s ON s.id = m.source_id
		JOIN channels c ON c.id = s.channel_id WHERE ` + where
	var total int
	if err := q.c.QueryRowContext(ctx, `SELECT count(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, translate(err)
	}
	cols := strings.ReplaceAll(qReviewCols, "\n", " ")
	cols = "r." + strings.ReplaceAll(cols, ", ", ", r.")
	rows, err := q.c.QueryContext(ctx, `SELECT `+cols+`, m.source_id, m.barcode, c.code, s.seller_id, m.removed_by_request`+from+
		` ORDER BY r.id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	out, err := collect(rows, err, func(sc scanner) (ImportedReviewRow, error) {
		var row ImportedReviewRow
		var removed int
		var err error
		row.Review, err = scanReview(extraScanner{sc: sc, extra: []any{&row.SourceID, &row.Barcode, &row.Channel, &row.SellerID, &removed}})
		row.RemovedBy = removed == 1
		return row, err
	})
	return out, total, err
}

// MarketplaceLinksOf lists the links of the given review public ids (imported
// reviews only), with the review's state.
func (q *Q) MarketplaceLinksOf(ctx context.Context, publicIDs []string) (map[string]MarketplaceLink, error) {
	out := map[string]MarketplaceLink{}
	for _, id := range publicIDs {
		var l MarketplaceLink
		var removed int
		err := q.c.QueryRowContext(ctx, `SELECT m.review_id, m.source_id, m.source_review_id, m.barcode, m.fingerprint,
			m.removed_by_request, m.seen_run_id, r.state, r.variant_key FROM marketplace_reviews m JOIN reviews r ON r.id = m.review_id
			WHERE r.public_id = ?`, id).Scan(&l.ReviewID, &l.SourceID, &l.SourceReviewID, &l.Barcode, &l.Fingerprint,
			&removed, &l.SeenRunID, &l.State, &l.VariantKey)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, translate(err)
		}
		l.RemovedByRequest = removed == 1
		out[id] = l
	}
	return out, nil
}

// MarketplaceRemoval is one removal request (table marketplace_removals).
type MarketplaceRemoval struct {
	ID          int64
	PublicID    string
	Reviews     string // JSON list of review public ids
	Note        string
	MediaPurged int
	State       string
	ActorID     string
	CreatedAt   time.Time
	SourceIDs   []int64
}

// CreateMarketplaceRemoval records a removal request and the connections it touched.
func (q *Tx) CreateMarketplaceRemoval(ctx context.Context, r MarketplaceRemoval) (MarketplaceRemoval, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO marketplace_removals (public_id, reviews, note, media_purged, state, actor_id,
		created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, r.PublicID, r.Reviews, r.Note, r.MediaPurged, r.State, r.ActorID, Ms(q.Now))
	if err != nil {
		return r, translate(err)
	}
	r.ID, _ = res.LastInsertId()
	r.CreatedAt = q.Now
	for _, s := range r.SourceIDs {
		if _, err := q.c.ExecContext(ctx, `INSERT OR IGNORE INTO marketplace_removal_sources (removal_id, source_id) VALUES (?, ?)`,
			r.ID, s); err != nil {
			return r, translate(err)
		}
	}
	return r, nil
}

package store

import (
	"context"
	"database/sql"
	"time"
)

// AISummaryRow is the stored summary of one product in one market (ai_summaries).
type AISummaryRow struct {
	Scope        string
	ProductKey   string
	Market       string
	Summary      string // JSON kept by app/core/ai; '' when the product has none
	SeenRevision int64
	BuiltAt      time.Time
}

// AIDoc is a published own review as the AI package reads it.
type AIDoc struct {
	ID       int64
	PublicID string
	Rating   int
	Title    string
	Body     string
	Language string
}

// AIRequest is one queued AI request (ai_requests).
type AIRequest struct {
	ID         int64
	Kind       string
	Scope      string
	ProductKey string
	ReviewID   int64
	Language   string
	State      string
	Error      string
	Attempts   int
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// AISummary reads a product's stored summary in a market; ErrNotFound when none.
func (q *Q) AISummary(ctx context.Context, scope, key, market string) (AISummaryRow, error) {
	r := AISummaryRow{Scope: scope, ProductKey: key, Market: market}
	var at int64
	err := q.c.QueryRowContext(ctx, `SELECT summary, seen_revision, built_at FROM ai_summaries
		WHERE scope = ? AND product_key = ? AND market = ?`, scope, key, market).Scan(&r.Summary, &r.SeenRevision, &at)
	r.BuiltAt = Time(at)
	return r, translate(err)
}

// SaveAISummary stores a product's summary with the reviews it cites and moves
// the product's figures revision on (the list answers and their ETags change with
// it); the summary remembers the revision it was built at.
func (q *Tx) SaveAISummary(ctx context.Context, r AISummaryRow, cited []int64) error {
	if err := q.BumpProductRevision(ctx, r.Scope, r.ProductKey, r.Market); err != nil {
		return err
	}
	if _, err := q.c.ExecContext(ctx, `DELETE FROM ai_summary_reviews WHERE scope = ? AND product_key = ? AND market = ?`,
		r.Scope, r.ProductKey, r.Market); err != nil {
		return translate(err)
	}
	for _, id := range cited {
		if _, err := q.c.ExecContext(ctx, `INSERT OR IGNORE INTO ai_summary_reviews (scope, product_key, market, review_id)
			VALUES (?, ?, ?, ?)`, r.Scope, r.ProductKey, r.Market, id); err != nil {
			return translate(err)
		}
	}
	_, err := q.c.ExecContext(ctx, `INSERT INTO ai_summaries (scope, product_key, market, summary, seen_revision, built_at)
		VALUES (?, ?, ?, ?, (SELECT coalesce(max(revision), 0) FROM product_stats WHERE scope = ? AND product_key = ? AND market = ?), ?)
		ON CONFLICT (scope, product_key, market) DO UPDATE SET summary = excluded.summary,
		seen_revision = excluded.seen_revision, built_at = excluded.built_at`,
		r.Scope, r.ProductKey, r.Market, r.Summary, r.Scope, r.ProductKey, r.Market, Ms(q.Now))
	return translate(err)
}

// MarkAISummarySeen notes that a product's summary was checked at its current
// revision without a change of its text (no answer changes).
func (q *Tx) MarkAISummarySeen(ctx context.Context, scope, key, market string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE ai_summaries SET built_at = ?, seen_revision =
		(SELECT coalesce(max(revision), 0) FROM product_stats WHERE scope = ? AND product_key = ? AND market = ?)
		WHERE scope = ? AND product_key = ? AND market = ?`, Ms(q.Now), scope, key, market, scope, key, market)
	return translate(err)
}

// ProductRef names one product in one market.
type ProductRef struct {
	Scope, Key, Market string
}

// DueAISummaries lists up to limit products whose summary is due: never built
// while the product has at least minReviews listed reviews, built before notAfter
// from a revision that has since moved on, or citing a review that is no longer
// published or was erased (whenever it was built).
func (q *Q) DueAISummaries(ctx context.Context, minReviews int, notAfter time.Time, limit int) ([]ProductRef, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT p.scope, p.product_key, p.market FROM product_stats p
		LEFT JOIN ai_summaries s ON s.scope = p.scope AND s.product_key = p.product_key AND s.market = p.market
		WHERE (s.product_key IS NULL AND p.reviews >= ?) OR (s.seen_revision != p.revision AND s.built_at <= ?)
		OR (s.seen_revision != p.revision AND EXISTS (SELECT 1 FROM ai_summary_reviews c JOIN reviews r ON r.id = c.review_id
			WHERE c.scope = p.scope AND c.product_key = p.product_key AND c.market = p.market
			AND (r.state != 'published' OR r.anonymized_at IS NOT NULL)))
		ORDER BY coalesce(s.built_at, 0), p.product_key LIMIT ?`, minReviews, Ms(notAfter), limit)
	return collect(rows, err, func(sc scanner) (ProductRef, error) {
		var p ProductRef
		return p, translate(sc.Scan(&p.Scope, &p.Key, &p.Market))
	})
}

// PublishedOwnReviews lists the published own product reviews of a product in a
// market (scope variant or group), oldest first.
func (q *Q) PublishedOwnReviews(ctx context.Context, scope, key, market string) ([]AIDoc, error) {
	col := "variant_key"
	if scope == ScopeGroup {
		col = "group_key"
	}
	rows, err := q.c.QueryContext(ctx, `SELECT id, public_id, rating, title, body, language FROM reviews
		WHERE `+col+` = ? AND state = 'published' AND origin = 'own' AND experience = 'product' AND market = ?
		ORDER BY id`, key, market)
	return collect(rows, err, func(sc scanner) (AIDoc, error) {
		var d AIDoc
		return d, translate(sc.Scan(&d.ID, &d.PublicID, &d.Rating, &d.Title, &d.Body, &d.Language))
	})
}

// SaveAIFingerprint stores a review's text fingerprint.
func (q *Tx) SaveAIFingerprint(ctx context.Context, reviewID int64, variant string, simhash uint64) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO ai_fingerprints (review_id, variant_key, simhash) VALUES (?, ?, ?)
		ON CONFLICT (review_id) DO UPDATE SET variant_key = excluded.variant_key, simhash = excluded.simhash`,
		reviewID, variant, int64(simhash))
	return translate(err)
}

// Fingerprint is another review's text fingerprint.
type Fingerprint struct {
	ReviewID int64
	PublicID string
	SimHash  uint64
}

// AIFingerprints lists the fingerprints of a product's reviews and of the brand's
// newest recent reviews (up to recent), except review except.
func (q *Q) AIFingerprints(ctx context.Context, variant string, recent int, except int64) ([]Fingerprint, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT f.review_id, r.public_id, f.simhash FROM ai_fingerprints f
		JOIN reviews r ON r.id = f.review_id WHERE f.variant_key = ? AND f.review_id != ?
		UNION SELECT * FROM (SELECT f.review_id, r.public_id, f.simhash FROM ai_fingerprints f
		JOIN reviews r ON r.id = f.review_id WHERE f.review_id != ? ORDER BY f.review_id DESC LIMIT ?)`,
		variant, except, except, recent)
	return collect(rows, err, func(sc scanner) (Fingerprint, error) {
		var f Fingerprint
		var h int64
		err := sc.Scan(&f.ReviewID, &f.PublicID, &h)
		f.SimHash = uint64(h)
		return f, translate(err)
	})
}

// AIRequestsToday is the number of model calls made on a day (UTC).
func (q *Q) AIRequestsToday(ctx context.Context, day string) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT coalesce((SELECT requests FROM ai_usage WHERE day = ?), 0)`, day).Scan(&n)
	return n, translate(err)
}

// CountAIRequest adds one model call to a day's usage.
func (q *Tx) CountAIRequest(ctx context.Context, day string) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO ai_usage (day, requests) VALUES (?, 1)
		ON CONFLICT (day) DO UPDATE SET requests = requests + 1`, day)
	return translate(err)
}

// AILastError is the last model error and when it happened (empty when none).
func (q *Q) AILastError(ctx context.Context) (string, time.Time, error) {
	var msg string
	var at sql.NullInt64
	err := q.c.QueryRowContext(ctx, `SELECT last_error, last_error_at FROM ai_status WHERE id = 1`).Scan(&msg, &at)
	if err == sql.ErrNoRows {
		return "", time.Time{}, nil
	}
	if !at.Valid {
		return msg, time.Time{}, translate(err)
	}
	return msg, Time(at.Int64), translate(err)
}

// SetAILastError records the last model error.
func (q *Tx) SetAILastError(ctx context.Context, msg string) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO ai_status (id, last_error, last_error_at) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
		msg, Ms(q.Now))
	return translate(err)
}

const qAIRequestCols = `id, kind, scope, product_key, coalesce(review_id, 0), language, state, error, attempts, created_at, updated_at`

func scanAIRequest(sc scanner) (AIRequest, error) {
	var r AIRequest
	var c, u int64
	err := sc.Scan(&r.ID, &r.Kind, &r.Scope, &r.ProductKey, &r.ReviewID, &r.Language, &r.State, &r.Error, &r.Attempts, &c, &u)
	r.CreatedAt, r.UpdatedAt = Time(c), Time(u)
	return r, translate(err)
}

// AddAIRequest queues a request and returns it.
func (q *Tx) AddAIRequest(ctx context.Context, r AIRequest) (AIRequest, error) {
	var review any
	if r.ReviewID != 0 {
		review = r.ReviewID
	}
	res, err := q.c.ExecContext(ctx, `INSERT INTO ai_requests (kind, scope, product_key, review_id, language, state,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)`, r.Kind, r.Scope, r.ProductKey, review,
		r.Language, Ms(q.Now), Ms(q.Now))
	if err != nil {
		return r, translate(err)
	}
	id, _ := res.LastInsertId()
	return scanAIRequest(q.c.QueryRowContext(ctx, `SELECT `+qAIRequestCols+` FROM ai_requests WHERE id = ?`, id))
}

// AIRequestByID reads a request; ErrNotFound when none.
func (q *Q) AIRequestByID(ctx context.Context, id int64) (AIRequest, error) {
	return scanAIRequest(q.c.QueryRowContext(ctx, `SELECT `+qAIRequestCols+` FROM ai_requests WHERE id = ?`, id))
}

// QueuedAIRequests lists up to limit queued requests, oldest first.
func (q *Q) QueuedAIRequests(ctx context.Context, limit int) ([]AIRequest, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qAIRequestCols+` FROM ai_requests WHERE state = 'queued'
		ORDER BY id LIMIT ?`, limit)
	return collect(rows, err, scanAIRequest)
}

// SetAIRequestState moves a request to a state with an error text.
func (q *Tx) SetAIRequestState(ctx context.Context, id int64, state, errText string, attempt bool) error {
	n := 0
	if attempt {
		n = 1
	}
	_, err := q.c.ExecContext(ctx, `UPDATE ai_requests SET state = ?, error = ?, attempts = attempts + ?, updated_at = ?
		WHERE id = ?`, state, errText, n, Ms(q.Now), id)
	return translate(err)
}

// AIQueueCounts counts the requests waiting, running and failed.
func (q *Q) AIQueueCounts(ctx context.Context) (waiting, running, failed int, err error) {
	err = q.c.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'running'),
		count(*) FILTER (WHERE state = 'failed') FROM ai_requests`).Scan(&waiting, &running, &failed)
	return waiting, running, failed, translate(err)
}

// AITranslations reads the stored translations of reviews into a language
// (review id -> title, body).
func (q *Q) AITranslations(ctx context.Context, ids []int64, language string) (map[int64][2]string, error) {
	type tr struct {
		id                    int64
		language, title, body string
	}
	list, err := collectIn(ctx, q, `SELECT review_id, language, title, body FROM ai_translations WHERE review_id IN `, ids, ``,
		func(sc scanner) (tr, error) {
			var t tr
			return t, translate(sc.Scan(&t.id, &t.language, &t.title, &t.body))
		})
	out := map[int64][2]string{}
	for _, t := range list {
		if t.language == language {
			out[t.id] = [2]string{t.title, t.body}
		}
	}
	return out, err
}

// QueueDueTranslations queues, for up to limit published own reviews written in
// tr or en, a translation into the other language when neither a translation nor
// a request for it exists; it returns how many were queued.
func (q *Tx) QueueDueTranslations(ctx context.Context, limit int) (int64, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO ai_requests (kind, scope, review_id, language, state, created_at, updated_at)
		SELECT 'translation', 'variant', r.id, CASE r.language WHEN 'tr' THEN 'en' ELSE 'tr' END, 'queued', ?, ?
		FROM reviews r WHERE r.state = 'published' AND r.origin = 'own' AND r.language IN ('tr', 'en')
		AND NOT EXISTS (SELECT 1 FROM ai_translations t WHERE t.review_id = r.id AND t.language != r.language)
		AND NOT EXISTS (SELECT 1 FROM ai_requests a WHERE a.review_id = r.id AND a.kind = 'translation' AND a.language != r.language)
		ORDER BY r.id DESC LIMIT ?`, Ms(q.Now), Ms(q.Now), limit)
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// SaveAITranslation stores a review's translation into a language and moves its
// product's figures revision on (the list answers show translations).
func (q *Tx) SaveAITranslation(ctx context.Context, reviewID int64, language, title, body string) error {
	var variant, group, market string
	if err := q.c.QueryRowContext(ctx, `SELECT variant_key, group_key, market FROM reviews WHERE id = ?`, reviewID).
		Scan(&variant, &group, &market); err != nil {
		return translate(err)
	}
	if err := q.BumpProductRevision(ctx, ScopeVariant, variant, market); err != nil {
		return err
	}
	if group != "" {
		if err := q.BumpProductRevision(ctx, ScopeGroup, group, market); err != nil {
			return err
		}
	}
	_, err := q.c.ExecContext(ctx, `INSERT INTO ai_translations (review_id, language, title, body, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (review_id, language) DO UPDATE SET title = excluded.title,
		body = excluded.body, created_at = excluded.created_at`, reviewID, language, title, body, Ms(q.Now))
	return translate(err)
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Review is one review row. Aspects is the stored JSON object of topic key to value.
type Review struct {
	ID                 int64
	PublicID           string
	ChannelID          int64
	Market             string
	Language           string
	OrderID            int64 // 0 for imported reviews
	LineID             int64 // 0 for imported reviews
	TokenID            int64 // the token the review was written with (0 when none)
	VariantKey         string
	GroupKey           string
	ProductName        string
	Experience         string
	Origin             string
	State              string
	Rating             int
	Title              string
	Body               string
	BodyHash           string
	AuthorName         string
	HideName           bool
	Aspects            string
	AspectTemplate     string
	VerificationMethod string
	FlagOpen           bool
	ReturnedAt         time.Time
	HelpfulCount       int
	UnhelpfulCount     int
	SourcePlatform     string
	SourceName         string
	SourceURL          string
	SourceReviewID     string
	PublishedAt        time.Time
	SubmittedAt        time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
	AnonymizedAt       time.Time
	// Incentivized: written for an order line or through an invitation marked as
	// carrying an incentive (never from the rating).
	Incentivized bool
}

const (
	qReviewCols = `id, public_id, channel_id, market, language, order_id, line_id, token_id, variant_key, group_key,
		product_name, experience, origin, state, rating, title, body, body_hash, author_name, hide_name, aspects,
		aspect_template, verification_method, flag_open, returned_at, helpful_count, unhelpful_count,
		source_platform, source_name, source_url, source_review_id, published_at, submitted_at, created_at,
		updated_at, anonymized_at, incentivized`
	qReviewInsert = `INSERT INTO reviews (public_id, channel_id, market, language, order_id, line_id, token_id,
		variant_key, group_key, product_name, experience, origin, state, rating, title, body, body_hash, author_name,
		hide_name, aspects, aspect_template, verification_method, flag_open, source_platform, source_name, source_url,
		source_review_id, published_at, submitted_at, created_at, updated_at, incentivized)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

func scanReview(sc scanner) (Review, error) {
	var r Review
	var order, line, token, returned, published, anonymized sql.NullInt64
	var hide, flag, incentive int
	var submitted, created, updated int64
	err := sc.Scan(&r.ID, &r.PublicID, &r.ChannelID, &r.Market, &r.Language, &order, &line, &token, &r.VariantKey,
		&r.GroupKey, &r.ProductName, &r.Experience, &r.Origin, &r.State, &r.Rating, &r.Title, &r.Body, &r.BodyHash,
		&r.AuthorName, &hide, &r.Aspects, &r.AspectTemplate, &r.VerificationMethod, &flag, &returned,
		&r.HelpfulCount, &r.UnhelpfulCount, &r.SourcePlatform, &r.SourceName, &r.SourceURL, &r.SourceReviewID,
		&published, &submitted, &created, &updated, &anonymized, &incentive)
	r.Incentivized = incentive == 1
	r.OrderID, r.LineID, r.TokenID = idOf(order), idOf(line), idOf(token)
	r.HideName, r.FlagOpen = hide == 1, flag == 1
	r.ReturnedAt, r.PublishedAt, r.AnonymizedAt = NullTime(returned), NullTime(published), NullTime(anonymized)
	r.SubmittedAt, r.CreatedAt, r.UpdatedAt = Time(submitted), Time(created), Time(updated)
	return r, translate(err)
}

// CreateReview inserts a review; it returns it with ID, CreatedAt and UpdatedAt
// set. A second review of the same order line is ErrConflict.
func (q *Tx) CreateReview(ctx context.Context, r Review) (Review, error) {
	if r.Aspects == "" {
		r.Aspects = "{}"
	}
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, qReviewInsert, r.PublicID, r.ChannelID, r.Market, r.Language, nullID(r.OrderID),
		nullID(r.LineID), nullID(r.TokenID), r.VariantKey, r.GroupKey, r.ProductName, r.Experience, r.Origin, r.State,
		r.Rating, r.Title, r.Body, r.BodyHash, r.AuthorName, boolInt(r.HideName), r.Aspects, r.AspectTemplate,
		r.VerificationMethod, boolInt(r.FlagOpen), r.SourcePlatform, r.SourceName, r.SourceURL, r.SourceReviewID,
		nullMs(r.PublishedAt), Ms(r.SubmittedAt), now, now, boolInt(r.Incentivized))
	if err != nil {
		return r, fmt.Errorf("store: create review: %w", translate(err))
	}
	r.ID, _ = res.LastInsertId()
	r.CreatedAt, r.UpdatedAt = q.Now, q.Now
	return r, nil
}

// ReviewByID finds a review by id.
func (q *Q) ReviewByID(ctx context.Context, id int64) (Review, error) {
	return scanReview(q.c.QueryRowContext(ctx, `SELECT `+qReviewCols+` FROM reviews WHERE id = ?`, id))
}

// ReviewByPublicID finds a review by its public id.
func (q *Q) ReviewByPublicID(ctx context.Context, publicID string) (Review, error) {
	return scanReview(q.c.QueryRowContext(ctx, `SELECT `+qReviewCols+` FROM reviews WHERE public_id = ?`, publicID))
}

// ReviewByLine finds the review of an order line.
func (q *Q) ReviewByLine(ctx context.Context, lineID int64) (Review, error) {
	return scanReview(q.c.QueryRowContext(ctx, `SELECT `+qReviewCols+` FROM reviews WHERE line_id = ?`, lineID))
}

// ReviewsOfOrder lists the reviews written for an order's lines, oldest first.
func (q *Q) ReviewsOfOrder(ctx context.Context, orderID int64) ([]Review, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewCols+` FROM reviews WHERE order_id = ? ORDER BY id`, orderID)
	return collect(rows, err, scanReview)
}

// ReviewedLines reports which lines of an order have a review (any state), as a set
// of line ids.
func (q *Q) ReviewedLines(ctx context.Context, orderID int64) (map[int64]bool, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT line_id FROM reviews WHERE order_id = ? AND line_id IS NOT NULL`, orderID)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, translate(rows.Err())
}

// ReviewContent is what a customer's correction replaces.
type ReviewContent struct {
	Rating     int
	Title      string
	Body       string
	BodyHash   string
	AuthorName string
	HideName   bool
	Aspects    string
	Language   string
}

// UpdateReviewContent replaces the customer-written fields of a review and stamps
// submitted_at and updated_at with q.Now.
func (q *Tx) UpdateReviewContent(ctx context.Context, id int64, c ReviewContent) error {
	if c.Aspects == "" {
		c.Aspects = "{}"
	}
	now := Ms(q.Now)
	_, err := q.c.ExecContext(ctx, `UPDATE reviews SET rating = ?, title = ?, body = ?, body_hash = ?, author_name = ?,
		hide_name = ?, aspects = ?, language = ?, submitted_at = ?, updated_at = ? WHERE id = ?`,
		c.Rating, c.Title, c.Body, c.BodyHash, c.AuthorName, boolInt(c.HideName), c.Aspects, c.Language, now, now, id)
	return translate(err)
}

// SetReviewState moves a review to state. publishedAt is kept when zero (a review
// published before keeps its first publication time) and set otherwise.
func (q *Tx) SetReviewState(ctx context.Context, id int64, state string, publishedAt time.Time) error {
	_, err := q.c.ExecContext(ctx, `UPDATE reviews SET state = ?, published_at = coalesce(published_at, ?), updated_at = ?
		WHERE id = ?`, state, nullMs(publishedAt), Ms(q.Now), id)
	return translate(err)
}

// SetReviewFlag sets or clears flag_open.
func (q *Tx) SetReviewFlag(ctx context.Context, id int64, open bool) error {
	_, err := q.c.ExecContext(ctx, `UPDATE reviews SET flag_open = ?, updated_at = ? WHERE id = ?`, boolInt(open), Ms(q.Now), id)
	return translate(err)
}

// MarkReviewReturned sets the Returned mark (once; a later call keeps the first time).
// It reports whether the mark was new.
func (q *Tx) MarkReviewReturned(ctx context.Context, id int64, at time.Time) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE reviews SET returned_at = ?, updated_at = ? WHERE id = ? AND returned_at IS NULL`,
		Ms(at), Ms(q.Now), id)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReviewsWithBodyHash lists the public ids of reviews other than exceptID whose body
// has the given normalised hash and that are not removed, newest first, at most
// limit.
func (q *Q) ReviewsWithBodyHash(ctx context.Context, hash string, exceptID int64, limit int) ([]string, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT public_id FROM reviews WHERE body_hash = ? AND id != ? AND state != 'removed'
		ORDER BY id DESC LIMIT ?`, hash, exceptID, limit)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, translate(rows.Err())
}

// OrderForCheck reads the order with number externalID for the order check with
// the same work whether it exists or not: one index probe and one table row read
// and scanned either way. When the number is unknown the row read is a decoy (the
// oldest order) and found is false; ErrNotFound only when there are no orders.
func (q *Q) OrderForCheck(ctx context.Context, externalID string) (o Order, found bool, err error) {
	row := q.c.QueryRowContext(ctx, `SELECT `+qOrderCols+`, external_id = ? FROM orders
		WHERE id = coalesce((SELECT id FROM orders WHERE external_id = ?), (SELECT min(id) FROM orders))`,
		externalID, externalID)
	var placed, payChanged, created, updated int64
	var erased sql.NullInt64
	err = row.Scan(&o.ID, &o.ChannelID, &o.ExternalID, &o.Market, &o.Language, &o.PaymentState, &placed,
		&o.CustomerEmail, &o.CustomerKey, &erased, &payChanged, &created, &updated, &o.CustomerPhone, &found)
	o.PlacedAt, o.PaymentChangedAt, o.CreatedAt, o.UpdatedAt = Time(placed), Time(payChanged), Time(created), Time(updated)
	o.ErasedAt = NullTime(erased)
	return o, found, translate(err)
}

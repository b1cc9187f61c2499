package store

import (
	"context"
	"database/sql"
	"time"
)

// ReviewFeed is one product-review feed definition (table review_feeds).
type ReviewFeed struct {
	ID            int64
	Name          string
	ChannelID     int64  // 0: no channel scope
	ChannelCode   string // read with the feed; empty without a channel scope
	Market        string // empty: no market scope
	Names         string // as_shown or masked
	PublisherName string
	Salt          string
	CreatedBy     string
	CreatedAt     time.Time
	LastReadAt    time.Time
}

const qReviewFeedCols = `f.id, f.name, coalesce(f.channel_id, 0), coalesce(c.code, ''), f.market, f.names, f.publisher_name,
	f.salt, f.created_by, f.created_at, f.last_read_at`

const qReviewFeedFrom = ` FROM review_feeds f LEFT JOIN channels c ON c.id = f.channel_id`

func scanReviewFeed(sc scanner) (ReviewFeed, error) {
	var f ReviewFeed
	var created int64
	var read sql.NullInt64
	err := sc.Scan(&f.ID, &f.Name, &f.ChannelID, &f.ChannelCode, &f.Market, &f.Names, &f.PublisherName, &f.Salt,
		&f.CreatedBy, &created, &read)
	f.CreatedAt, f.LastReadAt = Time(created), NullTime(read)
	return f, translate(err)
}

// CreateReviewFeed stores a feed definition stamped q.Now and returns it with its id.
func (q *Tx) CreateReviewFeed(ctx context.Context, f ReviewFeed) (ReviewFeed, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO review_feeds (name, channel_id, market, names, publisher_name, salt, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, f.Name, nullID(f.ChannelID), f.Market, f.Names, f.PublisherName, f.Salt, f.CreatedBy, Ms(q.Now))
	if err != nil {
		return ReviewFeed{}, translate(err)
	}
	id, _ := res.LastInsertId()
	return q.ReviewFeedByID(ctx, id)
}

// ReviewFeedByID reads one feed definition (ErrNotFound when missing).
func (q *Q) ReviewFeedByID(ctx context.Context, id int64) (ReviewFeed, error) {
	return scanReviewFeed(q.c.QueryRowContext(ctx, `SELECT `+qReviewFeedCols+qReviewFeedFrom+` WHERE f.id = ?`, id))
}

// ReviewFeeds lists the feed definitions, oldest first.
func (q *Q) ReviewFeeds(ctx context.Context) ([]ReviewFeed, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewFeedCols+qReviewFeedFrom+` ORDER BY f.id`)
	return collect(rows, err, scanReviewFeed)
}

// DeleteReviewFeed removes a feed definition (ErrNotFound when missing).
func (q *Tx) DeleteReviewFeed(ctx context.Context, id int64) error {
	res, err := q.c.ExecContext(ctx, `DELETE FROM review_feeds WHERE id = ?`, id)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// TouchReviewFeed records that the feed was read at q.Now (once a minute at most).
func (q *Tx) TouchReviewFeed(ctx context.Context, id int64) error {
	_, err := q.c.ExecContext(ctx, `UPDATE review_feeds SET last_read_at = ? WHERE id = ? AND coalesce(last_read_at, 0) < ?`,
		Ms(q.Now), id, Ms(q.Now)-60000)
	return translate(err)
}

// FeedRevision is what every review feed is built of: n moves with every change of
// a review or a catalogue product, at is the newest change time seen; Gen is the
// read generation (channels, settings).
type FeedRevision struct {
	N   int64
	At  time.Time
	Gen int64
}

// ReviewFeedRevision reads the feed revision.
func (q *Q) ReviewFeedRevision(ctx context.Context) (FeedRevision, error) {
	var r FeedRevision
	var at int64
	err := q.c.QueryRowContext(ctx, `SELECT f.n, f.at, g.n FROM feed_revision f, read_generation g WHERE f.id = 1 AND g.id = 1`).
		Scan(&r.N, &at, &r.Gen)
	r.At = Time(at)
	return r, translate(err)
}

// FeedReview is one review of a product-review feed with its catalogue product.
type FeedReview struct {
	ID          int64
	PublicID    string
	OrderID     int64
	Rating      int
	Title       string
	Body        string
	AuthorName  string
	HideName    bool
	Language    string
	Proof       string // verification_method
	SubmittedAt time.Time
	VariantKey  string
	ProductName string // the catalogue's name, else the review's
	ProductURL  string
	Brand       string
	GTIN        string
	MPN         string
	CatalogID   string
	// Delivered: the review is tied to an order line with a delivery time.
	Delivered    bool
	Incentivized bool
}

// FeedReviewFilter picks the reviews of a feed: own, published product reviews of
// one channel (ChannelID), one market or all, whose product has an address in the
// catalogue; After and Limit page them by id.
type FeedReviewFilter struct {
	ChannelID int64
	Market    string
	After     int64
	Limit     int
}

const qFeedReviews = `SELECT r.id, r.public_id, coalesce(r.order_id, 0), r.rating, r.title, r.body, r.author_name,
	r.hide_name, r.language, r.verification_method, r.submitted_at, r.variant_key,
	CASE WHEN p.name != '' THEN p.name ELSE r.product_name END, p.url, p.brand, p.gtin, p.mpn, p.catalog_id,
	EXISTS (SELECT 1 FROM order_lines l WHERE l.id = r.line_id AND l.delivered_at IS NOT NULL), r.incentivized
	FROM reviews r JOIN products p ON p.variant_key = r.variant_key
	WHERE r.id > ? AND +r.state = 'published' AND r.origin = 'own' AND r.experience = 'product' AND p.url != ''
	AND (? = 0 OR r.channel_id = ?) AND (? = '' OR r.market = ?)
	ORDER BY r.id LIMIT ?`

// FeedReviews reads one page of a feed's reviews in id order. The state test is
// written +r.state so the planner walks reviews by id from After (a page reads
// about its own rows) instead of every published review through reviews_state
// sorted again for each page.
func (q *Q) FeedReviews(ctx context.Context, f FeedReviewFilter) ([]FeedReview, error) {
	rows, err := q.c.QueryContext(ctx, qFeedReviews, f.After, f.ChannelID, f.ChannelID, f.Market, f.Market, f.Limit)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := make([]FeedReview, 0, f.Limit)
	for rows.Next() {
		var r FeedReview
		var hide, delivered, incentive int
		var at int64
		if err := rows.Scan(&r.ID, &r.PublicID, &r.OrderID, &r.Rating, &r.Title, &r.Body, &r.AuthorName, &hide, &r.Language,
			&r.Proof, &at, &r.VariantKey, &r.ProductName, &r.ProductURL, &r.Brand, &r.GTIN, &r.MPN, &r.CatalogID,
			&delivered, &incentive); err != nil {
			return nil, translate(err)
		}
		r.HideName, r.SubmittedAt = hide == 1, Time(at)
		r.Delivered, r.Incentivized = delivered == 1, incentive == 1
		out = append(out, r)
	}
	return out, translate(rows.Err())
}

// FirstChannel is the channel with the smallest id (in market when set): the
// publisher of a feed without a channel scope.
func (q *Q) FirstChannel(ctx context.Context, market string) (Channel, error) {
	var id int64
	err := q.c.QueryRowContext(ctx, `SELECT id FROM channels WHERE (? = '' OR market = ?) ORDER BY id LIMIT 1`, market, market).Scan(&id)
	if err != nil {
		return Channel{}, translate(err)
	}
	return q.ChannelByID(ctx, id)
}

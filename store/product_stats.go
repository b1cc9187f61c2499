package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Product scopes (product_stats.scope, list parameter scope).
const (
	ScopeVariant = "variant"
	ScopeGroup   = "group"
)

// ProductStats are the precomputed figures of one product in one market
// (product_stats row). Aspects, ImportedSources, Topics and Gallery are JSON kept
// by app/core.
type ProductStats struct {
	Scope           string
	ProductKey      string
	Market          string
	Revision        int64
	Reviews         int
	RatingSum       int
	Ratings         [5]int // count of ratings 1..5
	Verified        int
	Imported        int
	Structured      int
	StructuredSum   int
	MediaReviews    int
	Syndicable      int
	SyndicableMedia int
	ProductName     string
	Aspects         string
	ImportedSources string
	Topics          string
	Gallery         string
	UpdatedAt       time.Time
}

const qStatsCols = `scope, product_key, market, revision, reviews, rating_sum, rating_1, rating_2, rating_3, rating_4,
	rating_5, verified, imported, structured, structured_sum, media_reviews, syndicable, syndicable_media, product_name,
	aspects, imported_sources, topics, gallery, updated_at`

func scanStats(sc scanner) (ProductStats, error) { return scanStatsAnd(sc) }

// scanStatsAnd scans the qStatsCols and then the columns after them into more.
func scanStatsAnd(sc scanner, more ...any) (ProductStats, error) {
	var s ProductStats
	var updated int64
	err := sc.Scan(append([]any{&s.Scope, &s.ProductKey, &s.Market, &s.Revision, &s.Reviews, &s.RatingSum, &s.Ratings[0], &s.Ratings[1],
		&s.Ratings[2], &s.Ratings[3], &s.Ratings[4], &s.Verified, &s.Imported, &s.Structured, &s.StructuredSum,
		&s.MediaReviews, &s.Syndicable, &s.SyndicableMedia, &s.ProductName, &s.Aspects, &s.ImportedSources, &s.Topics,
		&s.Gallery, &updated}, more...)...)
	s.UpdatedAt = Time(updated)
	return s, translate(err)
}

// ProductStatsOf reads the figures of a product in a market; ErrNotFound when the
// product never had a published review there.
func (q *Q) ProductStatsOf(ctx context.Context, scope, key, market string) (ProductStats, error) {
	return scanStats(q.c.QueryRowContext(ctx, `SELECT `+qStatsCols+` FROM product_stats
		WHERE scope = ? AND product_key = ? AND market = ?`, scope, key, market))
}

// ProductStatsAndSummary reads what ProductStatsOf reads and, in the same query,
// the product's stored AI summary there ("" when it has none): a list answer with
// a summary pays no second read.
func (q *Q) ProductStatsAndSummary(ctx context.Context, scope, key, market string) (ProductStats, string, error) {
	var summary sql.NullString
	s, err := scanStatsAnd(q.c.QueryRowContext(ctx, `SELECT `+qStatsColsOfP+`, s.summary FROM product_stats p
		LEFT JOIN ai_summaries s ON s.scope = p.scope AND s.product_key = p.product_key AND s.market = p.market
		WHERE p.scope = ? AND p.product_key = ? AND p.market = ?`, scope, key, market), &summary)
	return s, summary.String, err
}

// qStatsColsOfP are the qStatsCols of the table named p.
var qStatsColsOfP = "p." + strings.Join(strings.Fields(strings.ReplaceAll(qStatsCols, ",", " ")), ", p.")

// ProductStatsAllMarkets reads the figures of a product in every market, by market.
func (q *Q) ProductStatsAllMarkets(ctx context.Context, scope, key string) ([]ProductStats, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qStatsCols+` FROM product_stats WHERE scope = ? AND product_key = ?
		ORDER BY market`, scope, key)
	return collect(rows, err, scanStats)
}

// SaveProductStats writes the figures of a product in a market (insert or
// replace), stamping updated_at with q.Now. The caller sets Revision.
func (q *Tx) SaveProductStats(ctx context.Context, s ProductStats) error {
	for _, js := range []*string{&s.Aspects, &s.ImportedSources} {
		if *js == "" {
			*js = "{}"
		}
	}
	for _, js := range []*string{&s.Topics, &s.Gallery} {
		if *js == "" {
			*js = "[]"
		}
	}
	q.touchProduct(s.Scope, s.ProductKey)
	_, err := q.c.ExecContext(ctx, `INSERT OR REPLACE INTO product_stats (`+qStatsCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.Scope, s.ProductKey, s.Market, s.Revision, s.Reviews, s.RatingSum, s.Ratings[0], s.Ratings[1], s.Ratings[2],
		s.Ratings[3], s.Ratings[4], s.Verified, s.Imported, s.Structured, s.StructuredSum, s.MediaReviews, s.Syndicable,
		s.SyndicableMedia, s.ProductName, s.Aspects, s.ImportedSources, s.Topics, s.Gallery, Ms(q.Now))
	if err != nil {
		return fmt.Errorf("store: save product stats: %w", translate(err))
	}
	return nil
}

// BumpProductRevision moves the revision of a product's figures on (a helpful vote
// changed one of its reviews); a product without figures is left alone.
func (q *Tx) BumpProductRevision(ctx context.Context, scope, key, market string) error {
	q.touchProduct(scope, key)
	_, err := q.c.ExecContext(ctx, `UPDATE product_stats SET revision = revision + 1, updated_at = ?
		WHERE scope = ? AND product_key = ? AND market = ?`, Ms(q.Now), scope, key, market)
	return translate(err)
}

// Listing is one review_listing row: a published review as the list sees it.
type Listing struct {
	ReviewID     int64
	VariantKey   string
	GroupKey     string
	Market       string
	Rating       int
	Verified     bool
	Syndicable   bool
	HasMedia     bool
	Helpful      int
	PublishedAt  time.Time
	Contribution string // JSON kept by app/core
}

const qListingCols = `review_id, variant_key, group_key, market, rating, verified, syndicable, has_media, helpful,
	published_at, contribution`

func scanListing(sc scanner) (Listing, error) {
	var l Listing
	var verified, syndicable, media int
	var published int64
	err := sc.Scan(&l.ReviewID, &l.VariantKey, &l.GroupKey, &l.Market, &l.Rating, &verified, &syndicable, &media,
		&l.Helpful, &published, &l.Contribution)
	l.Verified, l.Syndicable, l.HasMedia = verified == 1, syndicable == 1, media == 1
	l.PublishedAt = Time(published)
	return l, translate(err)
}

// ListingOf reads the listing row of a review; ErrNotFound when it is not listed.
func (q *Q) ListingOf(ctx context.Context, reviewID int64) (Listing, error) {
	return scanListing(q.c.QueryRowContext(ctx, `SELECT `+qListingCols+` FROM review_listing WHERE review_id = ?`, reviewID))
}

// SaveListing writes the listing row of a review: inserted, or updated in place
// (not replaced: a replacement deletes without the delete triggers, so the photo
// figures would count a review once per save).
func (q *Tx) SaveListing(ctx context.Context, l Listing) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO review_listing (`+qListingCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (review_id) DO UPDATE SET variant_key = excluded.variant_key, group_key = excluded.group_key,
			market = excluded.market, rating = excluded.rating, verified = excluded.verified, syndicable = excluded.syndicable,
			has_media = excluded.has_media, helpful = excluded.helpful, published_at = excluded.published_at,
			contribution = excluded.contribution`, l.ReviewID, l.VariantKey, l.GroupKey, l.Market, l.Rating,
		boolInt(l.Verified), boolInt(l.Syndicable), boolInt(l.HasMedia), l.Helpful, Ms(l.PublishedAt), l.Contribution)
	if err != nil {
		return fmt.Errorf("store: save listing: %w", translate(err))
	}
	return nil
}

// DeleteListing removes the listing row of a review (no error when there is none).
func (q *Tx) DeleteListing(ctx context.Context, reviewID int64) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM review_listing WHERE review_id = ?`, reviewID)
	return translate(err)
}

// SetListingHelpful copies a review's helpful count into its listing row.
func (q *Tx) SetListingHelpful(ctx context.Context, reviewID int64, helpful int) error {
	_, err := q.c.ExecContext(ctx, `UPDATE review_listing SET helpful = ? WHERE review_id = ?`, helpful, reviewID)
	return translate(err)
}

// ProductWord is one counted word of a product's reviews.
type ProductWord struct {
	Word    string // normalised
	Form    string // as first written, lower case
	Reviews int
}

// AddProductWords adds delta (+1 or -1) to the review count of each word (folded
// word -> written form) of a product in a market; words reaching 0 are deleted.
func (q *Tx) AddProductWords(ctx context.Context, scope, key, market string, words map[string]string, delta int) error {
	for w, form := range words {
		if delta > 0 {
			_, err := q.c.ExecContext(ctx, `INSERT INTO product_words (scope, product_key, market, word, form, reviews)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, product_key, market, word)
				DO UPDATE SET reviews = reviews + excluded.reviews`, scope, key, market, w, form, delta)
			if err != nil {
				return fmt.Errorf("store: add product words: %w", translate(err))
			}
			continue
		}
		_, err := q.c.ExecContext(ctx, `UPDATE product_words SET reviews = reviews + ?
			WHERE scope = ? AND product_key = ? AND market = ? AND word = ?`, delta, scope, key, market, w)
		if err != nil {
			return fmt.Errorf("store: add product words: %w", translate(err))
		}
	}
	if delta < 0 {
		_, err := q.c.ExecContext(ctx, `DELETE FROM product_words WHERE scope = ? AND product_key = ? AND market = ?
			AND reviews <= 0`, scope, key, market)
		return translate(err)
	}
	return nil
}

// TopProductWords lists the words of a product in a market found in at least min
// reviews, most frequent first (then alphabetical), at most limit.
func (q *Q) TopProductWords(ctx context.Context, scope, key, market string, min, limit int) ([]ProductWord, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT word, form, reviews FROM product_words
		WHERE scope = ? AND product_key = ? AND market = ? AND reviews >= ?
		ORDER BY reviews DESC, word LIMIT ?`, scope, key, market, min, limit)
	return collect(rows, err, func(sc scanner) (ProductWord, error) {
		var w ProductWord
		err := sc.Scan(&w.Word, &w.Form, &w.Reviews)
		return w, err
	})
}

// keyColumn is the listing column of a scope plus the term that lets SQLite use the
// partial group indexes.
func keyColumn(scope string) (col, extra string) {
	if scope == ScopeGroup {
		return "group_key", " AND group_key != ''"
	}
	return "variant_key", ""
}

// MediaReviewsNewest lists the ids of a product's published reviews in a market that
// have ready media, newest first, at most limit.
func (q *Q) MediaReviewsNewest(ctx context.Context, scope, key, market string, limit int) ([]int64, error) {
	col, extra := keyColumn(scope)
	rows, err := q.c.QueryContext(ctx, `SELECT review_id FROM review_listing WHERE `+col+` = ?`+extra+`
		AND market = ? AND has_media = 1 ORDER BY published_at DESC, review_id DESC LIMIT ?`, key, market, limit)
	return collectIDs(rows, err)
}

// ResetReadModel empties the listing, the search index and the product words and
// sets every product's figures to zero (keeping their revisions), before a full
// rebuild.
func (q *Tx) ResetReadModel(ctx context.Context) error {
	q.touchAllProducts()
	for _, s := range []string{`DELETE FROM review_listing`, `DELETE FROM product_words`,
		`INSERT INTO review_search (review_search) VALUES ('delete-all')`,
		`UPDATE product_stats SET reviews = 0, rating_sum = 0, rating_1 = 0, rating_2 = 0, rating_3 = 0, rating_4 = 0,
			rating_5 = 0, verified = 0, imported = 0, structured = 0, structured_sum = 0, media_reviews = 0, syndicable = 0,
			syndicable_media = 0, aspects = '{}', imported_sources = '{}', topics = '[]', gallery = '[]'`} {
		if _, err := q.c.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("store: reset read model: %w", translate(err))
		}
	}
	return nil
}

// PublishedReviewsAfter lists up to limit published reviews with an id above
// afterID, by id.
func (q *Q) PublishedReviewsAfter(ctx context.Context, afterID int64, limit int) ([]Review, error) {
	// +state keeps SQLite on the rowid (the state index would sort every published
	// review on each batch).
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewCols+` FROM reviews WHERE id > ? AND +state = 'published'
		ORDER BY id LIMIT ?`, afterID, limit)
	return collect(rows, err, scanReview)
}

// ProductRefs lists every product row of product_stats as scope, key, market.
func (q *Q) ProductRefs(ctx context.Context) ([][3]string, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT scope, product_key, market FROM product_stats`)
	return collect(rows, err, func(sc scanner) ([3]string, error) {
		var r [3]string
		err := sc.Scan(&r[0], &r[1], &r[2])
		return r, err
	})
}

// AddProductWordCounts writes the review counts of a product's words in a market
// (added to any count already stored), with multi-row statements.
func (q *Tx) AddProductWordCounts(ctx context.Context, scope, key, market string, words []ProductWord) error {
	const cols, per = 6, 500
	for start := 0; start < len(words); start += per {
		part := words[start:min(start+per, len(words))]
		args := make([]any, 0, len(part)*cols)
		for _, w := range part {
			args = append(args, scope, key, market, w.Word, w.Form, w.Reviews)
		}
		_, err := q.c.ExecContext(ctx, `INSERT INTO product_words (scope, product_key, market, word, form, reviews) VALUES `+
			valuesList(len(part), cols)+` ON CONFLICT (scope, product_key, market, word)
			DO UPDATE SET reviews = reviews + excluded.reviews`, args...)
		if err != nil {
			return fmt.Errorf("store: add product word counts: %w", translate(err))
		}
	}
	return nil
}

// ProductRevision is the revision of one product's figures in a market.
type ProductRevision struct {
	Market   string
	Revision int64
}

// ProductRevisions reads the revisions of a product's figures: in market, or in
// every market when market is "" (by market). A product without figures has none.
func (q *Q) ProductRevisions(ctx context.Context, scope, key, market string) ([]ProductRevision, error) {
	var rows *sql.Rows
	var err error
	if market != "" {
		rows, err = q.c.QueryContext(ctx, `SELECT market, revision FROM product_stats WHERE scope = ? AND product_key = ?
			AND market = ?`, scope, key, market)
	} else {
		rows, err = q.c.QueryContext(ctx, `SELECT market, revision FROM product_stats WHERE scope = ? AND product_key = ?
			ORDER BY market`, scope, key)
	}
	return collect(rows, err, func(sc scanner) (ProductRevision, error) {
		var r ProductRevision
		err := sc.Scan(&r.Market, &r.Revision)
		return r, err
	})
}

// AddListings inserts listing rows and their search entries in bulk (a full
// rebuild, after ResetReadModel); texts[i] holds the product tokens and the text of
// ls[i].
func (q *Tx) AddListings(ctx context.Context, ls []Listing, texts [][2]string) error {
	const per = 400
	for start := 0; start < len(ls); start += per {
		part := ls[start:min(start+per, len(ls))]
		args := make([]any, 0, len(part)*11)
		fts := make([]any, 0, len(part)*3)
		for i, l := range part {
			args = append(args, l.ReviewID, l.VariantKey, l.GroupKey, l.Market, l.Rating, boolInt(l.Verified),
				boolInt(l.Syndicable), boolInt(l.HasMedia), l.Helpful, Ms(l.PublishedAt), l.Contribution)
			fts = append(fts, l.ReviewID, texts[start+i][0], texts[start+i][1])
		}
		if _, err := q.c.ExecContext(ctx, `INSERT INTO review_listing (`+qListingCols+`) VALUES `+
			valuesList(len(part), 11), args...); err != nil {
			return fmt.Errorf("store: add listings: %w", translate(err))
		}
		if _, err := q.c.ExecContext(ctx, `INSERT INTO review_search (rowid, product, text) VALUES `+
			valuesList(len(part), 3), fts...); err != nil {
			return fmt.Errorf("store: add listings: %w", translate(err))
		}
	}
	return nil
}

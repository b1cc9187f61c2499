package store

import (
	"context"
	"fmt"
	"strings"
)

// IndexReviewText puts a published review into the search index (replacing its
// previous entry): product holds the review's product tokens, text its normalised
// title and body (app/core builds both).
func (q *Tx) IndexReviewText(ctx context.Context, reviewID int64, product, text string) error {
	if err := q.UnindexReview(ctx, reviewID); err != nil {
		return err
	}
	_, err := q.c.ExecContext(ctx, `INSERT INTO review_search (rowid, product, text) VALUES (?, ?, ?)`, reviewID, product, text)
	if err != nil {
		return fmt.Errorf("store: index review: %w", translate(err))
	}
	return nil
}

// UnindexReview takes a review out of the search index (no error when absent).
func (q *Tx) UnindexReview(ctx context.Context, reviewID int64) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM review_search WHERE rowid = ?`, reviewID)
	return translate(err)
}

// List sort orders (core.Sort* carry the same codes).
const (
	sortNewest     = "newest"
	sortOldest     = "oldest"
	sortRatingHigh = "rating_high"
	sortRatingLow  = "rating_low"
	sortHelpful    = "helpful"
)

// ReviewFilter selects published reviews of one product for a list page.
type ReviewFilter struct {
	Scope  string // variant or group
	Key    string
	Market string
	// Syndicated adds the syndicable reviews of the product's other markets.
	Syndicated bool
	// OwnFirst puts the market's own reviews before syndicated ones.
	OwnFirst bool
	Rating   int // 1..5, 0 for any
	Verified bool
	Media    bool
	// Match is an FTS5 expression over review_search (app/core builds it); "" for
	// none.
	Match string
	// Only keeps the reviews of these ids, Exclude leaves them out (the featured
	// reviews, read apart from the rest of the list); nil for no limit.
	Only, Exclude []int64
	Sort          string // newest, oldest, rating_high, rating_low, helpful
	Limit         int
	Offset        int
}

// where builds the WHERE clause over review_listing and its arguments.
func (f ReviewFilter) where() (string, []any) {
	col, extra := keyColumn(f.Scope)
	var b strings.Builder
	args := []any{f.Key}
	b.WriteString(col + ` = ?` + extra)
	if f.Syndicated {
		b.WriteString(` AND (market = ? OR syndicable = 1)`)
	} else {
		b.WriteString(` AND market = ?`)
	}
	args = append(args, f.Market)
	if f.Rating > 0 {
		b.WriteString(` AND rating = ?`)
		args = append(args, f.Rating)
	}
	if f.Verified {
		b.WriteString(` AND verified = 1`)
	}
	if f.Media {
		b.WriteString(` AND has_media = 1`)
	}
	if f.Match != "" {
		b.WriteString(` AND review_id IN (SELECT rowid FROM review_search WHERE review_search MATCH ?)`)
		args = append(args, f.Match)
	}
	if f.Only != nil {
		b.WriteString(` AND review_id IN (` + placeholders(len(f.Only)) + `)`)
		for _, id := range f.Only {
			args = append(args, id)
		}
	}
	if len(f.Exclude) > 0 {
		b.WriteString(` AND review_id NOT IN (` + placeholders(len(f.Exclude)) + `)`)
		for _, id := range f.Exclude {
			args = append(args, id)
		}
	}
	return b.String(), args
}

// order returns the ORDER BY terms over review_listing (inner) and over the aliases
// of the outer query.
func (f ReviewFilter) order() (inner, outer string) {
	switch f.Sort {
	case sortOldest:
		inner, outer = "published_at, review_id", "lpub, lid"
	case sortRatingHigh:
		inner, outer = "rating DESC, published_at DESC, review_id DESC", "lrat DESC, lpub DESC, lid DESC"
	case sortRatingLow:
		inner, outer = "rating, published_at DESC, review_id DESC", "lrat, lpub DESC, lid DESC"
	case sortHelpful:
		inner, outer = "helpful DESC, published_at DESC, review_id DESC", "lhelp DESC, lpub DESC, lid DESC"
	default:
		inner, outer = "published_at DESC, review_id DESC", "lpub DESC, lid DESC"
	}
	if f.Syndicated && f.OwnFirst {
		inner, outer = "(market != ?), "+inner, "lsyn, "+outer
	}
	return inner, outer
}

// ListPublished returns one page of published reviews under f, in f's order. The
// inner query selects only columns of the sort's index, so the rows skipped by the
// offset are read from the index alone.
func (q *Q) ListPublished(ctx context.Context, f ReviewFilter) ([]Review, error) {
	where, args := f.where()
	inner, outer := f.order()
	cols := "review_id AS lid, published_at AS lpub, (market != ?) AS lsyn"
	switch f.Sort {
	case sortRatingHigh, sortRatingLow:
		cols += ", rating AS lrat"
	case sortHelpful:
		cols += ", helpful AS lhelp"
	}
	var all []any
	all = append(all, f.Market)
	all = append(all, args...)
	if f.Syndicated && f.OwnFirst {
		all = append(all, f.Market)
	}
	all = append(all, f.Limit, f.Offset)
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewCols+` FROM reviews JOIN (
			SELECT `+cols+` FROM review_listing WHERE `+where+` ORDER BY `+inner+` LIMIT ? OFFSET ?
		) ON id = lid ORDER BY `+outer, all...)
	out, err := collect(rows, err, scanReview)
	if err != nil {
		return nil, fmt.Errorf("store: list reviews: %w", err)
	}
	return out, nil
}

// CountPublished counts the published reviews under f (paging ignored) and, of
// those, the syndicated ones (from another market).
func (q *Q) CountPublished(ctx context.Context, f ReviewFilter) (total, shared int, err error) {
	where, args := f.where()
	all := append([]any{f.Market}, args...)
	err = q.c.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(market != ?), 0) FROM review_listing WHERE `+where,
		all...).Scan(&total, &shared)
	return total, shared, translate(err)
}

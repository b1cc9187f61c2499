package store

import (
	"context"
	"fmt"
	"strings"
)

// Featured reviews (review_pins): the brand pins published reviews to the top of
// their product's list. The trigger review_pins_unpublished drops the pin of a
// review leaving the published state; app/core/reviews keeps the limit.

// PinReview pins a review (a no-op when it is pinned already: added is false).
func (q *Tx) PinReview(ctx context.Context, r Review, by string) (added bool, err error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO review_pins (review_id, market, variant_key, group_key, pinned_by, pinned_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (review_id) DO NOTHING`, r.ID, r.Market, r.VariantKey, r.GroupKey, by, Ms(q.Now))
	if err != nil {
		return false, fmt.Errorf("store: pin review: %w", translate(err))
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// UnpinReview drops a review's pin (removed is false when it had none).
func (q *Tx) UnpinReview(ctx context.Context, reviewID int64) (removed bool, err error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM review_pins WHERE review_id = ?`, reviewID)
	if err != nil {
		return false, fmt.Errorf("store: unpin review: %w", translate(err))
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// IsPinned reports whether a review is pinned.
func (q *Q) IsPinned(ctx context.Context, reviewID int64) (bool, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM review_pins WHERE review_id = ?`, reviewID).Scan(&n)
	return n > 0, translate(err)
}

// PinCount counts the pins of a product (scope variant or group) in a market.
func (q *Q) PinCount(ctx context.Context, scope, key, market string) (int, error) {
	col, extra := keyColumn(scope)
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM review_pins WHERE market = ? AND `+col+` = ?`+extra,
		market, key).Scan(&n)
	return n, translate(err)
}

// PinnedOf lists the pinned reviews of a product's list in a market (those still
// listed, so published).
func (q *Q) PinnedOf(ctx context.Context, scope, key, market string) ([]int64, error) {
	col, extra := keyColumn(scope)
	rows, err := q.c.QueryContext(ctx, `SELECT p.review_id FROM review_pins p JOIN review_listing l ON l.review_id = p.review_id
		WHERE p.market = ? AND p.`+col+` = ?`+strings.ReplaceAll(extra, "group_key", "p.group_key")+` ORDER BY p.review_id`, market, key)
	return collectIDs(rows, err)
}

// PinnedAmong returns which of ids are pinned.
func (q *Q) PinnedAmong(ctx context.Context, ids []int64) (map[int64]bool, error) {
	got, err := collectIn(ctx, q, `SELECT review_id FROM review_pins WHERE review_id IN `, ids, ``,
		func(sc scanner) (int64, error) {
			var id int64
			err := sc.Scan(&id)
			return id, err
		})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(got))
	for _, id := range got {
		out[id] = true
	}
	return out, nil
}

// MarketFilter selects published reviews of one market across products, newest
// first (the store-wide review page and the carousel).
type MarketFilter struct {
	Market    string
	Rating    int // 1..5, 0 for any
	MinRating int // at least this rating (0 for any)
	Verified  bool
	Media     bool
	Text      bool // with a title or body
	Pinned    bool // only pinned reviews
	Limit     int
	Offset    int
}

func (f MarketFilter) where() (string, []any) {
	var b strings.Builder
	args := []any{f.Market}
	b.WriteString(`l.market = ?`)
	if f.Rating > 0 {
		b.WriteString(` AND l.rating = ?`)
		args = append(args, f.Rating)
	}
	if f.MinRating > 0 {
		b.WriteString(` AND l.rating >= ?`)
		args = append(args, f.MinRating)
	}
	if f.Verified {
		b.WriteString(` AND l.verified = 1`)
	}
	if f.Media {
		b.WriteString(` AND l.has_media = 1`)
	}
	if f.Pinned {
		b.WriteString(` AND l.review_id IN (SELECT review_id FROM review_pins WHERE market = l.market)`)
	}
	if f.Text {
		b.WriteString(` AND EXISTS (SELECT 1 FROM reviews r WHERE r.id = l.review_id AND (r.title != '' OR r.body != ''))`)
	}
	return b.String(), args
}

// ListMarketPublished returns one page of a market's published reviews under f,
// newest first.
func (q *Q) ListMarketPublished(ctx context.Context, f MarketFilter) ([]Review, error) {
	where, args := f.where()
	args = append(args, f.Limit, f.Offset)
	rows, err := q.c.QueryContext(ctx, `SELECT `+qReviewCols+` FROM reviews JOIN (
			SELECT l.review_id AS lid, l.published_at AS lpub FROM review_listing l WHERE `+where+`
			ORDER BY l.published_at DESC, l.review_id DESC LIMIT ? OFFSET ?
		) ON id = lid ORDER BY lpub DESC, lid DESC`, args...)
	out, err := collect(rows, err, scanReview)
	if err != nil {
		return nil, fmt.Errorf("store: list market reviews: %w", err)
	}
	return out, nil
}

// CountMarketPublished counts a market's published reviews under f (paging ignored).
func (q *Q) CountMarketPublished(ctx context.Context, f MarketFilter) (int, error) {
	where, args := f.where()
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM review_listing l WHERE `+where, args...).Scan(&n)
	return n, translate(err)
}

// ProductLink is what the catalogue knows of a product for a link: its name and
// page address (empty when unknown).
type ProductLink struct {
	VariantKey string
	Name       string
	URL        string
}

// ProductLinks reads the catalogue's name and address of products by variant key;
// products the catalogue does not know are absent.
func (q *Q) ProductLinks(ctx context.Context, variantKeys []string) (map[string]ProductLink, error) {
	got, err := collectIn(ctx, q, `SELECT variant_key, name, url FROM products WHERE variant_key IN `, variantKeys, ``,
		func(sc scanner) (ProductLink, error) {
			var p ProductLink
			err := sc.Scan(&p.VariantKey, &p.Name, &p.URL)
			return p, err
		})
	if err != nil {
		return nil, err
	}
	out := make(map[string]ProductLink, len(got))
	for _, p := range got {
		out[p.VariantKey] = p
	}
	return out, nil
}

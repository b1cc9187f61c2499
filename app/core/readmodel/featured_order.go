package readmodel

import (
	"context"

	"reviewd/app/core/brand"
	"reviewd/store"
)

// The featured-pin ordering of a product's list: the reviews the brand pinned come
// first in the market's default sort, and carry the featured label.

// featuredFirst reports whether a list puts the featured reviews first: only in
// the market's default sort without filters or search.
func featuredFirst(lq listQuery, rule brand.MarketRule) bool {
	return lq.sort == rule.DefaultSort && lq.rating == 0 && !lq.verified && !lq.media && lq.q == "" && lq.topic == ""
}

// listFeaturedFirst reads the page of f from the list of the pinned reviews (in
// f's sort) followed by the other reviews (in f's sort): the total is unchanged.
func listFeaturedFirst(ctx context.Context, q *store.Q, f store.ReviewFilter, pinned []int64) ([]store.Review, error) {
	var out []store.Review
	if f.Offset < len(pinned) {
		head := f
		head.Only = pinned
		rows, err := q.ListPublished(ctx, head)
		if err != nil {
			return nil, err
		}
		out = rows
	}
	if len(out) >= f.Limit {
		return out, nil
	}
	rest := f
	rest.Exclude = pinned
	rest.Offset = max(0, f.Offset-len(pinned))
	rest.Limit = f.Limit - len(out)
	rows, err := q.ListPublished(ctx, rest)
	if err != nil {
		return nil, err
	}
	return append(out, rows...), nil
}

// markFeatured sets the featured flag and label of the rows of pinned reviews.
func markFeatured(out []ReviewRow, rows []store.Review, pinned []int64, lang string) {
	if len(pinned) == 0 {
		return
	}
	on := make(map[int64]bool, len(pinned))
	for _, id := range pinned {
		on[id] = true
	}
	for i, r := range rows {
		if on[r.ID] && i < len(out) {
			out[i].Featured, out[i].FeaturedLabel = true, FeaturedLabel(lang)
		}
	}
}

// featuredLabels is the label of a review the brand pinned, per page language.
var featuredLabels = map[string]string{
	"tr": "Markanın seçtiği",
	"en": "Selected by the brand",
}

// FeaturedLabel is the label of a featured review in lang (en when unknown).
func FeaturedLabel(lang string) string {
	if l, ok := featuredLabels[lang]; ok {
		return l
	}
	return featuredLabels["en"]
}

package readmodel

import (
	"context"
	"errors"
	"reviewd/store"
)

// RebuildProductStats rebuilds the listing, the search index and every product's
// figures from the reviews table: after an upgrade from a version without them, or
// as a repair. Reviews are read in batches; the figures are summed in memory and
// written at the end (revisions move on, so cached answers are replaced). Lists
// show incomplete figures while it runs. It returns the number of published
// reviews.
func (c *Service) RebuildProductStats(ctx context.Context) (int, error) {
	const batch = 2000
	if err := c.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.ResetReadModel(ctx) }); err != nil {
		return 0, err
	}
	work := map[productRef]*statsWork{}
	words := map[productRef]map[string]*wordCount{}
	total := 0
	var after int64
	for {
		rows, err := c.DB.Read().PublishedReviewsAfter(ctx, after, batch)
		if err != nil {
			return total, err
		}
		if len(rows) == 0 {
			break
		}
		after = rows[len(rows)-1].ID
		total += len(rows)
		err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
			ids := make([]int64, len(rows))
			for i, r := range rows {
				ids[i] = r.ID
			}
			media, err := tx.MediaOfReviews(ctx, ids)
			if err != nil {
				return err
			}
			byReview := map[int64][]store.Media{}
			for _, m := range media {
				byReview[m.ReviewID] = append(byReview[m.ReviewID], m)
			}
			listings := make([]store.Listing, 0, len(rows))
			texts := make([][2]string, 0, len(rows))
			for _, r := range rows {
				ct, err := c.contributionOf(ctx, tx.Q, r, byReview[r.ID])
				if err != nil {
					return err
				}
				for _, ref := range RefsOf(r.VariantKey, r.GroupKey, r.Market) {
					w := work[ref]
					if w == nil {
						w = newStatsWork(store.ProductStats{Scope: ref.Scope, ProductKey: ref.Key, Market: ref.Market})
						work[ref] = w
					}
					w.apply(ct, +1)
					if r.ProductName != "" && w.st.ProductName == "" {
						w.st.ProductName = r.ProductName
					}
					ws := words[ref]
					if ws == nil {
						ws = map[string]*wordCount{}
						words[ref] = ws
					}
					for f, form := range ct.Words {
						if wc := ws[f]; wc != nil {
							wc.n++
						} else {
							ws[f] = &wordCount{form: form, n: 1}
						}
					}
				}
				listings = append(listings, store.Listing{ReviewID: r.ID, VariantKey: r.VariantKey, GroupKey: r.GroupKey,
					Market: r.Market, Rating: r.Rating, Verified: ct.Verified, Syndicable: ct.Syndicable, HasMedia: ct.Media,
					Helpful: r.HelpfulCount, PublishedAt: publishedAt(r), Contribution: jsonString(ct)})
				texts = append(texts, [2]string{productTokens(r), searchText(r)})
			}
			return tx.AddListings(ctx, listings, texts)
		})
		if err != nil {
			return total, err
		}
	}
	// Products that lost every review keep a zero row; they are refreshed too.
	refs, err := c.DB.Read().ProductRefs(ctx)
	if err != nil {
		return total, err
	}
	for _, r := range refs {
		ref := productRef{r[0], r[1], r[2]}
		if work[ref] == nil {
			work[ref] = newStatsWork(store.ProductStats{Scope: ref.Scope, ProductKey: ref.Key, Market: ref.Market})
		}
	}
	list := make([]productRef, 0, len(work))
	for ref := range work {
		list = append(list, ref)
	}
	for start := 0; start < len(list); start += 500 {
		part := list[start:min(start+500, len(list))]
		err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
			for _, ref := range part {
				w := work[ref]
				if err := tx.AddProductWordCounts(ctx, ref.Scope, ref.Key, ref.Market, wordCounts(words[ref])); err != nil {
					return err
				}
				old, err := tx.ProductStatsOf(ctx, ref.Scope, ref.Key, ref.Market)
				if err == nil {
					w.st.Revision = old.Revision
				} else if !errors.Is(err, store.ErrNotFound) {
					return err
				}
				w.gallery, w.topics, w.dirtyAsp = true, true, true
				if err := c.refreshProductStats(ctx, tx, ref, w); err != nil {
					return err
				}
				delete(words, ref)
			}
			return nil
		})
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

type wordCount struct {
	form string
	n    int
}

func wordCounts(m map[string]*wordCount) []store.ProductWord {
	out := make([]store.ProductWord, 0, len(m))
	for f, wc := range m {
		out = append(out, store.ProductWord{Word: f, Form: wc.form, Reviews: wc.n})
	}
	return out
}

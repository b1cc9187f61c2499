package reviews

import (
	"context"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/store"
)

// Featured reviews: the brand pins up to MaxPins published reviews of a product to
// the top of its list's default sort (PUT and DELETE /admin/v1/reviews/<id>/featured,
// permission moderate). The limit holds in every list the review appears in: its
// variant's and, when it has one, its group's, in the review's market. A pin
// changes no figure (average, count, histogram); it moves the product's read
// revision, so the storefront's cached answers and ETags of the product change.
// A review leaving the published state loses its pin (trigger review_pins_unpublished).

// MaxPins is the most featured reviews of one product list.
const MaxPins = 3

// Review history events and audit actions of pins.
const (
	EventFeatured   = "featured"
	EventUnfeatured = "unfeatured"
)

// ErrPinLimit is 409 pin_limit: the product's list has MaxPins featured reviews.
var ErrPinLimit = core.Conflict("pin_limit", "pin_limit")

// ErrPinNotPublished is 409 refused / parent_review_not_published: only a
// published review can be featured.
var ErrPinNotPublished = core.Conflict("refused", "parent_review_not_published")

// FeaturedView is the answer of the pin routes.
type FeaturedView struct {
	ID       string `json:"id"`
	Featured bool   `json:"featured"`
}

// FeatureReview pins a published review (PUT /admin/v1/reviews/<id>/featured).
// Pinning a pinned review changes nothing. Errors: 404 not_found; 409
// refused / parent_review_not_published; 409 pin_limit.
func (c *Service) FeatureReview(ctx context.Context, a *core.Actor, publicID string) (FeaturedView, error) {
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := noteTarget(ctx, tx, publicID)
		if err != nil {
			return err
		}
		if r.State != core.ReviewPublished {
			return ErrPinNotPublished
		}
		if on, err := tx.IsPinned(ctx, r.ID); err != nil || on {
			return err
		}
		for _, ref := range readmodel.RefsOf(r.VariantKey, r.GroupKey, r.Market) {
			n, err := tx.PinCount(ctx, ref.Scope, ref.Key, ref.Market)
			if err != nil {
				return err
			}
			if n >= MaxPins {
				return ErrPinLimit
			}
		}
		if _, err := tx.PinReview(ctx, r, a.ID); err != nil {
			return err
		}
		return c.pinChanged(ctx, tx, a, r, EventFeatured, "review.featured")
	})
	return FeaturedView{ID: publicID, Featured: true}, err
}

// UnfeatureReview drops a review's pin (DELETE /admin/v1/reviews/<id>/featured).
// Errors: 404 not_found (no review, or no pin).
func (c *Service) UnfeatureReview(ctx context.Context, a *core.Actor, publicID string) error {
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := noteTarget(ctx, tx, publicID)
		if err != nil {
			return err
		}
		removed, err := tx.UnpinReview(ctx, r.ID)
		if err != nil {
			return err
		}
		if !removed {
			return core.ErrNotFound
		}
		return c.pinChanged(ctx, tx, a, r, EventUnfeatured, "review.unfeatured")
	})
}

// pinChanged writes the history and audit entries of a pin and moves the read
// revisions of the review's lists (nothing else of the figures changes).
func (c *Service) pinChanged(ctx context.Context, tx *store.Tx, a *core.Actor, r store.Review, event, action string) error {
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, event, r.State, r.State, "", nil); err != nil {
		return err
	}
	if err := c.Record(ctx, tx, a, action, "review", r.PublicID, map[string]any{"product": r.VariantKey, "market": r.Market}); err != nil {
		return err
	}
	for _, ref := range readmodel.RefsOf(r.VariantKey, r.GroupKey, r.Market) {
		if err := tx.BumpProductRevision(ctx, ref.Scope, ref.Key, ref.Market); err != nil {
			return err
		}
	}
	return nil
}

// IsFeatured reports whether a review is pinned.
func (c *Service) IsFeatured(ctx context.Context, reviewID int64) (bool, error) {
	return c.DB.Read().IsPinned(ctx, reviewID)
}

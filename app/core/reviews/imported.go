package reviews

// The write path of imported (marketplace) reviews. The marketplace package reads
// and matches the rows; every write of review state goes through here so the read
// model is refreshed and the history is kept (spec 3: review.imported,
// review.source_updated).

import (
	"context"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// History events of imported reviews.
const (
	EventImported      = "review.imported"
	EventSourceUpdated = "review.source_updated"
	EventSourceRemoved = "review.source_removed"
)

// ImportedContent is what a marketplace row gives an imported review.
type ImportedContent struct {
	ChannelID      int64
	Market         string
	Language       string
	VariantKey     string
	GroupKey       string
	ProductName    string
	Rating         int
	Title          string
	Body           string
	AuthorName     string
	Platform       string
	SourceName     string
	SourceURL      string
	SourceReviewID string
	WrittenAt      time.Time
}

// ImportReview creates a published imported review in tx and writes its
// review.imported history entry. Imported reviews carry no proof of purchase
// (verification_method empty) and skip moderation: the marketplace published them.
func (c *Service) ImportReview(ctx context.Context, tx *store.Tx, a *core.Actor, in ImportedContent, detail any) (store.Review, error) {
	return c.importReview(ctx, tx, a, in, detail, nil)
}

func (c *Service) importReview(ctx context.Context, tx *store.Tx, a *core.Actor, in ImportedContent, detail any, batch *ImportBatch) (store.Review, error) {
	written := in.WrittenAt
	if written.IsZero() || written.After(tx.Now) {
		written = tx.Now
	}
	r, err := tx.CreateReview(ctx, store.Review{PublicID: NewReviewID(), ChannelID: in.ChannelID, Market: in.Market,
		Language: in.Language, VariantKey: in.VariantKey, GroupKey: in.GroupKey, ProductName: in.ProductName,
		Experience: core.ExperienceProduct, Origin: core.OriginImported, State: core.ReviewPublished, Rating: in.Rating,
		Title: in.Title, Body: in.Body, AuthorName: in.AuthorName, SourcePlatform: in.Platform, SourceName: in.SourceName,
		SourceURL: in.SourceURL, SourceReviewID: in.SourceReviewID, PublishedAt: written, SubmittedAt: written})
	if err != nil {
		return r, err
	}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, EventImported, "", core.ReviewPublished, "", detail); err != nil {
		return r, err
	}
	return r, batch.after(ctx, c, tx, r.ID)
}

// UpdateImportedReview replaces the content of an imported review whose marketplace
// row changed and writes review.source_updated. A review removed here stays removed.
func (c *Service) UpdateImportedReview(ctx context.Context, tx *store.Tx, a *core.Actor, reviewID int64, in ImportedContent, detail any) error {
	return c.updateImportedReview(ctx, tx, a, reviewID, in, detail, nil)
}

func (c *Service) updateImportedReview(ctx context.Context, tx *store.Tx, a *core.Actor, reviewID int64, in ImportedContent, detail any, batch *ImportBatch) error {
	r, err := tx.ReviewByID(ctx, reviewID)
	if err != nil {
		return err
	}
	if r.Origin != core.OriginImported {
		return core.Invalid("reviews")
	}
	if err := tx.UpdateReviewContent(ctx, r.ID, store.ReviewContent{Rating: in.Rating, Title: in.Title, Body: in.Body,
		AuthorName: in.AuthorName, Aspects: r.Aspects, Language: r.Language}); err != nil {
		return err
	}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, EventSourceUpdated, r.State, r.State, "", detail); err != nil {
		return err
	}
	return batch.after(ctx, c, tx, r.ID)
}

// RemoveImportedReview moves an imported review to removed with reason
// (source_removed when the marketplace no longer has it, data_subject_request for a
// removal request), removes its media in tx and returns their public ids: call
// DeleteMediaFiles for each after the transaction commits.
func (c *Service) RemoveImportedReview(ctx context.Context, tx *store.Tx, a *core.Actor, reviewID int64, reason string, detail any) ([]string, error) {
	r, err := tx.ReviewByID(ctx, reviewID)
	if err != nil {
		return nil, err
	}
	if r.Origin != core.OriginImported {
		return nil, core.Invalid("reviews")
	}
	media, err := tx.MediaOfReview(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	var purged []string
	for _, m := range media {
		if m.State == store.MediaRemoved {
			continue
		}
		if err := tx.RemoveMedia(ctx, m.ID, reason); err != nil {
			return nil, err
		}
		purged = append(purged, m.PublicID)
	}
	if r.State != core.ReviewRemoved {
		if err := tx.SetReviewState(ctx, r.ID, core.ReviewRemoved, time.Time{}); err != nil {
			return nil, err
		}
		if err := c.AddReviewEvent(ctx, tx, a, r.ID, EventSourceRemoved, r.State, core.ReviewRemoved, reason, detail); err != nil {
			return nil, err
		}
	}
	return purged, c.afterReviewStateChange(ctx, tx, r.ID)
}

// RestoreImportedReview publishes again an imported review that a marketplace
// read removed (source_removed) and that the marketplace lists again; it writes
// review.source_updated. Reviews removed by a removal request are not restored.
func (c *Service) RestoreImportedReview(ctx context.Context, tx *store.Tx, a *core.Actor, reviewID int64, detail any) error {
	return c.restoreImportedReview(ctx, tx, a, reviewID, detail, nil)
}

func (c *Service) restoreImportedReview(ctx context.Context, tx *store.Tx, a *core.Actor, reviewID int64, detail any, batch *ImportBatch) error {
	r, err := tx.ReviewByID(ctx, reviewID)
	if err != nil {
		return err
	}
	if r.Origin != core.OriginImported || r.State != core.ReviewRemoved {
		return nil
	}
	if err := tx.SetReviewState(ctx, r.ID, core.ReviewPublished, tx.Now); err != nil {
		return err
	}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, EventSourceUpdated, r.State, core.ReviewPublished, "", detail); err != nil {
		return err
	}
	return batch.after(ctx, c, tx, r.ID)
}

// ImportBatch collects the imported-review writes of one transaction and refreshes
// the read model once for all of them (Finish, in the same transaction): an import
// of thousands of rows then saves each product's figures once per batch, not once
// per review.
type ImportBatch struct {
	c   *Service
	tx  *store.Tx
	ids []int64
}

// NewImportBatch starts a batch in tx; call Finish before tx commits.
func (c *Service) NewImportBatch(tx *store.Tx) *ImportBatch { return &ImportBatch{c: c, tx: tx} }

// after refreshes the read model now (no batch) or at Finish.
func (b *ImportBatch) after(ctx context.Context, c *Service, tx *store.Tx, id int64) error {
	if b == nil {
		return c.afterReviewStateChange(ctx, tx, id)
	}
	b.ids = append(b.ids, id)
	return nil
}

// Import is ImportReview inside the batch.
func (b *ImportBatch) Import(ctx context.Context, a *core.Actor, in ImportedContent, detail any) (store.Review, error) {
	return b.c.importReview(ctx, b.tx, a, in, detail, b)
}

// Update is UpdateImportedReview inside the batch.
func (b *ImportBatch) Update(ctx context.Context, a *core.Actor, reviewID int64, in ImportedContent, detail any) error {
	return b.c.updateImportedReview(ctx, b.tx, a, reviewID, in, detail, b)
}

// Restore is RestoreImportedReview inside the batch.
func (b *ImportBatch) Restore(ctx context.Context, a *core.Actor, reviewID int64, detail any) error {
	return b.c.restoreImportedReview(ctx, b.tx, a, reviewID, detail, b)
}

// Finish refreshes the read model for every review the batch wrote.
func (b *ImportBatch) Finish(ctx context.Context) error {
	return b.c.Read.RefreshReviewsStats(ctx, b.tx, b.ids)
}

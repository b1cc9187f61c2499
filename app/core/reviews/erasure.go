package reviews

import (
	"context"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/checks"
	"reviewd/store"
)

// EraseReviewAuthor carries out a personal-data erasure on one review in tx: names
// and contact details in its title and body become marks (checks.MaskPersonalData
// with the author's name and names), the author's name is emptied, the review is
// marked anonymized (it can no longer be approved or shown again), and with
// purgeMedia every photo and video is removed for data_subject_request. The review's
// history records it and the read model is refreshed. It returns the public ids of
// the removed media, whose files the caller deletes (DeleteMediaFiles) once tx is
// committed.
func (c *Service) EraseReviewAuthor(ctx context.Context, tx *store.Tx, a *core.Actor, r store.Review, names []string, purgeMedia bool) ([]string, error) {
	names = append([]string{r.AuthorName}, names...)
	title, body := checks.MaskPersonalData(r.Title, names), checks.MaskPersonalData(r.Body, names)
	if err := tx.AnonymizeReviewText(ctx, r.ID, title, body); err != nil {
		return nil, err
	}
	var purged []string
	if purgeMedia {
		ms, err := tx.MediaOfReview(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m.State == store.MediaRemoved {
				continue
			}
			if err := tx.RemoveMedia(ctx, m.ID, brand.MediaRemovalDataRequest); err != nil {
				return nil, err
			}
			purged = append(purged, m.PublicID)
		}
	}
	detail := map[string]any{"purged_media": len(purged)}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, "anonymized", r.State, r.State, brand.MediaRemovalDataRequest, detail); err != nil {
		return nil, err
	}
	return purged, c.afterReviewStateChange(ctx, tx, r.ID)
}

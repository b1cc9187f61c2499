package reviews

import (
	"context"
	"time"

	"reviewd/app/media"
	"reviewd/store"
)

// failAbandonedMedia fails uploads whose processing was claimed mediaMaxAttempts
// times and never finished (the process died or hung on the file each time):
// they become processing_failed instead of being claimed forever, and their
// reviews move on as for any failed file.
func (c *Service) failAbandonedMedia(ctx context.Context, now time.Time) (int, error) {
	var failed []store.Media
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		tx.Now = now
		var err error
		failed, err = tx.FailAbandonedMedia(ctx, mediaMaxAttempts, media.ErrProcessingFailed.Detail())
		if err != nil {
			return err
		}
		for _, m := range failed {
			if m.ReviewID == 0 {
				continue
			}
			if err := c.afterReviewStateChange(ctx, tx, m.ReviewID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, m := range failed {
		c.Log.Warn("media: processing never finished, failed after the last attempt", "media", m.PublicID, "attempts", m.Attempts)
		c.DeleteMediaFiles(m.PublicID)
	}
	return len(failed), nil
}

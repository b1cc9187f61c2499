package reviews

import (
	"context"
	"time"

	"reviewd/store"
)

// UnattachedUploadLife is how long an upload may wait without being attached to a
// review. Together with MaxUnattachedPerLine it bounds the disk one order line can
// take: 18 files of at most 200 MB (video) or 12 MB (photo) each, for at most a
// day, and only while a token that can still write the line is live.
const UnattachedUploadLife = 24 * time.Hour

// RemoveStaleUploads is the cleanup job's part for uploads: it deletes uploads
// never attached to a review that are older than UnattachedUploadLife, or at once
// when no live token can still attach them (their tokens spent or expired, or
// their line reviewed), with their files. It answers how many it deleted.
func (c *Service) RemoveStaleUploads(ctx context.Context, now time.Time) (int, error) {
	removed := 0
	for round := 0; round < 1000; round++ {
		batch, err := c.DB.Read().StaleUploads(ctx, now, now.Add(-UnattachedUploadLife), 200)
		if err != nil || len(batch) == 0 {
			return removed, err
		}
		for _, u := range batch {
			var deleted bool
			err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
				var err error
				deleted, err = tx.DeleteStaleUpload(ctx, u.ID)
				return err
			})
			if err != nil {
				return removed, err
			}
			if !deleted {
				continue
			}
			c.DeleteMediaFiles(u.PublicID)
			removed++
		}
		if len(batch) < 200 {
			return removed, nil
		}
	}
	return removed, nil
}

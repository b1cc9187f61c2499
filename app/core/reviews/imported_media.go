package reviews

// Photos of imported (marketplace) reviews. The marketplace package fetches the
// addresses a row lists over the outbound client; the bytes take the buyer upload's
// path from here on: ReceiveUpload (type by content, size limit), checkUpload (clamd
// scan, image header) and the media job (metadata removed, renditions), so an
// imported photo is shown only when a buyer's would be.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"reviewd/app/core"
	"reviewd/app/media"
	"reviewd/store"
)

// ErrPhotoNotKept is AddImportedPhoto's answer when within declined the photo
// (its review or address is gone).
var ErrPhotoNotKept = errors.New("reviews: imported photo not kept")

// AddImportedPhoto keeps a photo fetched for an imported review at position. Only
// photos (jpeg, png, webp up to 12 MB) are kept; a refusal is a *core.Error with
// the upload's code (type_not_allowed: <type>, too_large: 12, quarantined,
// scan_failed, image_unreadable, image_too_large). The media row is attached to the
// review and waits for the media job; within runs in the same transaction and may
// decline the photo (false: ErrPhotoNotKept). Nothing is written while body is read
// or scanned.
func (c *Service) AddImportedPhoto(ctx context.Context, reviewID int64, position int, body io.Reader,
	within func(tx *store.Tx, m store.Media) (bool, error)) (store.Media, error) {
	u, err := c.ReceiveUpload(body)
	if err != nil {
		return store.Media{}, err
	}
	defer u.Discard()
	if u.refusal != nil {
		return store.Media{}, u.refusal
	}
	if media.IsVideo(u.Type) {
		return store.Media{}, refusalOf(media.TypeNotAllowed(u.Type))
	}
	if err := c.checkUpload(ctx, u); err != nil {
		return store.Media{}, err
	}
	id := NewMediaID()
	final := filepath.Join(c.MediaDir, incomingDir, id+"."+u.Type)
	if err := os.Rename(u.path, final); err != nil {
		return store.Media{}, fmt.Errorf("reviews: keep imported photo: %w", err)
	}
	u.path = final
	m := store.Media{PublicID: id, ReviewID: reviewID, Kind: media.KindOf(u.Type), Type: u.Type,
		State: store.MediaUploaded, Position: position, Bytes: u.Size}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := tx.ReviewByID(ctx, reviewID)
		if err != nil {
			return err
		}
		if r.Origin != core.OriginImported || r.State == core.ReviewRemoved {
			return ErrPhotoNotKept
		}
		if m, err = tx.CreateMedia(ctx, m); err != nil {
			return err
		}
		ok, err := within(tx, m)
		if err == nil && !ok {
			err = ErrPhotoNotKept
		}
		return err
	})
	if err != nil {
		return store.Media{}, err
	}
	u.path = "" // kept: the media job owns it now
	return m, nil
}

// RemovePhoto removes one media item of an imported review in the batch (its
// marketplace row no longer lists the photo) and returns its public id: call
// DeleteMediaFiles after the transaction commits ("" when there was nothing to
// remove). The review's read model is refreshed with the batch's, at Finish.
func (b *ImportBatch) RemovePhoto(ctx context.Context, reviewID, mediaID int64) (string, error) {
	return b.c.removeImportedPhoto(ctx, b.tx, reviewID, mediaID, b)
}

func (c *Service) removeImportedPhoto(ctx context.Context, tx *store.Tx, reviewID, mediaID int64, b *ImportBatch) (string, error) {
	m, err := tx.MediaByID(ctx, mediaID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	r, err := tx.ReviewByID(ctx, reviewID)
	if err != nil {
		return "", err
	}
	if m.ReviewID != reviewID || r.Origin != core.OriginImported || m.State == store.MediaRemoved {
		return "", nil
	}
	if err := tx.RemoveMedia(ctx, m.ID, "source_removed"); err != nil {
		return "", err
	}
	return m.PublicID, b.after(ctx, c, tx, reviewID)
}

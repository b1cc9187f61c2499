package reviews

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/app/media"
	"reviewd/store"
)

// mediaOrphanAge is how old a stored or staged file without a media row must be
// before the cleanup job removes it (younger ones may belong to an upload whose
// row is being written right now).
const mediaOrphanAge = time.Hour

// stagedUploadAge is how old a half-received upload (.upload-*.tmp) must be
// before it is removed: no request body takes that long.
const stagedUploadAge = 24 * time.Hour

// mediaStore is the configured store, or the local media folder.
func (c *Service) mediaStore() media.Store {
	if c.Media != nil {
		return c.Media
	}
	return media.LocalStore(c.MediaDir)
}

// stagedOutput is the staging folder where an upload's processed files are made
// before they enter the store.
func stagedOutput(mediaDir, id string) string {
	return filepath.Join(mediaDir, incomingDir, id+".out")
}

// storeFiles moves the processed files from the staging folder into the store;
// each staged file is removed only once the store confirmed its write.
func (c *Service) storeFiles(ctx context.Context, id, dir string, names []string) error {
	st := c.mediaStore()
	for _, n := range names {
		if err := st.PutFile(ctx, media.Key(id, n), filepath.Join(dir, n)); err != nil {
			return fmt.Errorf("core: store media %s: %w", id, err)
		}
	}
	return nil
}

// DeleteMediaFiles removes every stored file of a media item (the original, its
// renditions and poster, and their public copies) and any staged upload. Call it
// after the transaction that marked the item removed commits; what it cannot
// remove now (the store unreachable) the cleanup job removes later.
func (c *Service) DeleteMediaFiles(publicID string) {
	if !validMediaID(publicID) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := media.DeleteItem(ctx, c.mediaStore(), publicID); err != nil {
		c.Log.Warn("media files not removed; the cleanup job retries", "media", publicID, "err", err)
	}
	if c.MediaDir == "" {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(c.MediaDir, incomingDir, publicID+".*"))
	for _, m := range matches {
		_ = os.RemoveAll(m)
	}
}

// queuePublicSync updates the public copies of a review's media once tx
// commits (stores with public copies only).
func (c *Service) queuePublicSync(tx *store.Tx, reviewID int64) {
	if reviewID == 0 || !c.mediaStore().PublicCopies() {
		return
	}
	tx.AfterCommit(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.SyncPublicMedia(ctx, reviewID); err != nil {
			c.Log.Warn("media: public copies not updated; the cleanup job retries", "review_id", reviewID, "err", err)
		}
	})
}

// SyncPublicMedia makes the public copies of a review's media match its state:
// every file of every ready item while the review is published, none otherwise.
// Updates of one process run one at a time and each reads the committed state
// first, so the last one wins with the latest state.
func (c *Service) SyncPublicMedia(ctx context.Context, reviewID int64) error {
	st := c.mediaStore()
	if !st.PublicCopies() {
		return nil
	}
	c.publicSync.Lock()
	defer c.publicSync.Unlock()
	q := c.DB.Read()
	r, err := q.ReviewByID(ctx, reviewID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	list, err := q.MediaOfReview(ctx, reviewID)
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range list {
		if r.State == core.ReviewPublished && m.State == store.MediaReady {
			errs = append(errs, st.Publish(ctx, m.PublicID, readmodel.ParseMediaFiles(m.Files).Names()))
		} else {
			errs = append(errs, st.Unpublish(ctx, m.PublicID))
		}
	}
	return errors.Join(errs...)
}

// MediaReconcile is what one reconciliation of the store with the database did.
type MediaReconcile struct {
	// Orphans are stored files of no ready item removed; Staged are staged
	// uploads and outputs removed.
	Orphans, Staged int
	// Unpublished and Published count public copies removed and items published
	// again (stores with public copies).
	Unpublished, Published int
	// Missing counts ready items with a file the store does not hold.
	Missing int
}

func (r MediaReconcile) String() string {
	return fmt.Sprintf("media_orphans=%d media_staged=%d media_unpublished=%d media_published=%d media_missing=%d",
		r.Orphans, r.Staged, r.Unpublished, r.Published, r.Missing)
}

// ReconcileMedia is the cleanup job's part for the media store: it removes stored
// files that belong to no ready item (a crash between the store's write and the
// database's, a removal the store missed), staged uploads and outputs nobody will
// process, and public copies of items that are not published, and publishes
// again what a crash left unpublished. Files younger than an hour without a row
// are left for the next run.
func (c *Service) ReconcileMedia(ctx context.Context, now time.Time) (MediaReconcile, error) {
	var out MediaReconcile
	st := c.mediaStore()
	states, err := c.DB.Read().MediaStates(ctx)
	if err != nil {
		return out, err
	}
	keep := func(id string) (store.MediaState, bool) {
		m, ok := states[id]
		return m, ok && (m.State == store.MediaUploaded || m.State == store.MediaProcessing)
	}
	stored, err := st.List(ctx, "")
	if err != nil {
		return out, err
	}
	have := map[string]bool{}
	var orphans []string
	for _, o := range stored {
		id, name, _ := media.SplitKey(o.Key)
		m, busy := keep(id)
		switch {
		case busy:
		case m.State == store.MediaReady && readmodel.ParseMediaFiles(m.Files).Has(name):
			have[o.Key] = true
		case m.PublicID == "" && now.Sub(o.ModTime) < mediaOrphanAge:
		default:
			orphans = append(orphans, o.Key)
		}
	}
	if err := st.Delete(ctx, orphans); err != nil {
		return out, err
	}
	out.Orphans = len(orphans)
	for id, m := range states {
		if m.State != store.MediaReady {
			continue
		}
		for _, n := range readmodel.ParseMediaFiles(m.Files).Names() {
			if !have[media.Key(id, n)] {
				out.Missing++
				c.Log.Warn("media: a ready file is missing from the store", "media", id, "file", n)
			}
		}
	}
	out.Staged = c.reconcileStaging(states, now)
	if !st.PublicCopies() {
		return out, nil
	}
	c.publicSync.Lock()
	defer c.publicSync.Unlock()
	// Read again under the lock: a review published since the first read has its
	// copies already.
	if states, err = c.DB.Read().MediaStates(ctx); err != nil {
		return out, err
	}
	public, err := st.ListPublic(ctx)
	if err != nil {
		return out, err
	}
	// A closed brand shows no media: its public copies go, and come back with the
	// first run after it is reopened (see docs/decisions.md, "Brand state").
	brand, err := c.DB.Read().BrandState(ctx)
	if err != nil {
		return out, err
	}
	if brand == "closed" {
		for id, m := range states {
			m.Published = false
			states[id] = m
		}
	}
	shown := map[string]bool{}
	var hide []string
	for _, o := range public {
		id, name, _ := media.SplitKey(o.Key)
		m := states[id]
		if m.State == store.MediaReady && m.Published && readmodel.ParseMediaFiles(m.Files).Has(name) {
			shown[o.Key] = true
			continue
		}
		hide = append(hide, o.Key)
	}
	if s3, ok := st.(*media.S3Store); ok && len(hide) > 0 {
		if err := s3.UnpublishKeys(ctx, hide); err != nil {
			return out, err
		}
		out.Unpublished = len(hide)
	}
	for id, m := range states {
		if m.State != store.MediaReady || !m.Published {
			continue
		}
		names := readmodel.ParseMediaFiles(m.Files).Names()
		for _, n := range names {
			if !shown[media.Key(id, n)] {
				if err := st.Publish(ctx, id, names); err != nil {
					return out, err
				}
				out.Published++
				break
			}
		}
	}
	return out, nil
}

// reconcileStaging removes staged uploads and outputs no row will process.
func (c *Service) reconcileStaging(states map[string]store.MediaState, now time.Time) int {
	if c.MediaDir == "" {
		return 0
	}
	dir := filepath.Join(c.MediaDir, incomingDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		age := now.Sub(info.ModTime())
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			if age > stagedUploadAge {
				_ = os.RemoveAll(filepath.Join(dir, name))
				removed++
			}
			continue
		}
		id, ext, _ := strings.Cut(name, ".")
		m, ok := states[id]
		switch {
		case !ok && age < mediaOrphanAge:
			continue
		case ok && m.State == store.MediaProcessing:
			continue
		case ok && m.State == store.MediaUploaded && ext == m.Type:
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, name)); err == nil || errors.Is(err, fs.ErrNotExist) {
			removed++
		}
	}
	return removed
}

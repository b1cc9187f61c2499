package marketplace

// Photos of imported reviews: a row's photo addresses are recorded with its review
// in the import transaction (pending), then fetched over the SSRF-safe outbound
// client after the transaction, never under the write lock, and kept through the
// buyer upload's path in app/core/reviews (scan, header check, then the media job
// strips metadata and makes the renditions). A photo that cannot be fetched now
// waits for the next read of its connection (or the marketplace job); one the upload
// checks refuse, or that failed photoMaxAttempts times, is refused for good. The
// run report's photos_missing counts the connection's photos not shown.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/media"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Photo limits.
const (
	// photoMaxAttempts is how often a photo address is tried before it is refused.
	photoMaxAttempts = 5
	// photosPerRun bounds the photos one read fetches; the rest wait for the next.
	photosPerRun = 500
	// photosPerJob bounds the photos the marketplace job fetches per run.
	photosPerJob = 200
	// photoWorkers is how many photos are fetched at once.
	photoWorkers = 4
	photoTimeout = 60 * time.Second
	maxPhotoURL  = 2048
	// photoRetryAfter is how long the job waits before trying a failed photo again
	// (a read of the connection tries at once).
	photoRetryAfter = time.Hour
)

// photoURLs splits a row's photos field into its distinct http(s) addresses.
func photoURLs(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '|' || r == ';' || r == '\n' || r == '\t' }) {
		if (strings.HasPrefix(f, "https://") || strings.HasPrefix(f, "http://")) && len(f) <= maxPhotoURL && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// newPhotoRow is the row of the address at position pos of a review's photos:
// pending, or refused past the per-review limit.
func newPhotoRow(reviewID, sourceID int64, u string, pos int) store.MarketplacePhoto {
	p := store.MarketplacePhoto{ReviewID: reviewID, SourceID: sourceID, URL: u, Position: pos, State: store.PhotoPending}
	if pos >= core.MaxMediaPerReview {
		p.State, p.Error = store.PhotoRefused, store.PhotoTooMany
	}
	return p
}

// addPhotos records the photo addresses of a newly imported review in tx.
func addPhotos(ctx context.Context, tx *store.Tx, reviewID, sourceID int64, urls []string) error {
	for i, u := range urls {
		if err := tx.AddMarketplacePhoto(ctx, newPhotoRow(reviewID, sourceID, u, i)); err != nil {
			return err
		}
	}
	return nil
}

// photosOf reads, in one query, the photo addresses the updated reviews of a batch
// have, by review.
func (im *importer) photosOf(ctx context.Context, tx *store.Tx, batch []prepared) (map[int64][]store.MarketplacePhoto, error) {
	var ids []int64
	for _, pr := range batch {
		if pr.link != nil {
			ids = append(ids, pr.link.ReviewID)
		}
	}
	out := map[int64][]store.MarketplacePhoto{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := tx.MarketplacePhotosOf(ctx, ids)
	for _, p := range list {
		out[p.ReviewID] = append(out[p.ReviewID], p)
	}
	return out, err
}

// syncPhotos brings the photo addresses of an updated review (have: those it has)
// in line with its row in tx: new addresses wait to be fetched, addresses no longer
// listed are forgotten and their photos removed. It returns the media to delete
// after the commit.
func (im *importer) syncPhotos(ctx context.Context, tx *store.Tx, rv *reviews.ImportBatch, reviewID int64, have []store.MarketplacePhoto,
	urls []string) ([]string, error) {
	listed := map[string]bool{}
	for _, u := range urls {
		listed[u] = true
	}
	var purged []string
	for _, p := range have {
		if listed[p.URL] {
			continue
		}
		if p.MediaID != 0 {
			id, err := rv.RemovePhoto(ctx, reviewID, p.MediaID)
			if err != nil {
				return nil, err
			}
			if id != "" {
				purged = append(purged, id)
			}
		}
		if err := tx.DeleteMarketplacePhoto(ctx, reviewID, p.URL); err != nil {
			return nil, err
		}
	}
	return purged, addPhotos(ctx, tx, reviewID, im.src.ID, urls)
}

// fetchPhotos fetches up to limit pending photos of one connection (sourceID > 0,
// every due one) or of all connections (those due at now), a few at a time.
func (c *Service) fetchPhotos(ctx context.Context, sourceID int64, now time.Time, limit int) (fetched int, err error) {
	due := now
	if sourceID > 0 {
		due = time.Unix(1<<40, 0) // a read of the connection tries its photos at once
	}
	list, err := c.DB.Read().DueMarketplacePhotos(ctx, sourceID, due, limit)
	if err != nil || len(list) == 0 {
		return 0, err
	}
	work := make(chan store.MarketplacePhoto)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(photoWorkers, len(list)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				ok, ferr := c.fetchPhoto(ctx, p, now)
				mu.Lock()
				if ok {
					fetched++
				}
				if ferr != nil && err == nil {
					err = ferr
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range list {
		if ctx.Err() != nil {
			break
		}
		work <- p
	}
	close(work)
	wg.Wait()
	return fetched, err
}

// fetchPhoto fetches one photo and keeps it, or records why not. Only a database
// failure is returned.
func (c *Service) fetchPhoto(ctx context.Context, p store.MarketplacePhoto, now time.Time) (bool, error) {
	body, reason, final := c.download(ctx, p.URL)
	if reason == "" {
		_, err := c.Reviews.AddImportedPhoto(ctx, p.ReviewID, p.Position, bytes.NewReader(body), func(tx *store.Tx, m store.Media) (bool, error) {
			return tx.MarkMarketplacePhotoFetched(ctx, p.ReviewID, p.URL, m.ID)
		})
		if err == nil {
			return true, nil
		}
		if errors.Is(err, reviews.ErrPhotoNotKept) {
			return false, nil
		}
		var ce *core.Error
		switch {
		case errors.As(err, &ce) && ce.Detail == media.ErrScanFailed.Detail():
			reason, final = ce.Detail, false // clamd did not answer: try again
		case errors.As(err, &ce):
			reason, final = ce.Detail, true
		default:
			c.Log.Warn("marketplace photo not kept", "review", p.ReviewID, "err", err)
			reason, final = "internal_error", false
		}
	}
	if ctx.Err() != nil {
		return false, nil // stopped (shutdown or time limit): not an attempt
	}
	if p.Attempts+1 >= photoMaxAttempts {
		final = true
	}
	bg := context.WithoutCancel(ctx)
	err := c.DB.WithTx(bg, func(tx *store.Tx) error {
		return tx.FailMarketplacePhoto(bg, p.ReviewID, p.URL, reason, final, now.Add(photoRetryAfter))
	})
	return false, err
}

// download fetches a photo address over the outbound client. A failure gives the
// reason and whether trying again cannot help (the address breaks the outbound
// rules, or the server refuses it for good).
func (c *Service) download(ctx context.Context, u string) (body []byte, reason string, final bool) {
	res, err := c.Outbound.Do(outbound.WithTarget(ctx, "marketplace_photo"), outbound.Request{URL: u,
		Header:  map[string][]string{"Accept": {"image/jpeg, image/png, image/webp"}, "User-Agent": {"reviewd"}},
		Timeout: photoTimeout, MaxBytes: media.ImageMaxBytes})
	if err != nil {
		code := outbound.Code(err)
		switch code {
		case outbound.CodeSchemeRefused, outbound.CodePortRefused, outbound.CodeURLInvalid, outbound.CodeAddressRefused,
			outbound.CodeRedirectRefused, outbound.CodeTooLarge:
			return nil, code, true
		}
		return nil, code, false
	}
	if res.Status != 200 {
		gone := res.Status >= 400 && res.Status < 500 && res.Status != 408 && res.Status != 429
		return nil, fmt.Sprintf("http_status: %d", res.Status), gone
	}
	return res.Body, "", false
}

// FetchDuePhotos fetches the photos of every connection that are due at now (the
// marketplace job), at most photosPerJob.
func (c *Service) FetchDuePhotos(ctx context.Context, now time.Time) (int, error) {
	return c.fetchPhotos(ctx, 0, now, photosPerJob)
}

// runPhotos fetches a finished read's pending photos and returns the
// connection's photos_missing.
func (c *Service) runPhotos(ctx context.Context, sourceID int64) int {
	if _, err := c.fetchPhotos(ctx, sourceID, c.now(), photosPerRun); err != nil {
		c.Log.Warn("marketplace photos not fetched", "source", SourceID(sourceID), "err", err)
	}
	n, err := c.DB.Read().CountMissingMarketplacePhotos(ctx, sourceID)
	if err != nil {
		c.Log.Warn("marketplace photos not counted", "source", SourceID(sourceID), "err", err)
	}
	return n
}

func (c *Service) now() time.Time { return c.DB.Now() }

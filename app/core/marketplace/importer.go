package marketplace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/store"
)

// match is the catalogue answer for one barcode.
type match struct {
	product store.Product
	reason  string
}

// importer reads the rows of one run (or dry run) and applies them.
type importer struct {
	c       *Service
	actor   *core.Actor
	src     store.MarketplaceSource
	ch      store.Channel
	p       Platform
	runID   int64
	scope   string
	confirm bool
	dry     bool

	links     map[string]store.MarketplaceLink
	seen      map[string]bool
	barcodes  map[string]match
	unmatched map[string]*Unmatched
	order     []string // unmatched barcodes in first-seen order
	matched   map[string]bool
	counts    RunCounts
	skips     map[string]int
	batch     []prepared
	purged    []string
}

// prepared is a row ready to write.
type prepared struct {
	id      string
	barcode string
	fp      string
	content reviewContent
	photos  []string
	link    *store.MarketplaceLink
	product store.Product
}

type reviewContent struct {
	rating                   int
	title, body, author, url string
	written                  time.Time
}

func (c *Service) newImporter(ctx context.Context, a *core.Actor, s store.MarketplaceSource, runID int64, scope string, confirm, dry bool) (*importer, error) {
	q := c.DB.Read()
	ch, err := q.ChannelByID(ctx, s.ChannelID)
	if err != nil {
		return nil, err
	}
	links, err := q.MarketplaceLinks(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	p, _ := PlatformOf(s.Platform)
	return &importer{c: c, actor: a, src: s, ch: ch, p: p, runID: runID, scope: scope, confirm: confirm, dry: dry,
		links: links, seen: map[string]bool{}, barcodes: map[string]match{}, unmatched: map[string]*Unmatched{},
		matched: map[string]bool{}, skips: map[string]int{}}, nil
}

func (im *importer) skip(key string) {
	im.skips[key]++
	im.counts.Skipped++
}

var dateLayouts = []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02",
	"02.01.2006 15:04:05", "02.01.2006 15:04", "02.01.2006", "02/01/2006", "01/02/2006"}

func parseWritten(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		if n > 1e11 {
			return time.UnixMilli(n).UTC(), true
		}
		return time.Unix(n, 0).UTC(), true
	}
	return time.Time{}, false
}

// parseRating reads 1–5, also as "4.0" or "4,0" (whole stars only).
func parseRating(s string) (int, bool) {
	s = strings.Replace(strings.TrimSpace(s), ",", ".", 1)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int(f)) || f < 1 || f > 5 {
		return 0, false
	}
	return int(f), true
}

func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// row handles one row: skips, matching and (outside dry runs) the write, batched.
func (im *importer) row(ctx context.Context, r Row) error {
	im.counts.Rows++
	f := r.Fields
	id := core.SingleLine(f[ColReviewID])
	if id == "" || len(id) > 200 {
		im.skip(SkipReviewIDMissing)
		return nil
	}
	if im.seen[id] {
		im.skip(SkipDuplicateRow)
		return nil
	}
	im.seen[id] = true
	if sid := strings.TrimSpace(f[ColSellerID]); sid != "" && sid != im.src.SellerID {
		im.skip(SkipSellerMismatch)
		return nil
	}
	rating, ok := parseRating(f[ColRating])
	if !ok {
		im.skip(SkipRatingInvalid)
		return nil
	}
	written, ok := parseWritten(strings.TrimSpace(f[ColWrittenAt]))
	if !ok {
		im.skip(SkipDateInvalid)
		return nil
	}
	title := core.TruncateRunes(core.SingleLine(f[ColTitle]), core.MaxTitleLen)
	body := core.TruncateRunes(core.MultiLine(f[ColBody]), maxBodyRunes)
	author := core.TruncateRunes(core.SingleLine(f[ColAuthor]), core.MaxAuthorName)
	if !core.StorableText(title) || !core.StorableText(author) {
		im.skip(SkipTextInvalid)
		return nil
	}
	u := strings.TrimSpace(f[ColURL])
	if !im.p.OwnURL(u) || len(u) > 2048 {
		u = ""
	}
	barcode := strings.TrimSpace(f[ColBarcode])
	photos := photoURLs(f[ColPhotos])
	parts := []string{strconv.Itoa(rating), title, body, author, u, barcode}
	if len(photos) > 0 {
		// Rows without photos keep the fingerprint they had before photos were read.
		parts = append(parts, strings.Join(photos, " "))
	}
	pr := prepared{id: id, barcode: barcode, photos: photos,
		content: reviewContent{rating: rating, title: title, body: body, author: author, url: u, written: written},
		fp:      fingerprint(parts...)}
	if l, ok := im.links[id]; ok {
		if l.RemovedByRequest {
			im.skip(SkipRemovedByRequest)
			return nil
		}
		im.counts.Eligible++
		if barcode != "" {
			im.matched[barcode] = true
		}
		if l.Fingerprint == pr.fp && l.State != core.ReviewRemoved || im.scope == ScopeNew {
			im.counts.Unchanged++
			return nil
		}
		pr.link = &l
		return im.add(ctx, pr)
	}
	m, err := im.match(ctx, barcode)
	if err != nil {
		return err
	}
	if m.reason != "" {
		im.counts.Unmatched++
		key := barcode + "\x00" + m.reason
		u := im.unmatched[key]
		if u == nil {
			u = &Unmatched{Barcode: barcode, Reason: m.reason}
			im.unmatched[key] = u
			im.order = append(im.order, key)
		}
		u.Reviews++
		return nil
	}
	im.matched[barcode] = true
	im.counts.Eligible++
	pr.product = m.product
	return im.add(ctx, pr)
}

func (im *importer) match(ctx context.Context, barcode string) (match, error) {
	if m, ok := im.barcodes[barcode]; ok {
		return m, nil
	}
	p, reason, err := im.c.Catalogue.Match(ctx, im.c.DB.Read(), barcode)
	if err != nil {
		return match{}, err
	}
	m := match{product: p, reason: reason}
	im.barcodes[barcode] = m
	return m, nil
}

func (im *importer) add(ctx context.Context, pr prepared) error {
	if pr.link != nil {
		im.counts.Updated++
	} else {
		im.counts.Imported++
	}
	if im.dry {
		return nil
	}
	im.batch = append(im.batch, pr)
	if len(im.batch) >= writeBatchRows {
		return im.flush(ctx)
	}
	return nil
}

// flush writes the batched rows in one transaction.
func (im *importer) flush(ctx context.Context) error {
	if len(im.batch) == 0 {
		return nil
	}
	batch := im.batch
	im.batch = im.batch[:0]
	var purged []string // media of photos no longer listed, deleted after the commit
	err := im.c.DB.WithTx(ctx, func(tx *store.Tx) error {
		purged = purged[:0]
		rv := im.c.Reviews.NewImportBatch(tx)
		photos, err := im.photosOf(ctx, tx, batch)
		if err != nil {
			return err
		}
		for _, pr := range batch {
			detail := map[string]any{"platform": im.src.Platform, "source": SourceID(im.src.ID), "run": RunID(im.runID),
				"source_review_id": pr.id, "barcode": pr.barcode}
			content := importedContent(im, pr)
			if pr.link != nil {
				if pr.link.State == core.ReviewRemoved {
					if err := rv.Restore(ctx, im.actor, pr.link.ReviewID, detail); err != nil {
						return err
					}
				}
				if err := rv.Update(ctx, im.actor, pr.link.ReviewID, content, detail); err != nil {
					return err
				}
				gone, err := im.syncPhotos(ctx, tx, rv, pr.link.ReviewID, photos[pr.link.ReviewID], pr.photos)
				if err != nil {
					return err
				}
				purged = append(purged, gone...)
				if err := tx.SaveMarketplaceLink(ctx, store.MarketplaceLink{ReviewID: pr.link.ReviewID, SourceID: im.src.ID,
					SourceReviewID: pr.id, Barcode: pr.barcode, Fingerprint: pr.fp, SeenRunID: im.runID}); err != nil {
					return err
				}
				continue
			}
			r, err := rv.Import(ctx, im.actor, content, detail)
			if err != nil {
				return err
			}
			if err := addPhotos(ctx, tx, r.ID, im.src.ID, pr.photos); err != nil {
				return err
			}
			if err := tx.SaveMarketplaceLink(ctx, store.MarketplaceLink{ReviewID: r.ID, SourceID: im.src.ID,
				SourceReviewID: pr.id, Barcode: pr.barcode, Fingerprint: pr.fp, SeenRunID: im.runID}); err != nil {
				return err
			}
			im.links[pr.id] = store.MarketplaceLink{ReviewID: r.ID, SourceID: im.src.ID, SourceReviewID: pr.id,
				Fingerprint: pr.fp, State: r.State, VariantKey: r.VariantKey}
		}
		return rv.Finish(ctx)
	})
	if err == nil {
		for _, m := range purged {
			im.c.Reviews.DeleteMediaFiles(m)
		}
	}
	return err
}

func importedContent(im *importer, pr prepared) (out reviews.ImportedContent) {
	out.ChannelID, out.Market, out.Language = im.ch.ID, im.ch.Market, im.ch.Language
	out.Rating, out.Title, out.Body, out.AuthorName = pr.content.rating, pr.content.title, pr.content.body, pr.content.author
	out.Platform, out.SourceName, out.SourceURL, out.SourceReviewID = im.p.Code, im.p.Name, pr.content.url, pr.id
	out.WrittenAt = pr.content.written
	out.VariantKey, out.GroupKey, out.ProductName = pr.product.VariantKey, pr.product.GroupKey, pr.product.Name
	return out
}

// unseen lists the live imported reviews the run did not see (full scope only).
func (im *importer) unseen() []store.MarketplaceLink {
	var out []store.MarketplaceLink
	if im.scope != ScopeFull {
		return nil
	}
	for id, l := range im.links {
		if !im.seen[id] && l.State != core.ReviewRemoved {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ReviewID < out[j].ReviewID })
	return out
}

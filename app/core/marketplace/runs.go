package marketplace

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sort"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/catalogue"
	"reviewd/store"
)

// Scopes of a feed read: new imports only rows not imported yet; full also updates
// changed rows and compares, removing (or holding back) reviews the feed no longer
// lists. File runs are always full.
const (
	ScopeNew  = "new"
	ScopeFull = "full"
)

// Skip keys of rows that are read but not imported (docs/marketplace.md).
const (
	SkipReviewIDMissing  = "review_id_missing"
	SkipRatingInvalid    = "rating_invalid"
	SkipDuplicateRow     = "duplicate_row"
	SkipSellerMismatch   = "seller_mismatch"
	SkipDateInvalid      = "date_invalid"
	SkipTextInvalid      = "text_invalid"
	SkipRemovedByRequest = "removed_by_request"
)

// Limits of imported text.
const (
	maxBodyRunes   = 10000
	maxUnmatched   = 200 // unmatched barcodes listed in a report
	maxHeldListed  = 200 // held products listed in a report
	writeBatchRows = 250 // rows written per transaction
)

// RunCounts are the figures of a run.
type RunCounts struct {
	Rows          int `json:"rows"`
	Eligible      int `json:"eligible"`
	Imported      int `json:"imported"`
	Updated       int `json:"updated"`
	Unchanged     int `json:"unchanged"`
	Removed       int `json:"removed"`
	Held          int `json:"held"`
	Unmatched     int `json:"unmatched"`
	Skipped       int `json:"skipped"`
	PhotosMissing int `json:"photos_missing"`
}

// Unmatched is one barcode without a single product, with the reviews it carried.
type Unmatched struct {
	Barcode string `json:"barcode"`
	Reason  string `json:"reason"`
	Reviews int    `json:"reviews"`
}

// HeldProduct is a product whose imported reviews a run would remove, held back
// until a run with confirm_removals.
type HeldProduct struct {
	VariantKey  string `json:"variant_key"`
	ProductName string `json:"product_name"`
	Reviews     int    `json:"reviews"`
}

// RunReport is the report of a run.
type RunReport struct {
	MatchedBarcodes   int            `json:"matched_barcodes"`
	UnmatchedBarcodes int            `json:"unmatched_barcodes"`
	Unmatched         []Unmatched    `json:"unmatched"`
	Skips             map[string]int `json:"skips"`
	PhotosMissing     int            `json:"photos_missing"`
	HeldProducts      []HeldProduct  `json:"held_products"`
}

// RunView is a run as the API shows it.
type RunView struct {
	ID              string     `json:"id"`
	Source          string     `json:"source"`
	Trigger         string     `json:"trigger"`
	Scope           string     `json:"scope"`
	ConfirmRemovals bool       `json:"confirm_removals"`
	State           string     `json:"state"`
	Error           string     `json:"error"`
	FileName        string     `json:"file_name"`
	Counts          RunCounts  `json:"counts"`
	Report          RunReport  `json:"report"`
	CreatedAt       time.Time  `json:"created_at"`
	StartedAt       *time.Time `json:"started_at"`
	FinishedAt      *time.Time `json:"finished_at"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func runView(r store.MarketplaceRun) RunView {
	v := RunView{ID: RunID(r.ID), Source: SourceID(r.SourceID), Trigger: r.Trigger, Scope: r.Scope,
		ConfirmRemovals: r.ConfirmRemovals, State: r.State, Error: r.Error, FileName: r.FileName, CreatedAt: r.CreatedAt,
		StartedAt: timePtr(r.StartedAt), FinishedAt: timePtr(r.FinishedAt)}
	_ = json.Unmarshal([]byte(r.Counts), &v.Counts)
	_ = json.Unmarshal([]byte(r.Report), &v.Report)
	if v.Report.Skips == nil {
		v.Report.Skips = map[string]int{}
	}
	if v.Report.Unmatched == nil {
		v.Report.Unmatched = []Unmatched{}
	}
	if v.Report.HeldProducts == nil {
		v.Report.HeldProducts = []HeldProduct{}
	}
	return v
}

// RunList is the answer of GET /admin/v1/marketplace/sources/<id>/runs.
type RunList struct {
	Items []RunView `json:"items"`
}

// Runs lists the 20 newest runs of a connection.
func (c *Service) Runs(ctx context.Context, id string) (RunList, error) {
	q := c.DB.Read()
	s, err := c.sourceByPublicID(ctx, q, id)
	if err != nil {
		return RunList{}, err
	}
	rs, err := q.MarketplaceRuns(ctx, s.ID, 20)
	if err != nil {
		return RunList{}, err
	}
	out := RunList{Items: make([]RunView, len(rs))}
	for i, r := range rs {
		out.Items[i] = runView(r)
	}
	return out, nil
}

// CheckResult is the dry-run answer (POST .../check).
type CheckResult struct {
	Rows              int            `json:"rows"`
	Eligible          int            `json:"eligible"`
	WouldImport       int            `json:"would_import"`
	WouldUpdate       int            `json:"would_update"`
	WouldRemove       int            `json:"would_remove"`
	MatchedBarcodes   int            `json:"matched_barcodes"`
	UnmatchedBarcodes int            `json:"unmatched_barcodes"`
	Unmatched         []Unmatched    `json:"unmatched"`
	Skips             map[string]int `json:"skips"`
}

func (im *importer) unmatchedList() []Unmatched {
	out := []Unmatched{}
	for _, k := range im.order {
		if len(out) == maxUnmatched {
			break
		}
		out = append(out, *im.unmatched[k])
	}
	return out
}

func (im *importer) unmatchedBarcodes() int {
	seen := map[string]bool{}
	for _, k := range im.order {
		seen[im.unmatched[k].Barcode] = true
	}
	return len(seen)
}

// finish applies or holds removals and returns the run's state, counts and report.
func (im *importer) finish(ctx context.Context) (string, RunCounts, RunReport, error) {
	if err := im.flush(ctx); err != nil {
		return RunFailed, im.counts, RunReport{}, err
	}
	rep := RunReport{MatchedBarcodes: len(im.matched), UnmatchedBarcodes: im.unmatchedBarcodes(), Unmatched: im.unmatchedList(),
		Skips: im.skips, PhotosMissing: im.counts.PhotosMissing, HeldProducts: []HeldProduct{}}
	gone := im.unseen()
	state := RunSucceeded
	switch {
	case len(gone) == 0:
	case !im.confirm:
		state = RunHeld
		im.counts.Held = len(gone)
		byProduct := map[string]int{}
		var keys []string
		for _, l := range gone {
			if byProduct[l.VariantKey] == 0 {
				keys = append(keys, l.VariantKey)
			}
			byProduct[l.VariantKey]++
		}
		sort.Strings(keys)
		q := im.c.DB.Read()
		for _, k := range keys {
			if len(rep.HeldProducts) == maxHeldListed {
				break
			}
			name := ""
			if p, err := q.ProductByVariant(ctx, k); err == nil {
				name = p.Name
			}
			rep.HeldProducts = append(rep.HeldProducts, HeldProduct{VariantKey: k, ProductName: name, Reviews: byProduct[k]})
		}
	default:
		for start := 0; start < len(gone); start += writeBatchRows {
			part := gone[start:min(start+writeBatchRows, len(gone))]
			err := im.c.DB.WithTx(ctx, func(tx *store.Tx) error {
				for _, l := range part {
					purged, err := im.c.Reviews.RemoveImportedReview(ctx, tx, im.actor, l.ReviewID, "source_removed",
						map[string]any{"platform": im.src.Platform, "source": SourceID(im.src.ID), "run": RunID(im.runID),
							"source_review_id": l.SourceReviewID})
					if err != nil {
						return err
					}
					// A review the marketplace lists again gets its photos fetched anew.
					if err := tx.DeleteMarketplacePhotosOf(ctx, l.ReviewID); err != nil {
						return err
					}
					im.purged = append(im.purged, purged...)
				}
				return nil
			})
			if err != nil {
				return RunFailed, im.counts, rep, err
			}
			im.counts.Removed += len(part)
		}
		for _, m := range im.purged {
			im.c.Reviews.DeleteMediaFiles(m)
		}
	}
	return state, im.counts, rep, nil
}

// consume reads every row of src into the importer.
func (im *importer) consume(ctx context.Context, src rowSource) error {
	for {
		r, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := im.row(ctx, r); err != nil {
			return err
		}
	}
}

// failureCode is the code a failed run records.
func failureCode(err error) string {
	var ce *core.Error
	if errors.As(err, &ce) {
		if ce.Detail != "" {
			return ce.Detail
		}
		return ce.Code
	}
	return "internal_error"
}

// StartInput is what starts a run: an uploaded file (file route), or the feed scope;
// confirm_removals applies held removals.
type StartInput struct {
	FilePath        string // the upload stored in a temporary file (removed when the run ends)
	FileName        string
	Scope           string
	ConfirmRemovals bool
}

// StartRun checks and queues a run and reads it in the background (202). A file
// is read once here to answer its problems at once (column_missing, file_unreadable,
// unsupported_format, too_many_rows), then again by the run.
func (c *Service) StartRun(ctx context.Context, a *core.Actor, id string, in StartInput) (RunView, error) {
	removeFile := func() {
		if in.FilePath != "" {
			_ = os.Remove(in.FilePath)
		}
	}
	q := c.DB.Read()
	s, err := c.sourceByPublicID(ctx, q, id)
	if err != nil {
		removeFile()
		return RunView{}, err
	}
	run := store.MarketplaceRun{SourceID: s.ID, ConfirmRemovals: in.ConfirmRemovals, Scope: ScopeFull}
	switch {
	case !s.Enabled:
		removeFile()
		return RunView{}, ErrSourceInactive
	case s.Route == RouteFile:
		if in.FilePath == "" {
			return RunView{}, ErrFileRequired
		}
		p, _ := PlatformOf(s.Platform)
		if _, _, err := countRows(ctx, in.FilePath, p); err != nil {
			removeFile()
			return RunView{}, err
		}
		run.Trigger, run.FileName = "file", core.TruncateRunes(core.SingleLine(in.FileName), 255)
	default:
		removeFile()
		in.FilePath = ""
		switch in.Scope {
		case "", ScopeFull:
		case ScopeNew:
			run.Scope = ScopeNew
		default:
			return RunView{}, core.Invalid("scope")
		}
		run.Trigger = "feed"
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		run, err = tx.CreateMarketplaceRun(ctx, run)
		if errors.Is(err, store.ErrConflict) {
			return ErrRunInProgress
		}
		if err != nil {
			return err
		}
		return c.record(ctx, tx, a, "marketplace_run.started", "marketplace_source", SourceID(s.ID),
			map[string]any{"run": RunID(run.ID), "trigger": run.Trigger, "scope": run.Scope, "confirm_removals": run.ConfirmRemovals})
	})
	if err != nil {
		removeFile()
		return RunView{}, err
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		defer removeFile()
		// The read outlives the request that started it.
		c.execute(context.WithoutCancel(ctx), a, s, run, in.FilePath)
	}()
	return runView(run), nil
}

// execute reads a queued run to its end and records the outcome.
func (c *Service) execute(ctx context.Context, a *core.Actor, s store.MarketplaceSource, run store.MarketplaceRun, path string) (string, error) {
	finish := func(state, failure string, counts RunCounts, rep RunReport) {
		cb, _ := json.Marshal(counts)
		if rep.Skips == nil {
			rep.Skips = map[string]int{}
		}
		if rep.Unmatched == nil {
			rep.Unmatched = []Unmatched{}
		}
		if rep.HeldProducts == nil {
			rep.HeldProducts = []HeldProduct{}
		}
		rb, _ := json.Marshal(rep)
		err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
			return tx.FinishMarketplaceRun(ctx, run.ID, state, failure, string(cb), string(rb))
		})
		if err != nil {
			c.Log.Error("marketplace run not recorded", "run", RunID(run.ID), "err", err)
			return
		}
		c.alertAfterRun(ctx, s, state, failure, counts)
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.StartMarketplaceRun(ctx, run.ID) })
	if err != nil {
		finish(RunFailed, failureCode(err), RunCounts{}, RunReport{})
		return RunFailed, err
	}
	if _, err := c.Catalogue.FillFromOrders(ctx); err != nil {
		c.Log.Warn("catalogue not filled from order lines", "err", err)
	}
	im, err := c.newImporter(ctx, a, s, run.ID, run.Scope, run.ConfirmRemovals, false)
	if err != nil {
		finish(RunFailed, failureCode(err), RunCounts{}, RunReport{})
		return RunFailed, err
	}
	if path != "" {
		err = c.readFile(ctx, im, path)
	} else {
		err = c.readFeed(ctx, im, s)
	}
	if err == nil {
		var state string
		var counts RunCounts
		var rep RunReport
		state, counts, rep, err = im.finish(ctx)
		if err == nil {
			// Photos are fetched after the import transactions, outside any of them.
			counts.PhotosMissing = c.runPhotos(ctx, s.ID)
			rep.PhotosMissing = counts.PhotosMissing
			finish(state, "", counts, rep)
			return state, nil
		}
	}
	c.Log.Warn("marketplace run failed", "run", RunID(run.ID), "source", SourceID(s.ID), "err", err)
	finish(RunFailed, failureOf(err), im.counts, RunReport{Skips: im.skips, Unmatched: im.unmatchedList()})
	return RunFailed, err
}

func (c *Service) readFile(ctx context.Context, im *importer, path string) error {
	src, _, err := openRows(ctx, path, im.p)
	if err != nil {
		return err
	}
	defer src.Close()
	return im.consume(ctx, src)
}

// Check is the dry run (POST .../check): a file on the file route, the feed on
// the feed route; nothing is written.
func (c *Service) Check(ctx context.Context, a *core.Actor, id string, in StartInput) (CheckResult, error) {
	defer func() {
		if in.FilePath != "" {
			_ = os.Remove(in.FilePath)
		}
	}()
	q := c.DB.Read()
	s, err := c.sourceByPublicID(ctx, q, id)
	if err != nil {
		return CheckResult{}, err
	}
	scope := ScopeFull
	if s.Route == RouteFeed && in.Scope == ScopeNew {
		scope = ScopeNew
	} else if s.Route == RouteFeed && in.Scope != "" && in.Scope != ScopeFull {
		return CheckResult{}, core.Invalid("scope")
	}
	if s.Route == RouteFile && in.FilePath == "" {
		return CheckResult{}, ErrFileRequired
	}
	if s.Route == RouteFile {
		p, _ := PlatformOf(s.Platform)
		if _, _, err := countRows(ctx, in.FilePath, p); err != nil {
			return CheckResult{}, err
		}
	}
	if _, err := c.Catalogue.FillFromOrders(ctx); err != nil {
		c.Log.Warn("catalogue not filled from order lines", "err", err)
	}
	im, err := c.newImporter(ctx, a, s, 0, scope, false, true)
	if err != nil {
		return CheckResult{}, err
	}
	if s.Route == RouteFile {
		err = c.readFile(ctx, im, in.FilePath)
	} else {
		err = c.readFeed(ctx, im, s)
	}
	if err != nil {
		var fe *catalogue.FeedError
		if errors.As(err, &fe) {
			return CheckResult{}, core.E(400, "platform_refused", fe.Code)
		}
		return CheckResult{}, err
	}
	return CheckResult{Rows: im.counts.Rows, Eligible: im.counts.Eligible, WouldImport: im.counts.Imported,
		WouldUpdate: im.counts.Updated, WouldRemove: len(im.unseen()), MatchedBarcodes: len(im.matched),
		UnmatchedBarcodes: im.unmatchedBarcodes(), Unmatched: im.unmatchedList(), Skips: im.skips}, nil
}

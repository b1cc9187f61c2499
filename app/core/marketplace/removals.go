package marketplace

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// MaxRemovalReviews is the most reviews one removal request names (spec 3).
const MaxRemovalReviews = 100

// RemovalInput is the body of POST /admin/v1/marketplace/removals.
type RemovalInput struct {
	Reviews []string `json:"reviews"`
	Note    string   `json:"note"`
}

// RemovalResult is the 201 answer.
type RemovalResult struct {
	ID          string    `json:"id"`
	Reviews     []string  `json:"reviews"`
	MediaPurged int       `json:"media_purged"`
	State       string    `json:"state"`
	CreatedAt   time.Time `json:"created_at"`
}

// Remove removes imported reviews on a reviewer's request: each review is
// removed (reason data_subject_request) with its media purged, marked so later
// reads do not bring it back, and the request is recorded as a deletion request.
// Every id must be an imported review (else 400 invalid / reviews).
func (c *Service) Remove(ctx context.Context, a *core.Actor, in RemovalInput) (RemovalResult, error) {
	if len(in.Reviews) == 0 || len(in.Reviews) > MaxRemovalReviews {
		return RemovalResult{}, core.Invalid("reviews")
	}
	note, err := core.Text("note", in.Note, 1000, false)
	if err != nil {
		return RemovalResult{}, core.Invalid("note")
	}
	seen := map[string]bool{}
	ids := make([]string, 0, len(in.Reviews))
	for _, id := range in.Reviews {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	var out RemovalResult
	var purged []string
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		links, err := tx.MarketplaceLinksOf(ctx, ids)
		if err != nil {
			return err
		}
		if len(links) != len(ids) {
			return core.Invalid("reviews")
		}
		sources := map[int64]bool{}
		var srcIDs []int64
		rid := core.NewPublicID("mkd_")
		for _, id := range ids {
			l := links[id]
			p, err := c.Reviews.RemoveImportedReview(ctx, tx, a, l.ReviewID, "data_subject_request",
				map[string]any{"removal": rid})
			if err != nil {
				return err
			}
			purged = append(purged, p...)
			if err := tx.MarkMarketplaceRemovedByRequest(ctx, l.ReviewID); err != nil {
				return err
			}
			// The photo addresses go with the review (it is never imported again).
			if err := tx.DeleteMarketplacePhotosOf(ctx, l.ReviewID); err != nil {
				return err
			}
			if !sources[l.SourceID] {
				sources[l.SourceID] = true
				srcIDs = append(srcIDs, l.SourceID)
			}
		}
		rb, _ := json.Marshal(ids)
		r, err := tx.CreateMarketplaceRemoval(ctx, store.MarketplaceRemoval{PublicID: rid, Reviews: string(rb), Note: note,
			MediaPurged: len(purged), State: "completed", ActorID: core.ActorID(a), SourceIDs: srcIDs})
		if err != nil {
			return err
		}
		if err := c.record(ctx, tx, a, "marketplace_removal.created", "marketplace_removal", rid,
			map[string]any{"reviews": len(ids), "media_purged": len(purged)}); err != nil {
			return err
		}
		out = RemovalResult{ID: r.PublicID, Reviews: ids, MediaPurged: len(purged), State: r.State, CreatedAt: r.CreatedAt}
		return nil
	})
	if err != nil {
		return RemovalResult{}, err
	}
	for _, m := range purged {
		c.Reviews.DeleteMediaFiles(m)
	}
	return out, nil
}

// ImportedFilter is the query of GET /admin/v1/marketplace/imported-reviews.
type ImportedFilter struct {
	Q        string
	Platform string
	Page     int
	PageSize int
}

// ImportedRow is one imported review of the list.
type ImportedRow struct {
	ID               string    `json:"id"`
	Platform         string    `json:"platform"`
	SourceName       string    `json:"source_name"`
	Source           string    `json:"source"`
	Channel          string    `json:"channel"`
	SellerID         string    `json:"seller_id"`
	SourceReviewID   string    `json:"source_review_id"`
	Barcode          string    `json:"barcode"`
	VariantKey       string    `json:"variant_key"`
	ProductName      string    `json:"product_name"`
	Rating           int       `json:"rating"`
	Title            string    `json:"title"`
	Body             string    `json:"body"`
	Author           string    `json:"author"`
	State            string    `json:"state"`
	OriginURL        string    `json:"origin_url"`
	WrittenAt        time.Time `json:"written_at"`
	RemovedByRequest bool      `json:"removed_by_request"`
}

// ImportedList is the answer of the imported-review list.
type ImportedList struct {
	Items    []ImportedRow `json:"items"`
	Total    int           `json:"total"`
	Page     int           `json:"page"`
	Pages    int           `json:"pages"`
	PageSize int           `json:"page_size"`
}

// ImportedReviews lists imported reviews (q searches text, author and the
// marketplace review number; platform filters), logged as imported_reviews.listed.
func (c *Service) ImportedReviews(ctx context.Context, a *core.Actor, f ImportedFilter) (ImportedList, error) {
	if f.Platform != "" {
		if _, ok := PlatformOf(f.Platform); !ok {
			return ImportedList{}, core.Invalid("platform")
		}
	}
	if f.Page < 1 {
		f.Page = 1
	}
	if f.PageSize < 1 {
		f.PageSize = 25
	}
	if f.PageSize > 200 {
		f.PageSize = 200
	}
	rows, total, err := c.DB.Read().ImportedReviews(ctx, store.ImportedReviewFilter{Q: f.Q, Platform: f.Platform,
		Limit: f.PageSize, Offset: (f.Page - 1) * f.PageSize})
	if err != nil {
		return ImportedList{}, err
	}
	out := ImportedList{Items: make([]ImportedRow, len(rows)), Total: total, Page: f.Page, PageSize: f.PageSize,
		Pages: (total + f.PageSize - 1) / f.PageSize}
	for i, r := range rows {
		out.Items[i] = ImportedRow{ID: r.PublicID, Platform: r.SourcePlatform, SourceName: r.SourceName,
			Source: SourceID(r.SourceID), Channel: r.Channel, SellerID: r.SellerID, SourceReviewID: r.SourceReviewID,
			Barcode: r.Barcode, VariantKey: r.VariantKey, ProductName: r.ProductName, Rating: r.Rating, Title: r.Title,
			Body: r.Body, Author: r.AuthorName, State: r.State, OriginURL: r.SourceURL, WrittenAt: r.SubmittedAt,
			RemovedByRequest: r.RemovedBy}
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.logAccess(ctx, tx, a, "imported_reviews.listed", len(rows))
	})
	return out, err
}

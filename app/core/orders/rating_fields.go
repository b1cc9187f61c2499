package orders

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core/readmodel"
	"reviewd/app/outbound"
	"reviewd/store"
)

// ProductRating is the figure written to one store product's rating fields: the
// count and average of its published reviews as the storefront aggregate shows
// them. A zero Count removes the fields (the product's last review is gone).
type ProductRating struct {
	ProductID string
	Count     int
	Average   float64
}

// AverageText is the average as written and kept ("4.5"; "" without reviews).
func (r ProductRating) AverageText() string {
	if r.Count == 0 {
		return ""
	}
	return strconv.FormatFloat(r.Average, 'f', 1, 64)
}

// RatingWrite is one write of product rating fields handed to a platform.
type RatingWrite struct {
	Client      *outbound.Client
	BaseURL     string
	Credentials map[string]string
	Ratings     []ProductRating
	// Wait pauses for the platform's request limit; it returns early with the
	// context's error.
	Wait func(context.Context, time.Duration) error
	// Written is called after each batch the platform accepted; an error ends the
	// write.
	Written func([]ProductRating) error
}

// RatingWriteResult is what a platform did with a RatingWrite.
type RatingWriteResult struct {
	Batches int
	// Refused counts products the platform refused (a deleted product, say);
	// they are tried again at the next read.
	Refused int
}

// RatingWriter is a platform reader that can also keep the store's product
// rating fields current (the Shopify reader: reviews.rating and
// reviews.rating_count). A connection without the permission to write products
// fails with FailScopeMissing before anything is written.
type RatingWriter interface {
	WriteRatings(ctx context.Context, w RatingWrite) (RatingWriteResult, error)
}

// Rating-field states of a read report.
const (
	RatingFieldsOK           = "ok"
	RatingFieldsScopeMissing = "scope_missing"
)

// RatingFieldsReport is the part of a read report about the product rating
// fields, present when a figure changed: products whose figure changed (Due),
// those written, the calls made, and the state (ok, scope_missing or a failure
// code). Note says it in plain words
// when the fields could not be written.
type RatingFieldsReport struct {
	Due     int    `json:"due"`
	Written int    `json:"written"`
	Batches int    `json:"batches"`
	Refused int    `json:"refused,omitempty"`
	State   string `json:"state"`
	Note    string `json:"note,omitempty"`
}

// Plain-words notes of the rating-field report.
const (
	noteScopeMissing = "Product rating fields (reviews.rating, reviews.rating_count) were not written: the store's app lacks the write_products permission. Grant it to the app to turn them on."
	noteFailed       = "Product rating fields could not all be written; they are tried again at the next read."
)

// waitTimer waits d or until ctx ends.
func waitTimer(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ratingsDue lists the connection's products whose figure differs from the one
// last written (or was never written); a product without reviews is due only
// when fields with a count were written (they are removed).
func ratingsDue(fields []store.RatingField) []ProductRating {
	var out []ProductRating
	for _, f := range fields {
		count, avg := readmodel.RatingOf(store.ProductStats{Reviews: f.Reviews, RatingSum: f.RatingSum})
		r := ProductRating{ProductID: f.ProductID, Count: count, Average: avg}
		if (f.Written || r.Count == 0) && f.WrittenCount == r.Count && f.WrittenAverage == r.AverageText() {
			continue
		}
		out = append(out, r)
	}
	return out
}

// writeRatingFields keeps the rating fields of the connection's products current
// after a read: products whose published figures in the channel's market changed
// since the last successful write are written through the platform, and each
// accepted batch is recorded at once. Its outcome goes into the read report; a
// failure here never fails the read.
func (c *Service) writeRatingFields(ctx context.Context, s store.OrderSource) *RatingFieldsReport {
	reader, _ := c.Platforms.Reader(s.Platform)
	w, ok := reader.(RatingWriter)
	if !ok {
		return nil
	}
	var fields []store.RatingField
	creds, err := c.openCredentials(s.CredentialsEnc)
	if err == nil {
		var ch store.Channel
		if ch, err = c.DB.Read().ChannelByID(ctx, s.ChannelID); err == nil {
			fields, err = c.DB.Read().RatingFields(ctx, s.ID, ch.Market)
		}
	}
	if err != nil {
		c.Log.Warn("rating fields: read figures", "connection", OrderSourcePublicID(s.ID), "err", err)
		return &RatingFieldsReport{State: FailureCode(err), Note: noteFailed}
	}
	due := ratingsDue(fields)
	if len(due) == 0 {
		return nil // nothing changed: no request, nothing to report
	}
	rep := &RatingFieldsReport{Due: len(due), State: RatingFieldsOK}
	wait := c.Wait
	if wait == nil {
		wait = waitTimer
	}
	res, err := w.WriteRatings(ctx, RatingWrite{Client: c.Outbound, BaseURL: s.BaseURL, Credentials: creds, Ratings: due, Wait: wait,
		Written: func(batch []ProductRating) error {
			return c.DB.WithTx(ctx, func(tx *store.Tx) error {
				for _, r := range batch {
					if err := tx.SaveRatingField(ctx, s.ID, r.ProductID, r.Count, r.AverageText()); err != nil {
						return err
					}
				}
				rep.Written += len(batch)
				return nil
			})
		}})
	rep.Batches, rep.Refused = res.Batches, res.Refused
	switch code := FailureCode(err); {
	case code == FailScopeMissing:
		rep.State, rep.Note = RatingFieldsScopeMissing, noteScopeMissing
	case code != "":
		rep.State, rep.Note = code, noteFailed
		if code == FailUnexpected {
			c.Log.Warn("rating fields: write", "connection", OrderSourcePublicID(s.ID), "err", err)
		}
	case res.Refused > 0:
		rep.Note = noteFailed
	}
	return rep
}

// groupKeys lists the distinct group keys of an order's lines: a Shopify line's
// product legacyResourceId, the product its rating fields belong to.
func groupKeys(in OrderInput) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range in.Items {
		k := strings.TrimSpace(l.GroupKey)
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// ratingFieldsIssue reads a stored report's rating-field part: scope_missing,
// failed (a failure or refused products) or "".
func ratingFieldsIssue(report string) string {
	var r ReadReport
	if json.Unmarshal([]byte(report), &r) != nil || r.RatingFields == nil {
		return ""
	}
	switch f := r.RatingFields; {
	case f.State == RatingFieldsScopeMissing:
		return "scope_missing"
	case f.State != RatingFieldsOK || f.Refused > 0:
		return "failed"
	}
	return ""
}

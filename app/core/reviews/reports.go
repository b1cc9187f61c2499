package reviews

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/readmodel"
	"reviewd/store"
)

// Reports of published reviews by visitors (POST /v1/reviews/<id>/report). A
// visitor (visitor_key, else IP address) has at most one open report per review;
// reporting again returns the open report. Moderators close reports (admin).

// ErrInvalidReason is 400 invalid_reason.
var ErrInvalidReason = core.E(core.StatusBadRequest, "invalid_reason", "")

// ReportInput is the body of POST /v1/reviews/<id>/report.
type ReportInput struct {
	Reason     string `json:"reason"`
	Note       string `json:"note"`
	VisitorKey string `json:"visitor_key"`
}

// ReportResult is its answer; Created is false when the visitor's open report was
// returned.
type ReportResult struct {
	ID      string `json:"id"`
	Created bool   `json:"-"`
}

// NewReportID returns a new public report id (rp_<20 base32>).
func NewReportID() string { return core.NewPublicID("rp_") }

// ReportReview records a visitor's report of a review shown on channel ch. Errors:
// 400 invalid_reason, invalid / note_too_long, 404 not_found (the review is not
// published or not shown on the channel).
func (c *Service) ReportReview(ctx context.Context, a *core.Actor, ch store.Channel, reviewID string, in ReportInput) (ReportResult, error) {
	if !brand.ValidReason(in.Reason) {
		return ReportResult{}, ErrInvalidReason
	}
	note := core.MultiLine(in.Note)
	if utf8.RuneCountInString(note) > readmodel.MaxReportNote {
		return ReportResult{}, core.Invalid("note_too_long")
	}
	visitor := c.Visitor(in.VisitorKey, a.IP)
	var out ReportResult
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := c.VisibleReview(ctx, tx, ch, reviewID)
		if err != nil {
			return err
		}
		open, err := tx.OpenReportOf(ctx, r.ID, visitor)
		if err == nil {
			out = ReportResult{ID: open.PublicID}
			return nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		rep, err := tx.CreateReport(ctx, store.Report{PublicID: NewReportID(), ReviewID: r.ID, ChannelID: ch.ID,
			Reason: in.Reason, Note: note, Visitor: visitor})
		if err != nil {
			return err
		}
		out = ReportResult{ID: rep.PublicID, Created: true}
		return c.Record(ctx, tx, a, "review.reported", "review", r.PublicID, map[string]any{"reason": in.Reason,
			"report": rep.PublicID})
	})
	return out, err
}

// VisibleReview finds a review that the channel's list shows: published, of the
// channel's market, or syndicable from another market while syndication is on.
// Anything else is 404 not_found.
func (c *Service) VisibleReview(ctx context.Context, tx *store.Tx, ch store.Channel, publicID string) (store.Review, error) {
	r, err := tx.ReviewByPublicID(ctx, publicID)
	if errors.Is(err, store.ErrNotFound) {
		return r, core.ErrNotFound
	}
	if err != nil {
		return r, err
	}
	if r.State != core.ReviewPublished {
		return r, core.ErrNotFound
	}
	if r.Market != ch.Market {
		st, err := c.Brand.LoadSettings(ctx, tx.Q)
		if err != nil {
			return r, err
		}
		if !st.SyndicationEnabled || !readmodel.Syndicable(r) {
			return r, core.ErrNotFound
		}
	}
	return r, nil
}

// Visitor is the stored identity of a visitor: a keyed hash of the visitor key,
// else of the IP address.
func (c *Service) Visitor(key, ip string) string {
	if key = strings.TrimSpace(key); key != "" {
		return c.Keys.Pseudonym("visitor", "key:"+key)
	}
	return c.Keys.Pseudonym("visitor", "ip:"+ip)
}

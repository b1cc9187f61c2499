// Package reviewtrace is the review trace (GET /admin/v1/reviews/<id>/trace):
// everything that happened to a review on one timeline, read over the reviews
// service.
package reviewtrace

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/store"
)

// Review trace (GET /admin/v1/reviews/<id>/trace): everything that happened to a
// review on one timeline, for audits and customer questions.

// Timeline subject types.
const (
	TraceReview     = "review"     // a step of the review's history
	TraceReport     = "report"     // a visitor report was made or closed
	TraceResolution = "resolution" // a moderator closed the reports with a note
	TraceNotice     = "notice"     // a rejection notice was queued or attempted
	// TraceSellerResponse and TraceResolutionNote are the brand's public notes:
	// published, changed, withdrawn (the note carries the text).
	TraceSellerResponse = "seller_response"
	TraceResolutionNote = "resolution_note"
)

// TraceFormats are the download formats of the trace.
var TraceFormats = []string{"json", "csv", "xlsx"}

// TraceEntry is one entry of a review's timeline.
type TraceEntry struct {
	At          time.Time `json:"at"`
	SubjectType string    `json:"subject_type"`
	SubjectID   string    `json:"subject_id"`
	Event       string    `json:"event"`
	FromState   string    `json:"from_state"`
	ToState     string    `json:"to_state"`
	Reason      string    `json:"reason"`
	ActorType   string    `json:"actor_type"`
	ActorName   string    `json:"actor_name"`
	Note        string    `json:"note"`
}

// TraceReviewView is the review object of a trace.
type TraceReviewView struct {
	reviews.AdminReviewRow
	Proof reviews.ReviewProof `json:"proof"`
}

// ReviewTrace is the answer of GET /admin/v1/reviews/<id>/trace. SellerResponse
// and Resolution are the brand's current notes (null when none).
type ReviewTrace struct {
	Review         TraceReviewView             `json:"review"`
	SellerResponse *reviews.SellerResponseView `json:"seller_response"`
	Resolution     *reviews.ResolutionView     `json:"resolution"`
	Timeline       []TraceEntry                `json:"timeline"`
	// PanelURL is the open-in-panel address; CSV and Excel downloads carry it, JSON
	// does not.
	PanelURL string `json:"-"`
}

// noteOf reads the note of a history entry's detail.
func noteOf(detail string) string {
	var d struct {
		Note string `json:"note"`
	}
	_ = json.Unmarshal([]byte(detail), &d)
	return d.Note
}

// TraceOf builds a review's trace and logs the read (review_history.viewed in the
// personal-data access log). With a download format (json, csv or xlsx) the
// download is also recorded in the activity history (review_history.downloaded).
// Errors: 404 not_found; invalid / format.
func TraceOf(ctx context.Context, c *reviews.Service, a *core.Actor, publicID, format string) (ReviewTrace, error) {
	var t ReviewTrace
	if format != "" && !slices.Contains(TraceFormats, format) {
		return t, core.Invalid("format")
	}
	q := c.DB.Read()
	r, err := reviews.AdminReview(ctx, q, publicID)
	if err != nil {
		return t, err
	}
	t.Review.AdminReviewRow = reviews.AdminRowOf(r)
	if t.Review.Proof, err = c.ProofOf(ctx, q, r.Review); err != nil {
		return t, err
	}
	t.PanelURL = c.PanelReviewURL(r.PublicID)
	t.Timeline = []TraceEntry{}
	events, err := q.ReviewEvents(ctx, r.ID)
	if err != nil {
		return t, err
	}
	for _, e := range events {
		entry := TraceEntry{At: e.At, SubjectType: TraceReview, SubjectID: r.PublicID, Event: e.Event, FromState: e.FromState,
			ToState: e.ToState, Reason: e.Reason, ActorType: e.ActorType, ActorName: e.ActorName}
		switch e.Event {
		case "reports_resolved":
			entry.SubjectType, entry.Note = TraceResolution, noteOf(e.Detail)
		case reviews.EventResponsePublished, reviews.EventResponseChanged, reviews.EventResponseWithdrawn:
			entry.SubjectType, entry.Note = TraceSellerResponse, noteOf(e.Detail)
		case reviews.EventResolutionSet, reviews.EventResolutionRemoved:
			entry.SubjectType, entry.Note = TraceResolutionNote, noteOf(e.Detail)
		}
		t.Timeline = append(t.Timeline, entry)
	}
	if t.SellerResponse, t.Resolution, err = reviews.CurrentNotes(ctx, q, r.ID); err != nil {
		return t, err
	}
	reports, err := q.ReportsOfReview(ctx, r.ID)
	if err != nil {
		return t, err
	}
	for _, p := range reports {
		t.Timeline = append(t.Timeline, TraceEntry{At: p.CreatedAt, SubjectType: TraceReport, SubjectID: p.PublicID,
			Event: "reported", Reason: p.Reason, ActorType: "visitor", Note: p.Note})
		if !p.ResolvedAt.IsZero() {
			t.Timeline = append(t.Timeline, TraceEntry{At: p.ResolvedAt, SubjectType: TraceReport, SubjectID: p.PublicID,
				Event: "closed", Reason: p.Reason, ActorName: p.ResolvedBy})
		}
	}
	if r.OrderID != 0 {
		msgs, err := q.InvitationsOfOrder(ctx, r.OrderID)
		if err != nil {
			return t, err
		}
		for _, m := range msgs {
			if m.Kind != sending.MsgRejection || m.ReviewID != r.ID {
				continue
			}
			id := sending.InvitationPublicID(m.ID)
			reason := strings.TrimPrefix(m.TemplateKey, sending.RejectionTemplate)
			t.Timeline = append(t.Timeline, TraceEntry{At: m.CreatedAt, SubjectType: TraceNotice, SubjectID: id,
				Event: "queued", Reason: reason, ActorType: core.ViaSystem})
			logs, err := q.SendLogsOfInvitation(ctx, m.ID)
			if err != nil {
				return t, err
			}
			for _, l := range logs {
				t.Timeline = append(t.Timeline, TraceEntry{At: l.At, SubjectType: TraceNotice, SubjectID: id, Event: l.Status,
					Reason: reason, ActorType: core.ViaSystem, Note: strings.TrimSpace(l.ChannelKind + " " + l.Error)})
			}
		}
	}
	sort.SliceStable(t.Timeline, func(i, j int) bool { return t.Timeline[i].At.Before(t.Timeline[j].At) })
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := c.LogAccess(ctx, tx, a, "review_history.viewed", "review", r.PublicID, 1); err != nil {
			return err
		}
		if format == "" {
			return nil
		}
		return c.Record(ctx, tx, a, "review_history.downloaded", "review", r.PublicID,
			map[string]any{"format": format, "entries": len(t.Timeline)})
	})
	return t, err
}

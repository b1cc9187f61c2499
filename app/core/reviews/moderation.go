package reviews

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Review moderation (spec 3, "States and transitions"; docs/decisions.md, "Review
// moderation").

// Review moderation events.
const (
	EventApprove = "approve"
	EventReject  = "reject"
	EventHide    = "hide"
	EventUnhide  = "unhide"
	EventRemove  = "remove"
)

// MaxBulkModeration is the most reviews one bulk action names.
const MaxBulkModeration = 200

// MaxModerationReason is the longest free-text reason of events without a reason
// list (approve, hide, unhide).
const MaxModerationReason = 1000

// reviewMoves lists, per event, the state it reaches from each state it is offered
// in, in the order available_events shows them.
var reviewMoves = []struct {
	event string
	moves map[string]string
}{
	{EventApprove, map[string]string{core.ReviewPending: core.ReviewPublished}},
	{EventReject, map[string]string{core.ReviewPending: core.ReviewRejected, core.ReviewPublished: core.ReviewRejected}},
	{EventHide, map[string]string{core.ReviewPublished: core.ReviewHidden}},
	{EventUnhide, map[string]string{core.ReviewHidden: core.ReviewPublished}},
	{EventRemove, map[string]string{core.ReviewPending: core.ReviewRemoved, core.ReviewPublished: core.ReviewRemoved,
		core.ReviewRejected: core.ReviewRemoved, core.ReviewHidden: core.ReviewRemoved}},
}

// reasonListOf names the reason list an event's reason must come from ("" = free
// text, optional).
func reasonListOf(event string) string {
	switch event {
	case EventReject:
		return brand.ReasonsReviewRejection
	case EventRemove:
		return brand.ReasonsReviewRemoval
	}
	return ""
}

// putsLive reports whether an event puts a review live; an anonymised review is
// never put live again.
func putsLive(event string) bool { return event == EventApprove || event == EventUnhide }

// AvailableReviewEvents lists the events offered from state; for an anonymised
// review approve and unhide are left out.
func AvailableReviewEvents(state string, anonymized bool) []string {
	out := []string{}
	for _, m := range reviewMoves {
		if _, ok := m.moves[state]; ok && !(anonymized && putsLive(m.event)) {
			out = append(out, m.event)
		}
	}
	return out
}

// ReviewTransitionInput is the body of POST /admin/v1/reviews/<id>/transition.
type ReviewTransitionInput struct {
	Event  string `json:"event"`
	Reason string `json:"reason"`
	// From, when set, is the state the decision was made on (a held decision):
	// the move is refused (409 transition_refused / event_not_available) when the
	// review has left it meanwhile.
	From string `json:"-"`
}

// checkReviewTransition validates the body without the review: invalid /
// event_required, event (unknown event), reason_required and reason (reject and
// remove need a code of their reason list), reason_too_long.
func checkReviewTransition(in *ReviewTransitionInput) error {
	in.Event, in.Reason = strings.TrimSpace(in.Event), strings.TrimSpace(in.Reason)
	if in.Event == "" {
		return core.Invalid("event_required")
	}
	known := false
	for _, m := range reviewMoves {
		known = known || m.event == in.Event
	}
	if !known {
		return core.Invalid("event")
	}
	if list := reasonListOf(in.Event); list != "" {
		switch {
		case in.Reason == "":
			return core.Invalid("reason_required")
		case !brand.ReasonAllowed(list, in.Reason):
			return core.Invalid("reason")
		}
		return nil
	}
	return freeReason(in.Reason)
}

// freeReason checks an optional free-text reason: one line (invalid / reason) of
// at most 1000 characters (invalid / reason_too_long).
func freeReason(s string) error {
	switch {
	case !core.StorableText(s):
		return core.Invalid("reason")
	case utf8.RuneCountInString(s) > MaxModerationReason:
		return core.Invalid("reason_too_long")
	}
	return nil
}

// reviewMove finds the state event reaches from r's state: 409 transition_refused /
// review_anonymized when it would put an anonymised review live, event_not_available
// when the event is not offered from the state.
func reviewMove(r store.Review, event string) (string, error) {
	if putsLive(event) && !r.AnonymizedAt.IsZero() {
		return "", core.Conflict("transition_refused", "review_anonymized")
	}
	for _, m := range reviewMoves {
		if m.event == event {
			if to, ok := m.moves[r.State]; ok {
				return to, nil
			}
		}
	}
	return "", core.Conflict("transition_refused", "event_not_available")
}

// moderated is what one applied moderation event leaves to do after commit.
type moderated struct {
	notice int64 // rejection notice to send at once (0 none)
}

// applyReviewEvent moves r in tx by event (already validated against its state):
// state, check findings (closed by approve, reject and remove), review history,
// activity history (review.<event>), the product figures and, for a rejection, the
// correction link and rejection notice.
func (c *Service) applyReviewEvent(ctx context.Context, tx *store.Tx, a *core.Actor, r store.Review, event, to, reason string, bulk bool) (moderated, error) {
	var done moderated
	var published time.Time
	if to == core.ReviewPublished {
		published = tx.Now
	}
	if err := tx.SetReviewState(ctx, r.ID, to, published); err != nil {
		return done, err
	}
	if event == EventApprove || event == EventReject || event == EventRemove {
		_, _, by := historyActor(a)
		if _, err := tx.ResolveReviewChecks(ctx, r.ID, to, by); err != nil {
			return done, err
		}
		if err := tx.SetReviewFlag(ctx, r.ID, false); err != nil {
			return done, err
		}
	}
	var detail map[string]any
	if bulk {
		detail = map[string]any{"bulk": true}
	}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, event, r.State, to, reason, detail); err != nil {
		return done, err
	}
	act := map[string]any{"from": r.State, "to": to, "reason": reason}
	if bulk {
		act["bulk"] = true
	}
	if err := c.Record(ctx, tx, a, "review."+event, "review", r.PublicID, act); err != nil {
		return done, err
	}
	if err := c.afterReviewStateChange(ctx, tx, r.ID); err != nil {
		return done, err
	}
	if event == EventReject {
		id, err := c.NotifyRejection(ctx, tx, r.ID, reason, brand.ReasonLabel(brand.ReasonsReviewRejection, reason, r.Language))
		if err != nil {
			return done, err
		}
		done.notice = id
	}
	return done, nil
}

// sendNotices attempts queued rejection notices at once; a failed attempt is
// retried by the invitations job on the notice schedule.
func (c *Service) sendNotices(ctx context.Context, ids []int64) {
	for _, id := range ids {
		if id == 0 {
			continue
		}
		if err := c.Sending.DeliverNow(ctx, id); err != nil {
			c.Log.Warn("rejection notice not sent at once", "notice", id, "err", err)
		}
	}
}

// ReviewTransitionResult is the answer of a review transition: the review row
// after the move and the events now offered.
type ReviewTransitionResult struct {
	AdminReviewRow
	AvailableEvents []string `json:"available_events"`
}

// TransitionReview applies a moderation event to a review (POST
// /admin/v1/reviews/<id>/transition): approve (pending to published), reject
// (pending or published to rejected; reason from the review_rejection list), hide
// (published to hidden), unhide (hidden to published), remove (any state but removed
// to removed; reason from the review_removal list). A rejection issues a correction
// link and sends the rejection notice by the brand's route without delay. Errors:
// 404 not_found; invalid / event_required, event, reason_required, reason,
// reason_too_long; 409 transition_refused / event_not_available, review_anonymized.
func (c *Service) TransitionReview(ctx context.Context, a *core.Actor, publicID string, in ReviewTransitionInput) (ReviewTransitionResult, error) {
	return c.TransitionReviewWith(ctx, a, publicID, in, nil)
}

// TransitionReviewWith is TransitionReview with also run in the transition's
// transaction after the move (nil: nothing); an error of also undoes the move.
func (c *Service) TransitionReviewWith(ctx context.Context, a *core.Actor, publicID string, in ReviewTransitionInput,
	also func(tx *store.Tx, r store.Review) error) (ReviewTransitionResult, error) {
	var out ReviewTransitionResult
	if err := checkReviewTransition(&in); err != nil {
		return out, err
	}
	var done moderated
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if !isReviewID(publicID) {
			return core.ErrNotFound
		}
		r, err := tx.ReviewByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		to, err := reviewMove(r, in.Event)
		if err != nil {
			return err
		}
		if in.From != "" && r.State != in.From {
			return core.Conflict("transition_refused", "event_not_available")
		}
		if done, err = c.applyReviewEvent(ctx, tx, a, r, in.Event, to, in.Reason, false); err != nil {
			return err
		}
		if also != nil {
			if err := also(tx, r); err != nil {
				return err
			}
		}
		row, err := AdminReview(ctx, tx.Q, publicID)
		if err != nil {
			return err
		}
		out = ReviewTransitionResult{AdminReviewRow: AdminRowOf(row),
			AvailableEvents: AvailableReviewEvents(row.State, !row.AnonymizedAt.IsZero())}
		return nil
	})
	if err != nil {
		return out, err
	}
	c.sendNotices(ctx, []int64{done.notice})
	return out, nil
}

// CheckReviewTransition checks a transition without applying it (a held panel
// decision): the review (read in q) and TransitionReview's errors.
func (c *Service) CheckReviewTransition(ctx context.Context, q *store.Q, publicID string, in *ReviewTransitionInput) (store.Review, error) {
	if err := checkReviewTransition(in); err != nil {
		return store.Review{}, err
	}
	if !isReviewID(publicID) {
		return store.Review{}, core.ErrNotFound
	}
	r, err := q.ReviewByPublicID(ctx, publicID)
	if err != nil {
		return r, err
	}
	_, err = reviewMove(r, in.Event)
	return r, err
}

// BulkInput is the body of POST /admin/v1/moderation/bulk.
type BulkInput struct {
	IDs    []string `json:"ids"`
	Action string   `json:"action"`
	Reason string   `json:"reason"`
}

// BulkResult is the answer of a bulk action: how many reviews changed and how many
// were skipped (unknown, not awaiting approval, or anonymised), with the skipped
// ids.
type BulkResult struct {
	Count      int      `json:"count"`
	Skipped    int      `json:"skipped"`
	SkippedIDs []string `json:"skipped_ids"`
}

// BulkModerate approves or rejects up to 200 reviews at once (POST
// /admin/v1/moderation/bulk). Only reviews awaiting approval change; others,
// unknown ids and anonymised reviews are skipped unchanged. Each change is a full
// transition (history, activity, rejection notice). Repeated ids count once.
// Errors: invalid / ids_required, ids (over 200 or not review ids), action_required,
// action, reason_required, reason.
func (c *Service) BulkModerate(ctx context.Context, a *core.Actor, in BulkInput) (BulkResult, error) {
	out := BulkResult{SkippedIDs: []string{}}
	if in.IDs == nil {
		return out, core.Invalid("ids_required")
	}
	if len(in.IDs) > MaxBulkModeration {
		return out, core.Invalid("ids")
	}
	in.Action, in.Reason = strings.TrimSpace(in.Action), strings.TrimSpace(in.Reason)
	switch in.Action {
	case "":
		return out, core.Invalid("action_required")
	case EventApprove:
	case EventReject:
		switch {
		case in.Reason == "":
			return out, core.Invalid("reason_required")
		case !brand.ReasonAllowed(brand.ReasonsReviewRejection, in.Reason):
			return out, core.Invalid("reason")
		}
	default:
		return out, core.Invalid("action")
	}
	if in.Action == EventApprove {
		if err := freeReason(in.Reason); err != nil {
			return out, err
		}
	}
	ids := uniqueIDs(in.IDs)
	var notices []int64
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		for _, id := range ids {
			var r store.Review
			var err error
			if isReviewID(id) {
				r, err = tx.ReviewByPublicID(ctx, id)
			} else {
				err = store.ErrNotFound
			}
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if err != nil || r.State != core.ReviewPending || !r.AnonymizedAt.IsZero() {
				out.Skipped++
				out.SkippedIDs = append(out.SkippedIDs, id)
				continue
			}
			to, err := reviewMove(r, in.Action)
			if err != nil {
				return err
			}
			done, err := c.applyReviewEvent(ctx, tx, a, r, in.Action, to, in.Reason, true)
			if err != nil {
				return err
			}
			notices = append(notices, done.notice)
			out.Count++
		}
		return nil
	})
	if err != nil {
		return BulkResult{}, err
	}
	c.sendNotices(ctx, notices)
	return out, nil
}

// QueueFilter selects the moderation queue (GET /admin/v1/moderation/queue).
type QueueFilter struct {
	core.ListQuery
	Channel string
	Market  string
}

// ElsewhereCounters count what waits in the brand's other channels.
type ElsewhereCounters struct {
	Reviews   int `json:"reviews"`
	Responses int `json:"responses"`
}

// QueueCounters are the counters of the moderation queue, within the channel filter.
type QueueCounters struct {
	Waiting   int               `json:"waiting"`
	Flagged   int               `json:"flagged"`
	Reported  int               `json:"reported"`
	Elsewhere ElsewhereCounters `json:"elsewhere"`
}

// ModerationQueueList is the answer of GET /admin/v1/moderation/queue.
type ModerationQueueList struct {
	Items    []AdminReviewRow `json:"items"`
	Total    int              `json:"total"`
	Page     int              `json:"page"`
	Pages    int              `json:"pages"`
	PageSize int              `json:"page_size"`
	Counters QueueCounters    `json:"counters"`
}

// ModerationQueue lists the reviews awaiting approval (rows as in the review list;
// q as there) with counters: waiting, flagged (waiting with an open check finding),
// reported (reviews in any state with an open report) and, with channel, elsewhere:
// the reviews and the questions and answers (responses) awaiting approval in the
// other channels (0 without channel). A search is logged as reviews.searched.
func (c *Service) ModerationQueue(ctx context.Context, a *core.Actor, f QueueFilter) (ModerationQueueList, error) {
	out := ModerationQueueList{Items: []AdminReviewRow{}, Page: f.Page, PageSize: f.PageSize}
	// A review with a held panel decision has left the queue (it comes back on undo).
	list, err := c.ListAdminReviews(ctx, a, AdminReviewFilter{ListQuery: f.ListQuery, State: core.ReviewPending,
		Channel: f.Channel, Market: f.Market, NotHeld: true})
	if err != nil {
		return out, err
	}
	out.Items, out.Total, out.Pages = list.Items, list.Total, list.Pages
	q := c.DB.Read()
	scope, err := storeReviewFilter(ctx, q, AdminReviewFilter{Channel: f.Channel, Market: f.Market})
	if err != nil {
		return out, err
	}
	scope.Limit = 0
	count := func(mod func(*store.AdminReviewFilter)) (int, error) {
		sf := scope
		mod(&sf)
		return q.CountAdminReviews(ctx, sf)
	}
	if out.Counters.Waiting, err = count(func(sf *store.AdminReviewFilter) { sf.State, sf.NotHeld = core.ReviewPending, true }); err != nil {
		return out, err
	}
	if out.Counters.Flagged, err = count(func(sf *store.AdminReviewFilter) { sf.State, sf.FlagOpen, sf.NotHeld = core.ReviewPending, true, true }); err != nil {
		return out, err
	}
	if out.Counters.Reported, err = count(func(sf *store.AdminReviewFilter) { sf.Reported = true }); err != nil {
		return out, err
	}
	if scope.ChannelID == 0 {
		return out, nil
	}
	if out.Counters.Elsewhere.Reviews, err = q.CountAdminReviews(ctx, store.AdminReviewFilter{State: core.ReviewPending,
		ExceptChannelID: scope.ChannelID}); err != nil {
		return out, err
	}
	allQ, _, allA, err := q.QuestionCounters(ctx, "", 0)
	if err != nil {
		return out, err
	}
	chQ, _, chA, err := q.QuestionCounters(ctx, "", scope.ChannelID)
	if err != nil {
		return out, err
	}
	out.Counters.Elsewhere.Responses = allQ + allA - chQ - chA
	return out, nil
}

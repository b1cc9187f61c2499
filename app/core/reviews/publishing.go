package reviews

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/sending"
	"reviewd/app/core/transparency"
	"reviewd/store"
)

// afterReviewStateChange runs inside the transaction whenever a review's state or
// its media change (submission, correction, publication and every moderation move,
// media ready or removed, the Returned mark). Product-level figures that are kept
// precomputed are refreshed here and nowhere else.
func (c *Service) afterReviewStateChange(ctx context.Context, tx *store.Tx, reviewID int64) error {
	c.queuePublicSync(tx, reviewID)
	return c.Read.RefreshReviewStats(ctx, tx, reviewID)
}

// AfterReviewStateChange is afterReviewStateChange for callers outside this file's
// flows (moderation): call it in the transaction that changed the review.
func (c *Service) AfterReviewStateChange(ctx context.Context, tx *store.Tx, reviewID int64) error {
	return c.afterReviewStateChange(ctx, tx, reviewID)
}

// historyActor names who acted in a review's history: the customer for writes
// through a site key, else the actor itself.
func historyActor(a *core.Actor) (typ, id, name string) {
	switch {
	case a == nil:
		return core.ViaSystem, "", "system"
	case a.Via == core.ViaSiteKey:
		return core.ViaCustomer, "", ""
	}
	return a.Via, a.ID, a.Name
}

// AddReviewEvent writes one entry of a review's history in tx.
func (c *Service) AddReviewEvent(ctx context.Context, tx *store.Tx, a *core.Actor, reviewID int64, event, from, to, reason string, detail any) error {
	d := "{}"
	if detail != nil {
		b, err := json.Marshal(detail)
		if err != nil {
			return err
		}
		d = string(b)
	}
	typ, id, name := historyActor(a)
	if err := tx.AddReviewEvent(ctx, store.ReviewEvent{ReviewID: reviewID, Event: event, FromState: from, ToState: to,
		Reason: reason, ActorType: typ, ActorID: id, ActorName: name, Detail: d}); err != nil {
		return err
	}
	// Every decision is in the review history, so this is the one place the
	// transparency log hears of it, in the same transaction.
	return c.Decisions.Append(ctx, tx, transparency.Decision{ReviewID: reviewID, From: from, To: to, Reason: reason,
		Actor: a, Rule: ruleDecided(event, reason), Erasure: event == eventAnonymized})
}

// ruleDecided reports whether a history event is decided by a rule rather than by
// whoever acted: the publishing rule for a written or corrected review, the
// marketplace's listing for an imported one (a run may be started by a panel
// user; a removal request is that user's decision).
func ruleDecided(event, reason string) bool {
	switch event {
	case eventSubmitted, eventRevised, EventImported, EventSourceUpdated:
		return true
	case EventSourceRemoved:
		return reason == "source_removed"
	}
	return false
}

// The review-history events of writing, correcting and erasing a review.
const (
	eventSubmitted  = "submitted"
	eventRevised    = "revised"
	eventAnonymized = "anonymized"
	eventReturned   = "returned"
	eventMediaGone  = "media_removed"
	eventReportsEnd = "reports_resolved"
)

// HistoryEvents lists every event a review's history can hold.
var HistoryEvents = []string{eventSubmitted, eventRevised, eventAnonymized, eventReturned, eventMediaGone, eventReportsEnd,
	EventApprove, EventReject, EventHide, EventUnhide, EventRemove, EventImported, EventSourceUpdated, EventSourceRemoved,
	EventResponsePublished, EventResponseChanged, EventResponseWithdrawn, EventResolutionSet, EventResolutionRemoved,
	EventFeatured, EventUnfeatured}

// ResponseNotices lists the recorded outcomes of the reviewer's e-mail about a
// seller response; a failure is "failed: <reason>" with a mail.SendError reason.
var ResponseNotices = []string{sending.OutcomeSent, ResponseNoticeNoAddress, ResponseNoticeOptedOut, ResponseNoticeMailOff}

// DecisionLog is the transparency log as reviews uses it (transparency.Service;
// tests may wrap it).
type DecisionLog interface {
	// Append logs a decision in the transaction that made it.
	Append(ctx context.Context, tx *store.Tx, d transparency.Decision) error
	// Receipt gives the receipt token of a review, in tx.
	Receipt(ctx context.Context, tx *store.Tx, reviewID int64) (string, error)
}

// publishAfterChecks runs the checks of a freshly written or corrected review and
// moves it to the state PublishDecision gives.
func (c *Service) publishAfterChecks(ctx context.Context, tx *store.Tx, r store.Review, method string) (state string, flagged bool, err error) {
	flagged, err = c.Checks.RunChecks(ctx, tx, r)
	if err != nil {
		return "", false, err
	}
	state = core.PublishDecision(method, core.Verified(r), flagged)
	var publishedAt time.Time
	if state == core.ReviewPublished {
		publishedAt = tx.Now
	}
	return state, flagged, tx.SetReviewState(ctx, r.ID, state, publishedAt)
}

// CorrectionLinkLifetime is used when the review's market has no rule; otherwise a
// correction link lasts one review window of the market from when it is issued.
const CorrectionLinkLifetime = 30 * 24 * time.Hour

// IssueCorrectionLink issues, in tx, the single-use correction token of a review
// (POST /v1/reviews/revise accepts it while the review is rejected) and returns the
// link the customer opens: the channel's landing_url with #review_token=<token>
// (spec 1, notices rule 1; the public address when the channel has no landing page).
// The link lasts one review window of the review's market from now. Reviews without
// an order (imported) or of an erased order get none (invalid /
// review_not_revisable).
func (c *Service) IssueCorrectionLink(ctx context.Context, tx *store.Tx, reviewID int64) (string, error) {
	link, _, err := c.issueCorrection(ctx, tx, reviewID)
	return link, err
}

func (c *Service) issueCorrection(ctx context.Context, tx *store.Tx, reviewID int64) (link, token string, err error) {
	r, err := tx.ReviewByID(ctx, reviewID)
	if err != nil {
		return "", "", err
	}
	if r.OrderID == 0 || r.LineID == 0 || r.Origin != core.OriginOwn {
		return "", "", core.ErrNotRevisable
	}
	o, err := tx.OrderByID(ctx, r.OrderID)
	if err != nil {
		return "", "", err
	}
	if o.Erased() {
		return "", "", core.ErrNotRevisable
	}
	expires := tx.Now.Add(CorrectionLinkLifetime)
	if rule, ok, err := c.Brand.RuleFor(ctx, tx.Q, o.Market, o.ChannelID, tx.Now); err != nil {
		return "", "", err
	} else if ok && rule.ReviewWindowDays > 0 {
		expires = tx.Now.AddDate(0, 0, rule.ReviewWindowDays)
	}
	plain, _, err := buyer.IssueToken(ctx, tx, buyer.TokenCorrection, o, []int64{r.LineID}, expires, r.ID)
	if err != nil {
		return "", "", err
	}
	ch, err := tx.ChannelByID(ctx, o.ChannelID)
	if err != nil {
		return "", "", err
	}
	base := ch.LandingURL
	if base == "" {
		base = strings.TrimRight(c.PublicURL, "/") + "/"
	}
	base, _, _ = strings.Cut(base, "#")
	token = c.Buyer.TagToken(plain)
	return base + "#review_token=" + token, token, nil
}

// NotifyRejection follows a moderator's rejection of a review, in tx: it issues the
// correction link and queues the rejection notice (spec 1: template_key
// rejection:<reason>, the reason text unchanged, the correction link; by the
// brand's route, e-mail or notice). It returns the notice id, 0 when the customer
// cannot be reached (imported review, erased order, no address). Send it without
// delay with c.Sending.DeliverNow(ctx, id) after the transaction commits.
func (c *Service) NotifyRejection(ctx context.Context, tx *store.Tx, reviewID int64, reason, reasonText string) (int64, error) {
	r, err := tx.ReviewByID(ctx, reviewID)
	if err != nil {
		return 0, err
	}
	if r.OrderID == 0 || r.Origin != core.OriginOwn {
		return 0, nil
	}
	o, err := tx.OrderByID(ctx, r.OrderID)
	if err != nil {
		return 0, err
	}
	if o.Erased() || !core.ValidEmail(o.CustomerEmail) {
		return 0, nil
	}
	link, token, err := c.issueCorrection(ctx, tx, reviewID)
	if err != nil {
		return 0, err
	}
	return c.Sending.QueueRejectionNotice(ctx, tx, sending.RejectionNotice{ReviewID: r.ID, OrderID: o.ID, ChannelID: o.ChannelID,
		Address: o.CustomerEmail, Language: r.Language, Reason: reason, ReasonText: reasonText, CorrectionURL: link,
		Token: token, ProductName: r.ProductName})
}

// MarkReturned gives the product reviews of an order's line (lineID), or of every
// line of the order (lineID 0, a refunded or voided order), the Returned mark on
// their proof and reruns their automatic checks (spec 1, "States and transitions").
// Shopping-experience (process) reviews get no mark. Call it in the transaction that
// moved the order or line.
func (c *Service) MarkReturned(ctx context.Context, tx *store.Tx, a *core.Actor, orderID, lineID int64) error {
	rs, err := tx.ReviewsOfOrder(ctx, orderID)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Experience != core.ExperienceProduct || (lineID != 0 && r.LineID != lineID) {
			continue
		}
		marked, err := tx.MarkReviewReturned(ctx, r.ID, tx.Now)
		if err != nil {
			return err
		}
		if !marked {
			continue
		}
		if _, err := c.Checks.RunChecks(ctx, tx, r); err != nil {
			return err
		}
		if err := c.AddReviewEvent(ctx, tx, a, r.ID, eventReturned, r.State, r.State, "", nil); err != nil {
			return err
		}
		if err := c.afterReviewStateChange(ctx, tx, r.ID); err != nil {
			return err
		}
	}
	return nil
}

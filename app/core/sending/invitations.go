package sending

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/store"
)

// Message kinds (invitations.kind).
const (
	MsgInvitation = "invitation" // product review invitation, one per order
	MsgReminder   = "reminder"   // the invitation again, same token, "Reminder:" subject
	MsgExperience = "experience" // shopping-experience invitation for cancelled or returned lines
	MsgRejection  = "rejection"  // a moderator rejected the review
)

// Send states of a message. Spec 1 fixes only Failed; a message waits in queued,
// ends sent, failed, or skipped (last_error says why).
const (
	StateQueued  = "queued"
	StateSent    = "sent"
	StateFailed  = "failed"
	StateSkipped = "skipped"
)

// Reasons a message is skipped or waits (last_error).
const (
	SkipExpired       = "expired"          // the review link expired
	SkipOptedOut      = "opted_out"        // the address is on the opt-out list
	SkipNotReviewable = "not_reviewable"   // no line of the invitation is reviewable any more
	SkipReviewed      = "reviewed"         // a review was written already (reminders)
	SkipErased        = "recipient_erased" // the order's customer data is erased
	SkipNoAddress     = "address_missing"  // the order has no customer_email
	SkipNoPhone       = "phone_missing"    // WhatsApp route, no usable phone, no fallback to e-mail
	SkipStale         = "stale"            // due more than MaxInvitationLag ago (old or back-filled orders)
	SkipNoConsent     = "consent_missing"  // reminder_consent is required and none was given
	WaitWindow        = "send_window"      // outside the sending hours
	WaitDailyLimit    = "daily_limit"      // the customer's daily limit is reached
	WaitBurst         = "burst_limit"      // BurstLimit messages in the last BurstWindow
	WaitMailOff       = "mail_disabled"    // no SMTP host: e-mails wait
	ErrWebhookURL     = "webhook_url_required"
	ErrWebhookSecret  = "webhook_secret_missing"
	ErrRenderFailed   = "message_invalid"
	errUndecryptable  = "secret_undecryptable"
	templateDefault   = "default"
	RejectionTemplate = "rejection:"
)

// Sending limits (docs/decisions.md, "Invitations").
const (
	// BurstLimit messages per customer within BurstWindow at most, whatever the
	// daily limit.
	BurstLimit  = 3
	BurstWindow = time.Hour
	// MaxInvitationLag: an invitation due longer ago than this is not sent (orders
	// read back from a platform, long-stuck jobs).
	MaxInvitationLag = 30 * 24 * time.Hour
	// claimLease is how long an attempt holds a message before another runner may
	// take it again (a crash mid-send).
	claimLease = 15 * time.Minute
	// mailOffWait is how long e-mails wait when SMTP is off.
	mailOffWait = 15 * time.Minute
	// jobBatch is how many rows one query of the job reads; maxPerRun bounds the
	// sends of one run.
	JobBatch  = 200
	maxPerRun = 5000
)

// InvitationRun is what one run of the invitations job did.
type InvitationRun struct {
	Created   int // product and skipped invitation rows created
	Reminders int
	Sent      int
	Retry     int // temporary failures, retried later
	Failed    int
	Skipped   int
	Deferred  int // waiting for the window, the limits or SMTP
}

func (r InvitationRun) String() string {
	return fmt.Sprintf("created=%d reminders=%d sent=%d retry=%d failed=%d skipped=%d deferred=%d",
		r.Created, r.Reminders, r.Sent, r.Retry, r.Failed, r.Skipped, r.Deferred)
}

// RunInvitations is the invitations job at now: it creates the product
// invitations that are due (invite_delay_days after delivery), the reminders that
// are due (reminder_after_days after the invitation was sent), and sends every
// queued message whose attempt is due (first sends and retries) by the brand's
// route. Every message is claimed atomically, so two runners never send one twice.
func (c *Service) RunInvitations(ctx context.Context, now time.Time) (InvitationRun, error) {
	var run InvitationRun
	st, err := c.Brand.LoadSettings(ctx, c.DB.Read())
	if err != nil {
		return run, err
	}
	if err := c.createDueInvitations(ctx, now, st, &run); err != nil {
		return run, err
	}
	if err := c.createDueReminders(ctx, now, st, &run); err != nil {
		return run, err
	}
	return run, c.sendDue(ctx, now, st, &run)
}

// customerRef is the key of the daily limit and burst check: the customer_key,
// else the lower-cased address, as a keyed hash.
func (c *Service) customerRef(o store.Order) string {
	if o.CustomerKey != "" {
		return "k:" + c.Keys.Pseudonym("customer_key", o.CustomerKey)
	}
	return "e:" + c.Keys.Pseudonym("customer_email", strings.ToLower(o.CustomerEmail))
}

// orderHasReview reports whether a review (of any state) was written for any of
// the given lines of an order. It decides reminders (none after a review) and the
// "not yet reviewed" rule of experience invitations.
func (c *Service) orderHasReview(ctx context.Context, q *store.Q, orderID int64, lineIDs []int64) (bool, error) {
	reviewed, err := q.ReviewedLines(ctx, orderID)
	if err != nil {
		return false, err
	}
	for _, id := range lineIDs {
		if reviewed[id] {
			return true, nil
		}
	}
	return false, nil
}

// reviewedInvitations counts the sent product invitations of a channel (0 = all)
// with at least one of their products reviewed (counters.conversion).
func (c *Service) reviewedInvitations(ctx context.Context, q *store.Q, channelID int64) (int, error) {
	return q.CountReviewedInvitations(ctx, channelID)
}

// createDueInvitations creates one invitation for every order that became due.
func (c *Service) createDueInvitations(ctx context.Context, now time.Time, st brand.Settings, run *InvitationRun) error {
	deliveredBefore := now.AddDate(0, 0, -st.InviteDelayDays)
	// Deliveries whose invitation was due longer ago than MaxInvitationLag are not
	// looked at: they are never invited (orders read back from a platform).
	deliveredAfter := deliveredBefore.Add(-MaxInvitationLag)
	var after int64
	for {
		ids, err := c.DB.Read().OrdersAwaitingInvitation(ctx, deliveredAfter, deliveredBefore, after, JobBatch,
			c.phoneInvites(st))
		if err != nil {
			return err
		}
		for _, id := range ids {
			after = id
			err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
				tx.Now = now
				created, err := c.createInvitation(ctx, tx, id, now, st)
				if created {
					run.Created++
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		if len(ids) < JobBatch {
			return nil
		}
	}
}

// createInvitation creates the product invitation of one order when it is due:
// one invitation for all its reviewable lines (LineReviewable decides), due
// invite_delay_days after the earliest delivery among them. An order that is due
// but cannot be invited (no reviewable line, opted-out address, due too long ago)
// gets a skipped row, so it is decided once.
func (c *Service) createInvitation(ctx context.Context, tx *store.Tx, orderID int64, now time.Time, st brand.Settings) (bool, error) {
	o, err := tx.OrderByID(ctx, orderID)
	if err != nil {
		return false, err
	}
	if o.Erased() || !core.PaymentAllowsReviews(o.PaymentState) {
		return false, nil
	}
	route, ref, skipReason := brand.RouteEmail, c.customerRef(o), ""
	if st.InviteDelivery == brand.RouteWhatsApp {
		if route, skipReason, err = c.whatsAppRoute(ctx, tx.Q, o, st); err != nil {
			return false, err
		}
		if route == brand.RouteWhatsApp && o.CustomerKey == "" {
			ref = phoneRef(c.Keys, o.CustomerPhone)
		}
	}
	if route != brand.RouteWhatsApp && skipReason == "" && o.CustomerEmail == "" {
		return false, nil
	}
	lines, err := tx.LinesOfOrder(ctx, o.ID)
	if err != nil {
		return false, err
	}
	revs, err := c.Buyer.OrderReviewability(ctx, tx.Q, o, lines, now)
	if err != nil {
		return false, err
	}
	var ids []int64
	var expires, due time.Time
	for i, r := range revs {
		if !r.Reviewable {
			continue
		}
		ids = append(ids, lines[i].ID)
		if r.WindowEnds.After(expires) {
			expires = r.WindowEnds
		}
		if d := r.DeliveredAt.AddDate(0, 0, st.InviteDelayDays); due.IsZero() || d.Before(due) {
			due = d
		}
	}
	inv := store.Invitation{Kind: MsgInvitation, OrderID: o.ID, ChannelID: o.ChannelID, Address: o.CustomerEmail,
		CustomerRef: ref, Language: o.Language, TemplateKey: templateDefault, State: StateQueued, NextAttemptAt: now}
	optedOut := false
	if route == brand.RouteWhatsApp {
		inv.Address = o.CustomerPhone // whatsAppRoute checked its opt-out
	} else if skipReason == "" {
		if optedOut, err = tx.OptedOut(ctx, o.CustomerEmail); err != nil {
			return false, err
		}
	}
	switch {
	case len(ids) == 0:
		inv.State, inv.LastError, inv.NextAttemptAt = StateSkipped, SkipNotReviewable, time.Time{}
	case due.After(now):
		return false, nil // an earlier delivered line is not reviewable; wait for this one
	case now.Sub(due) > MaxInvitationLag:
		inv.State, inv.LastError, inv.NextAttemptAt = StateSkipped, SkipStale, time.Time{}
	case optedOut:
		inv.State, inv.LastError, inv.NextAttemptAt = StateSkipped, SkipOptedOut, time.Time{}
	case skipReason != "":
		inv.State, inv.LastError, inv.NextAttemptAt = StateSkipped, skipReason, time.Time{}
	default:
		plain, tokenID, err := buyer.IssueToken(ctx, tx, buyer.TokenInvitation, o, ids, expires, 0)
		if err != nil {
			return false, err
		}
		inv.TokenID, inv.TokenEnc, inv.ExpiresAt = tokenID, c.Keys.Encrypt([]byte(plain)), expires
	}
	_, created, err := tx.CreateInvitation(ctx, inv)
	return created, err
}

// createDueReminders creates the reminder of every sent invitation whose
// reminder_after_days have passed. None are made with reminder_after_days 0 or
// when reminder_consent is required (v1 receives no consent with the order).
func (c *Service) createDueReminders(ctx context.Context, now time.Time, st brand.Settings, run *InvitationRun) error {
	if st.ReminderAfterDays == 0 || st.ReminderConsent == "required" {
		return nil
	}
	sentBefore := now.AddDate(0, 0, -st.ReminderAfterDays)
	var after int64
	for {
		parents, err := c.DB.Read().InvitationsAwaitingReminder(ctx, sentBefore, now, after, JobBatch)
		if err != nil {
			return err
		}
		for _, p := range parents {
			after = p.ID
			err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
				tx.Now = now
				created, err := c.createReminder(ctx, tx, p, now)
				if created {
					run.Reminders++
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		if len(parents) < JobBatch {
			return nil
		}
	}
}

// createReminder creates the reminder of invitation p: the same token and lines,
// queued now. When a review was written meanwhile the reminder row is created
// skipped, so the invitation is decided once.
func (c *Service) createReminder(ctx context.Context, tx *store.Tx, p store.Invitation, now time.Time) (bool, error) {
	o, err := tx.OrderByID(ctx, p.OrderID)
	if err != nil {
		return false, err
	}
	tok, err := tx.TokenByID(ctx, p.TokenID)
	if err != nil {
		return false, err
	}
	lineIDs, err := tx.TokenLineIDs(ctx, p.TokenID)
	if err != nil {
		return false, err
	}
	reviewed, err := c.orderHasReview(ctx, tx.Q, o.ID, lineIDs)
	if err != nil {
		return false, err
	}
	r := store.Invitation{Kind: MsgReminder, OrderID: o.ID, ChannelID: p.ChannelID, ParentID: p.ID, TokenID: p.TokenID,
		TokenEnc: p.TokenEnc, Address: o.CustomerEmail, CustomerRef: p.CustomerRef, Language: p.Language,
		TemplateKey: templateDefault, State: StateQueued, NextAttemptAt: now, ExpiresAt: p.ExpiresAt}
	if o.Erased() {
		r.Address, r.CustomerRef = "", ""
	}
	if reviewed || !tok.SpentAt.IsZero() {
		r.State, r.LastError, r.NextAttemptAt = StateSkipped, SkipReviewed, time.Time{}
	}
	_, created, err := tx.CreateInvitation(ctx, r)
	return created, err
}

// queueExperienceInvitation runs when a line becomes cancelled or returned: a line
// not yet reviewed gets a shopping-experience invitation. There is one per order:
// lines that end while it still waits join its token. It waits invite_delay_days
// like a product invitation (so lines ending together share one e-mail); orders
// without an address, erased orders and orders placed longer ago than the market's
// review window get none.
func (c *Service) QueueExperienceInvitation(ctx context.Context, tx *store.Tx, o store.Order, l store.OrderLine) error {
	if o.Erased() || o.CustomerEmail == "" {
		return nil
	}
	now := tx.Now
	rule, ok, err := c.Brand.RuleFor(ctx, tx.Q, o.Market, o.ChannelID, now)
	if err != nil || !ok || rule.ReviewWindowDays <= 0 {
		return err
	}
	if now.After(o.PlacedAt.AddDate(0, 0, rule.ReviewWindowDays)) {
		return nil
	}
	reviewed, err := c.orderHasReview(ctx, tx.Q, o.ID, []int64{l.ID})
	if err != nil || reviewed {
		return err
	}
	existing, err := tx.InvitationOfOrder(ctx, o.ID, MsgExperience)
	switch {
	case err == nil:
		if existing.State == StateQueued && existing.Attempts == 0 && existing.TokenID != 0 {
			return tx.AddTokenLines(ctx, existing.TokenID, []int64{l.ID})
		}
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	st, err := c.Brand.LoadSettings(ctx, tx.Q)
	if err != nil {
		return err
	}
	expires := now.AddDate(0, 0, rule.ReviewWindowDays)
	plain, tokenID, err := buyer.IssueToken(ctx, tx, buyer.TokenExperience, o, []int64{l.ID}, expires, 0)
	if err != nil {
		return err
	}
	_, _, err = tx.CreateInvitation(ctx, store.Invitation{Kind: MsgExperience, OrderID: o.ID, ChannelID: o.ChannelID,
		TokenID: tokenID, TokenEnc: c.Keys.Encrypt([]byte(plain)), Address: o.CustomerEmail, CustomerRef: c.customerRef(o),
		Language: o.Language, TemplateKey: templateDefault, State: StateQueued,
		NextAttemptAt: now.AddDate(0, 0, st.InviteDelayDays), ExpiresAt: expires})
	return err
}

// RetryResult is the answer of POST /admin/v1/invites/retry.
type RetryResult struct {
	Queued  int `json:"queued"`
	Expired int `json:"expired"`
}

// MaxRetryIDs is the most ids one retry request may name.
const MaxRetryIDs = 500

// RetryInvitations queues failed messages again (the given ids, else every failed
// one, of a channel when channel is set; 400 invalid / channel when unknown): they keep their token and get a new
// event id on the next attempt. Those whose link has expired are skipped instead
// (state skipped, expired). Other states are left alone.
func (c *Service) RetryInvitations(ctx context.Context, a *core.Actor, ids []int64, channel string) (RetryResult, error) {
	var res RetryResult
	if len(ids) > MaxRetryIDs {
		return res, core.Invalid("ids")
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		only, err := core.ChannelFilter(ctx, tx.Q, channel, "")
		if err != nil {
			return err
		}
		failed, err := tx.FailedInvitations(ctx, ids, only.ID)
		if err != nil {
			return err
		}
		for _, inv := range failed {
			if !inv.ExpiresAt.IsZero() && !tx.Now.Before(inv.ExpiresAt) {
				inv.State, inv.LastError, inv.NextAttemptAt = StateSkipped, SkipExpired, time.Time{}
				res.Expired++
			} else {
				inv.State, inv.Attempts, inv.NextAttemptAt, inv.LastError = StateQueued, 0, tx.Now, ""
				res.Queued++
			}
			if err := tx.SaveInvitationState(ctx, inv); err != nil {
				return err
			}
		}
		if res.Queued+res.Expired == 0 {
			return nil
		}
		return c.Record(ctx, tx, a, "invites.retried", "invitation", "", map[string]any{"queued": res.Queued, "expired": res.Expired})
	})
	return res, err
}

// InvitationPublicID is the id of a message in answers ("inv_<n>").
func InvitationPublicID(id int64) string { return fmt.Sprintf("inv_%d", id) }

// ParseInvitationPublicID reads an id made by InvitationPublicID (a bare number
// too).
func ParseInvitationPublicID(s string) (int64, bool) {
	var n int64
	s = strings.TrimPrefix(s, "inv_")
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	return n, n > 0
}

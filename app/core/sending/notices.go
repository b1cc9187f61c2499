package sending

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/mail"
	"reviewd/app/mailevents"
	"reviewd/app/outbound"
	"reviewd/app/whatsapp"
	"reviewd/store"
)

// Outbound notice rules (spec 1, "Outbound invitation notice").
const (
	// NoticeTimeout is how long the receiver has to answer.
	NoticeTimeout = 10 * time.Second
	// noticeMaxBytes bounds the receiver's answer (its body is ignored).
	noticeMaxBytes = 64 << 10
	// MaxNoticeAttempts: the fifth failed attempt makes the message Failed.
	MaxNoticeAttempts = 5
	// NoticeUserAgent is the User-Agent of notices.
	NoticeUserAgent = "service-webhook"
)

// NoticeRetry is the wait after the 1st, 2nd, 3rd and 4th failed notice attempt.
var NoticeRetry = []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour}

// MailRetry is the wait after each temporary SMTP failure; the last value repeats.
// E-mails are never failed for a temporary failure: they wait until the link
// expires.
var MailRetry = []time.Duration{5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour}

// Send-log statuses.
const (
	LogSent   = "sent"
	LogRetry  = "retry"
	LogFailed = "failed"
)

// NoticeContext is the context object of a notice body.
type NoticeContext struct {
	LandingURL     string   `json:"landing_url,omitempty"`
	Channel        string   `json:"channel,omitempty"`
	Brand          string   `json:"brand,omitempty"`
	OrderReference string   `json:"order_reference,omitempty"`
	LineReferences []string `json:"line_references,omitempty"`
}

// Notice is the body of an outbound invitation notice.
type Notice struct {
	Address      string        `json:"address"`
	Subject      string        `json:"subject"`
	Text         string        `json:"text"`
	Token        string        `json:"token"`
	Language     string        `json:"language"`
	MessageClass string        `json:"message_class"`
	TemplateKey  string        `json:"template_key"`
	EventID      string        `json:"event_id"`
	Context      NoticeContext `json:"context"`
}

// sendJob is one prepared attempt: everything needed to send without the database.
type sendJob struct {
	inv       store.Invitation
	route     string
	address   string
	subject   string
	text      string
	html      string
	token     string
	eventID   string
	messageID string
	from      string
	fromName  string
	unsub     string
	webhook   string
	secret    []byte
	context   NoticeContext
	wa        whatsapp.Message
}

// sendResult is the outcome of one attempt.
type sendResult struct {
	ok        bool
	temporary bool
	reason    string // send-log error: http_status: 503, port_refused, smtp_status: 550, ...
	messageID string
	// retryAfter is the least wait before the next attempt (WhatsApp rate limits).
	retryAfter time.Duration
}

// sendDue sends every queued message whose attempt is due at now.
func (c *Service) sendDue(ctx context.Context, now time.Time, st brand.Settings, run *InvitationRun) error {
	done := 0
	for done < maxPerRun {
		ids, err := c.DB.Read().DueInvitations(ctx, now, JobBatch)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			done++
			outcome, err := c.attempt(ctx, id, now, st)
			if err != nil {
				return err
			}
			switch outcome {
			case LogSent:
				run.Sent++
			case LogRetry:
				run.Retry++
			case LogFailed:
				run.Failed++
			case StateSkipped:
				run.Skipped++
			case StateQueued:
				run.Deferred++
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// attempt claims one due message, decides whether it may go now, sends it outside
// any transaction and records the outcome. It returns sent, retry, failed, skipped,
// queued (deferred) or "" (taken by another runner).
func (c *Service) attempt(ctx context.Context, id int64, now time.Time, st brand.Settings) (string, error) {
	var job *sendJob
	outcome := ""
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		tx.Now = now
		ok, err := tx.ClaimInvitation(ctx, id, now, now.Add(claimLease))
		if err != nil || !ok {
			return err
		}
		inv, err := tx.InvitationByID(ctx, id)
		if err != nil {
			return err
		}
		job, outcome, err = c.prepareSend(ctx, tx, inv, now, st)
		return err
	})
	if err != nil || job == nil {
		return outcome, err
	}
	res := c.deliver(ctx, job)
	err = c.DB.WithTx(context.WithoutCancel(ctx), func(tx *store.Tx) error {
		tx.Now = now
		outcome, err = c.recordAttempt(ctx, tx, job, res, now)
		return err
	})
	return outcome, err
}

// skipMessage ends a message without sending it (skipped with a reason).
func skipMessage(ctx context.Context, tx *store.Tx, inv store.Invitation, reason string) (*sendJob, string, error) {
	inv.State, inv.LastError, inv.NextAttemptAt = StateSkipped, reason, time.Time{}
	return nil, StateSkipped, tx.SaveInvitationState(ctx, inv)
}

// deferMessage puts a message back in the queue until at (a minute at least), without an
// attempt.
func deferMessage(ctx context.Context, tx *store.Tx, inv store.Invitation, at time.Time, reason string) (*sendJob, string, error) {
	if at.Before(tx.Now.Add(time.Minute)) {
		at = tx.Now.Add(time.Minute)
	}
	inv.State, inv.LastError, inv.NextAttemptAt = StateQueued, reason, at
	return nil, StateQueued, tx.SaveInvitationState(ctx, inv)
}

// failMessage ends a message as failed without an attempt (the route is unusable).
func failMessage(ctx context.Context, tx *store.Tx, inv store.Invitation, route, reason string) (*sendJob, string, error) {
	inv.State, inv.LastError, inv.NextAttemptAt, inv.Route = StateFailed, reason, time.Time{}, route
	return nil, LogFailed, tx.SaveInvitationState(ctx, inv)
}

// prepareSend applies every rule that decides whether a message goes now (link
// still valid, lines still reviewable, no review yet, address not opted out,
// sending hours, daily limit, burst check, route available) and renders it.
func (c *Service) prepareSend(ctx context.Context, tx *store.Tx, inv store.Invitation, now time.Time, st brand.Settings) (*sendJob, string, error) {
	route := st.InviteDelivery
	if inv.Kind == MsgReminder {
		route = st.ReminderDelivery
	}
	ch, err := tx.ChannelByID(ctx, inv.ChannelID)
	if err != nil {
		return nil, "", err
	}
	job := &sendJob{inv: inv, route: route, eventID: newEventID(), fromName: core.BrandOf(ch)}
	if inv.Kind == MsgRejection {
		if route == brand.RouteWhatsApp {
			job.route = brand.RouteEmail // a rejection goes to the reviewer's address
		}
		return c.prepareRejection(ctx, tx, job, ch, st)
	}

	o, err := tx.OrderByID(ctx, inv.OrderID)
	if err != nil {
		return nil, "", err
	}
	if route == brand.RouteWhatsApp && !o.Erased() && !inv.RecipientErased {
		var skip string
		if route, skip, err = c.whatsAppRoute(ctx, tx.Q, o, st); err != nil {
			return nil, "", err
		} else if skip != "" {
			return skipMessage(ctx, tx, inv, skip)
		}
		job.route = route
	}
	recipient := o.CustomerEmail
	if route == brand.RouteWhatsApp {
		recipient = o.CustomerPhone
	}
	switch {
	case o.Erased() || inv.RecipientErased:
		return skipMessage(ctx, tx, inv, SkipErased)
	case recipient == "":
		return skipMessage(ctx, tx, inv, SkipNoAddress)
	case !inv.ExpiresAt.IsZero() && !now.Before(inv.ExpiresAt):
		return skipMessage(ctx, tx, inv, SkipExpired)
	case inv.Kind == MsgReminder && st.ReminderConsent == "required":
		return skipMessage(ctx, tx, inv, SkipNoConsent)
	}
	tok, err := tx.TokenByID(ctx, inv.TokenID)
	if err != nil {
		return nil, "", err
	}
	lines, err := tx.TokenLines(ctx, inv.TokenID)
	if err != nil {
		return nil, "", err
	}
	if inv.Kind != MsgExperience {
		lineIDs := make([]int64, len(lines))
		for i, l := range lines {
			lineIDs[i] = l.ID
		}
		reviewed, err := c.orderHasReview(ctx, tx.Q, o.ID, lineIDs)
		if err != nil {
			return nil, "", err
		}
		if reviewed || !tok.SpentAt.IsZero() {
			return skipMessage(ctx, tx, inv, SkipReviewed)
		}
		revs, err := c.Buyer.OrderReviewability(ctx, tx.Q, o, lines, now)
		if err != nil {
			return nil, "", err
		}
		var keep []store.OrderLine
		for i, r := range revs {
			if r.Reviewable {
				keep = append(keep, lines[i])
			}
		}
		if len(keep) == 0 {
			return skipMessage(ctx, tx, inv, SkipNotReviewable)
		}
		lines = keep
	} else if !tok.SpentAt.IsZero() {
		return skipMessage(ctx, tx, inv, SkipReviewed)
	}
	if out, err := tx.OptedOut(ctx, recipient); err != nil {
		return nil, "", err
	} else if out {
		return skipMessage(ctx, tx, inv, SkipOptedOut)
	}

	// Timing: sending hours, then (for a first attempt) the daily limit and the
	// burst check of the customer.
	loc, win := st.Location(), st.Window()
	local := now.In(loc)
	if !win.Contains(local) {
		return deferMessage(ctx, tx, inv, win.Next(local).UTC(), WaitWindow)
	}
	if inv.ReleasedAt.IsZero() {
		y, m, d := local.Date()
		dayStart := time.Date(y, m, d, 0, 0, 0, 0, loc)
		dayEnd := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
		n, err := tx.CountReleased(ctx, inv.CustomerRef, dayStart, dayEnd, inv.ID)
		if err != nil {
			return nil, "", err
		}
		if n >= st.DailyLimit {
			return deferMessage(ctx, tx, inv, win.Next(dayEnd).UTC(), WaitDailyLimit)
		}
		recent, err := tx.ReleasedSince(ctx, inv.CustomerRef, now.Add(-BurstWindow), inv.ID)
		if err != nil {
			return nil, "", err
		}
		if len(recent) >= BurstLimit {
			free := recent[len(recent)-BurstLimit].Add(BurstWindow)
			return deferMessage(ctx, tx, inv, win.Next(free.In(loc)).UTC(), WaitBurst)
		}
	}
	if route == brand.RouteEmail && !c.Mailer.Enabled() {
		return deferMessage(ctx, tx, inv, now.Add(mailOffWait), WaitMailOff)
	}

	plain, err := c.Keys.Decrypt(inv.TokenEnc)
	if err != nil {
		return failMessage(ctx, tx, inv, route, errUndecryptable)
	}
	job.token = c.Buyer.TagToken(string(plain))
	job.address = recipient
	landing := landingURL(ch, c.PublicURL)
	reviewURL := landing + "#review_token=" + job.token
	job.unsub = c.UnsubscribeURL(route, o.Language, o.CustomerEmail)
	job.context = NoticeContext{LandingURL: landing, Channel: ch.Code, Brand: job.fromName, OrderReference: o.ExternalID}
	var products []string
	for _, l := range lines {
		job.context.LineReferences = append(job.context.LineReferences, l.LineReference)
		name := l.Title
		if name == "" {
			name = l.VariantKey
		}
		products = append(products, name)
	}
	tpl, incentive, err := brandTemplate(ctx, tx.Q, inv.Kind, o.Language, ch)
	if err != nil {
		return nil, "", err
	}
	if incentive {
		// Marked when the e-mail is made: a review written with its token is
		// incentivised even when the template changes later.
		if err := tx.MarkInvitationIncentive(ctx, inv.ID); err != nil {
			return nil, "", err
		}
	}
	job.subject, job.text, job.html, err = renderMessage(tpl, inv.Kind, o.Language, mail.TemplateData{Brand: job.fromName,
		Products: products, ReviewURL: reviewURL, UnsubscribeURL: job.unsub})
	if err != nil {
		return failMessage(ctx, tx, inv, route, ErrRenderFailed)
	}
	if route == brand.RouteWhatsApp {
		job.wa = c.whatsAppMessage(inv.Kind, o, job.fromName, products, reviewURL)
		job.subject = job.wa.Template
	}
	if err := c.routeReady(ctx, tx, job, st, ch); err != nil {
		return failMessage(ctx, tx, inv, route, err.Error())
	}
	if inv.ReleasedAt.IsZero() {
		inv.ReleasedAt = now
	}
	inv.Address = recipient
	job.inv = inv
	return job, "", tx.SaveInvitationState(ctx, inv)
}

// routeError is a route that cannot be used (the message fails without an attempt).
type routeError string

func (e routeError) Error() string { return string(e) }

// routeReady fills the route details of job: the sender and Message-ID of an
// e-mail, or the address and password of a notice.
func (c *Service) routeReady(ctx context.Context, tx *store.Tx, job *sendJob, st brand.Settings, ch store.Channel) error {
	if job.route == brand.RouteWhatsApp {
		return nil
	}
	if job.route == brand.RouteEmail {
		job.from = ch.SenderAddress
		if job.from == "" {
			job.from = st.SenderAddress
		}
		job.messageID = mail.NewMessageID(MessageIDDomain(job.from, c.PublicURL))
		return nil
	}
	if st.WebhookURL == "" {
		return routeError(ErrWebhookURL)
	}
	p, err := tx.ActivePassword(ctx, core.PurposeNotification)
	if errors.Is(err, store.ErrNotFound) {
		return routeError(ErrWebhookSecret)
	} else if err != nil {
		return err
	}
	secret, err := c.Keys.Decrypt(p.SecretEnc)
	if err != nil {
		return routeError(errUndecryptable)
	}
	job.webhook, job.secret = st.WebhookURL, secret
	return nil
}

// messageIDDomain is the domain of our Message-IDs: the sender's, else the public
// address's host.
func MessageIDDomain(from, publicURL string) string {
	if from != "" {
		return from
	}
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		return "reviewd@" + u.Hostname()
	}
	return ""
}

// landingURL is the page review links open: the channel's landing address without
// a fragment, else the public address.
func landingURL(ch store.Channel, publicURL string) string {
	u := ch.LandingURL
	if u == "" {
		u = publicURL + "/"
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u
}

func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "evt_" + hex.EncodeToString(b[:])
}

// deliver sends one prepared attempt by its route.
func (c *Service) deliver(ctx context.Context, job *sendJob) sendResult {
	if job.route == brand.RouteWhatsApp {
		return c.sendWhatsApp(ctx, job)
	}
	if job.route == brand.RouteEmail {
		id, err := c.Mailer.Send(ctx, mail.Message{From: job.from, FromName: job.fromName, To: job.address,
			Subject: job.subject, Text: job.text, HTML: job.html, ListUnsubscribeURL: job.unsub, MessageID: job.messageID,
			Headers: mailevents.SendIDHeaders(job.eventID)})
		if err == nil {
			return sendResult{ok: true, messageID: id}
		}
		var se *mail.SendError
		if errors.As(err, &se) {
			return sendResult{temporary: se.Temporary, reason: se.Reason, messageID: job.messageID}
		}
		return sendResult{temporary: true, reason: "unexpected", messageID: job.messageID}
	}
	return c.postNotice(ctx, job)
}

// NoticeTimestamp formats the X-Service-Timestamp of a notice (ISO 8601 with
// offset).
func NoticeTimestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000-07:00") }

// postNotice sends the signed notice of job.
func (c *Service) postNotice(ctx context.Context, job *sendJob) sendResult {
	n := Notice{Address: job.address, Subject: job.subject, Text: job.text, Token: job.token, Language: job.inv.Language,
		MessageClass: "transactional", TemplateKey: job.inv.TemplateKey, EventID: job.eventID, Context: job.context}
	body, err := json.Marshal(n)
	if err != nil {
		return sendResult{reason: ErrRenderFailed}
	}
	ts := NoticeTimestamp(c.Now())
	if c.Outbound == nil {
		return sendResult{temporary: true, reason: outbound.CodeConnectionFailed}
	}
	resp, err := c.Outbound.Do(ctx, outbound.Notice{URL: job.webhook, UserAgent: NoticeUserAgent, Timestamp: ts,
		EventID: job.eventID, Signature: core.Sign(job.secret, ts, body), Body: body,
		Timeout: NoticeTimeout, MaxBytes: noticeMaxBytes}.Request())
	if err != nil {
		switch code := outbound.Code(err); code {
		case outbound.CodePortRefused, outbound.CodeSchemeRefused, outbound.CodeURLInvalid, outbound.CodeAddressRefused,
			outbound.CodeRedirectRefused:
			return sendResult{reason: code} // the address breaks the rules: Failed at once
		default:
			return sendResult{temporary: true, reason: code}
		}
	}
	switch s := resp.Status; {
	case s >= 200 && s < 300:
		return sendResult{ok: true}
	case outbound.Retryable(s):
		return sendResult{temporary: true, reason: "http_status: " + strconv.Itoa(s)}
	default:
		return sendResult{reason: "http_status: " + strconv.Itoa(s)}
	}
}

// recordAttempt writes the message-log row of an attempt and the message's new
// state. A message whose order was erased meanwhile is logged without recipient.
func (c *Service) recordAttempt(ctx context.Context, tx *store.Tx, job *sendJob, res sendResult, now time.Time) (string, error) {
	inv, err := tx.InvitationByID(ctx, job.inv.ID)
	if err != nil {
		return "", err
	}
	inv.Attempts++
	inv.Route = job.route
	log := store.SendLog{InvitationID: inv.ID, ChannelKind: job.route, Recipient: job.address, Subject: job.subject,
		EventID: job.eventID, Attempt: inv.Attempts, Error: res.reason}
	if job.route == brand.RouteEmail || job.route == brand.RouteWhatsApp {
		log.MessageID = res.messageID
	}
	if inv.RecipientErased {
		log.Recipient, log.RecipientErased, inv.Address = "", true, ""
	}
	switch {
	case res.ok:
		inv.State, inv.SentAt, inv.NextAttemptAt, inv.LastError = StateSent, now, time.Time{}, ""
		log.Status = LogSent
	case res.temporary && (job.route == brand.RouteEmail || job.route == brand.RouteWhatsApp):
		inv.State, inv.LastError = StateQueued, res.reason
		inv.NextAttemptAt = now.Add(max(MailRetry[min(inv.Attempts, len(MailRetry))-1], res.retryAfter))
		log.Status = LogRetry
	case res.temporary && inv.Attempts < MaxNoticeAttempts:
		inv.State, inv.LastError = StateQueued, res.reason
		inv.NextAttemptAt = now.Add(NoticeRetry[inv.Attempts-1])
		log.Status = LogRetry
	default:
		inv.State, inv.LastError, inv.NextAttemptAt = StateFailed, res.reason, time.Time{}
		log.Status = LogFailed
	}
	if _, err := tx.AddSendLog(ctx, log); err != nil {
		return "", err
	}
	return log.Status, tx.SaveInvitationState(ctx, inv)
}

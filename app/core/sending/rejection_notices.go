package sending

import (
	"context"
	"encoding/json"
	"fmt"
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/mail"
	"reviewd/store"
	"strings"
)

// RejectionNotice is what a rejection notice says and to whom.
type RejectionNotice struct {
	ReviewID  int64
	OrderID   int64 // the review's order, 0 when none
	ChannelID int64
	Address   string
	Language  string // tr or en
	// Reason is the rejection reason code (template_key rejection:<reason>) and
	// ReasonText what the customer reads (the moderator's words; not changed).
	Reason        string
	ReasonText    string
	CorrectionURL string
	Token         string // the correction token of CorrectionURL, if any
	ProductName   string
}

type rejectionPayload struct {
	ReasonText    string `json:"reason_text"`
	CorrectionURL string `json:"correction_url"`
	Token         string `json:"token"`
	ProductName   string `json:"product_name"`
}

// QueueRejectionNotice stores a rejection notice in tx, due at once, and returns
// its id. Callers that want it sent without delay call DeliverNow after their
// transaction commits (SendRejectionNotice does both); otherwise the invitations
// job sends it within a minute. Rejection notices ignore the sending hours and the
// daily limit, follow the invitation route (e-mail or notice with template_key
// rejection:<reason> and an empty context), retry on the notice schedule and are
// not sent to opted-out addresses.
func (c *Service) QueueRejectionNotice(ctx context.Context, tx *store.Tx, n RejectionNotice) (int64, error) {
	if n.Language != "tr" && n.Language != "en" {
		n.Language = "en"
	}
	if strings.TrimSpace(n.Reason) == "" || strings.ContainsAny(n.Reason, " \r\n") || !core.ValidEmail(n.Address) {
		return 0, fmt.Errorf("core: rejection notice: reason or address invalid")
	}
	payload, err := json.Marshal(rejectionPayload{ReasonText: n.ReasonText, CorrectionURL: n.CorrectionURL, Token: n.Token,
		ProductName: n.ProductName})
	if err != nil {
		return 0, err
	}
	inv, _, err := tx.CreateInvitation(ctx, store.Invitation{Kind: MsgRejection, OrderID: n.OrderID, ChannelID: n.ChannelID,
		ReviewID: n.ReviewID, PayloadEnc: c.Keys.Encrypt(payload), Address: n.Address, Language: n.Language,
		TemplateKey: RejectionTemplate + n.Reason, State: StateQueued, NextAttemptAt: tx.Now})
	return inv.ID, err
}

// SendRejectionNotice queues a rejection notice and attempts it at once.
func (c *Service) SendRejectionNotice(ctx context.Context, n RejectionNotice) (int64, error) {
	var id int64
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		id, err = c.QueueRejectionNotice(ctx, tx, n)
		return err
	})
	if err != nil {
		return 0, err
	}
	return id, c.DeliverNow(ctx, id)
}

// DeliverNow attempts one queued message now (used for notices that go without
// delay); a failure is retried by the invitations job on the usual schedule.
func (c *Service) DeliverNow(ctx context.Context, id int64) error {
	st, err := c.Brand.LoadSettings(ctx, c.DB.Read())
	if err != nil {
		return err
	}
	_, err = c.attempt(ctx, id, c.Now(), st)
	return err
}

// prepareRejection renders a rejection notice.
func (c *Service) prepareRejection(ctx context.Context, tx *store.Tx, job *sendJob, ch store.Channel, st brand.Settings) (*sendJob, string, error) {
	inv := job.inv
	if inv.RecipientErased || inv.Address == "" {
		return skipMessage(ctx, tx, inv, SkipErased)
	}
	if out, err := tx.OptedOut(ctx, inv.Address); err != nil {
		return nil, "", err
	} else if out {
		return skipMessage(ctx, tx, inv, SkipOptedOut)
	}
	if job.route == brand.RouteEmail && !c.Mailer.Enabled() {
		return deferMessage(ctx, tx, inv, tx.Now.Add(mailOffWait), WaitMailOff)
	}
	raw, err := c.Keys.Decrypt(inv.PayloadEnc)
	if err != nil {
		return failMessage(ctx, tx, inv, job.route, errUndecryptable)
	}
	var p rejectionPayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return failMessage(ctx, tx, inv, job.route, ErrRenderFailed)
	}
	job.address, job.token = inv.Address, p.Token
	job.unsub = c.UnsubscribeURL(job.route, inv.Language, inv.Address)
	reason := p.ReasonText
	if reason == "" {
		reason = strings.TrimPrefix(inv.TemplateKey, RejectionTemplate)
	}
	job.subject, job.text, job.html, err = mail.Render(mail.KindRejection, inv.Language, mail.TemplateData{Brand: job.fromName,
		Reason: reason, CorrectionURL: p.CorrectionURL, ProductName: p.ProductName, UnsubscribeURL: job.unsub})
	if err != nil {
		return failMessage(ctx, tx, inv, job.route, ErrRenderFailed)
	}
	if err := c.routeReady(ctx, tx, job, st, ch); err != nil {
		return failMessage(ctx, tx, inv, job.route, err.Error())
	}
	if inv.ReleasedAt.IsZero() {
		inv.ReleasedAt = tx.Now
	}
	job.inv = inv
	return job, "", tx.SaveInvitationState(ctx, inv)
}

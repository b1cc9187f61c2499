package qa

import (
	"context"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/store"
)

// answerMail is one prepared answer e-mail, sent after its transaction commits.
type answerMail struct {
	answerID int64
	msg      mail.Message
}

// answerAddressHash is the keyed hash of an asker address the cap counts by.
func (c *Service) answerAddressHash(address string) string {
	return c.Keys.Pseudonym("answer_email", strings.ToLower(strings.TrimSpace(address)))
}

// prepareAnswerMail decides, in the transaction that published answer ans, whether
// the asker of question x gets the answer e-mail: only once per answer, only with
// an address, never to an address on the opt-out list, at most AnswerEmailCap per
// address in AnswerEmailWindow, and only while e-mail sending is on. The outcome is
// recorded on the answer; the returned message (nil when none) is sent by
// sendAnswerMail after the commit.
func (c *Service) prepareAnswerMail(ctx context.Context, tx *store.Tx, x store.Question, ans store.Answer, st brand.Settings) (*answerMail, error) {
	if ans.Notice != "" {
		return nil, nil
	}
	skip := func(notice string) (*answerMail, error) { return nil, tx.SetAnswerNotice(ctx, ans.ID, notice) }
	if x.AskerEmail == "" || !x.AnonymizedAt.IsZero() {
		return skip(NoticeNoAddress)
	}
	if out, err := tx.OptedOut(ctx, x.AskerEmail); err != nil {
		return nil, err
	} else if out {
		return skip(NoticeOptedOut)
	}
	hash := c.answerAddressHash(x.AskerEmail)
	n, err := tx.CountAnswerEmails(ctx, hash, tx.Now.Add(-AnswerEmailWindow))
	if err != nil {
		return nil, err
	}
	if n >= AnswerEmailCap {
		return skip(NoticeDailyLimit)
	}
	if !c.Mailer.Enabled() {
		return skip(NoticeMailOff)
	}
	ch, err := tx.ChannelByID(ctx, x.ChannelID)
	if err != nil {
		return nil, err
	}
	brandName := core.BrandOf(ch)
	unsub := c.Sending.UnsubscribeURL(brand.RouteEmail, x.Language, x.AskerEmail)
	subject, text, html, err := mail.Render(mail.KindAnswer, x.Language, mail.TemplateData{Brand: brandName,
		CustomerName: x.AskerName, QuestionText: x.Body, AnswerText: ans.Body, UnsubscribeURL: unsub})
	if err != nil {
		return skip(sending.OutcomeFailedStart + sending.ErrRenderFailed)
	}
	from := ch.SenderAddress
	if from == "" {
		from = st.SenderAddress
	}
	if err := tx.AddAnswerEmail(ctx, hash, ans.ID); err != nil {
		return nil, err
	}
	if err := tx.SetAnswerNotice(ctx, ans.ID, NoticeSending); err != nil {
		return nil, err
	}
	return &answerMail{answerID: ans.ID, msg: mail.Message{From: from, FromName: brandName, To: x.AskerEmail, Subject: subject,
		Text: text, HTML: html, ListUnsubscribeURL: unsub, MessageID: mail.NewMessageID(sending.MessageIDDomain(from, c.PublicURL))}}, nil
}

// publishedAnswerMail prepares, in the transaction that published answer ans, the
// answer e-mail under the current settings (see prepareAnswerMail).
func (c *Service) publishedAnswerMail(ctx context.Context, tx *store.Tx, x store.Question, ans store.Answer) (*answerMail, error) {
	st, err := c.Brand.LoadSettings(ctx, tx.Q)
	if err != nil {
		return nil, err
	}
	return c.prepareAnswerMail(ctx, tx, x, ans, st)
}

// deliverAnswerMail sends a prepared answer e-mail (if any) after the commit and
// copies the notice it recorded on answer publicID onto out.
func (c *Service) deliverAnswerMail(ctx context.Context, job *answerMail, publicID string, out *AnswerItem) {
	if job == nil {
		return
	}
	c.sendAnswerMail(ctx, job)
	if ans, err := c.DB.Read().AnswerByPublicID(ctx, publicID); err == nil {
		out.Notice, out.NoticeAt = ans.Notice, core.OptTime(ans.NoticeAt)
	}
}

// sendAnswerMail sends a prepared answer e-mail once and records sent or failed:
// <reason> on the answer. A failed answer e-mail is not retried.
func (c *Service) sendAnswerMail(ctx context.Context, m *answerMail) {
	if m == nil {
		return
	}
	c.Sending.SendOnce(ctx, m.msg, "answer", func(tx *store.Tx, notice string) error {
		return tx.SetAnswerNotice(ctx, m.answerID, notice)
	}, "answer", m.answerID)
}

// Admin ------------------------------------------------------------------------

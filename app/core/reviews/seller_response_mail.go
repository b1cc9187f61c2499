package reviews

import (
	"context"
	"errors"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/store"
)

// Outcomes of the reviewer's e-mail about a seller response (seller_responses.notice),
// besides sending.SendOnce's sent and failed: <reason>.
const (
	ResponseNoticeNoAddress = "no_address"    // imported review, no order, erased order or no address
	ResponseNoticeOptedOut  = "opted_out"     // the address is on the opt-out list
	ResponseNoticeMailOff   = "mail_disabled" // no SMTP host
)

// responseMail is one prepared e-mail about a seller response, sent after its
// transaction commits.
type responseMail struct {
	reviewID int64
	msg      mail.Message
}

// prepareResponseMail decides, in the transaction that published the seller
// response of review r, whether its author gets an e-mail about it: only own
// reviews written through an order with an address, never to an address on the
// opt-out list, only while e-mail sending is on, in the review's language, with the
// same stop link as every e-mail of reviewd. The outcome is recorded on the
// response; the returned message (nil when none) is sent by sendResponseMail.
func (c *Service) prepareResponseMail(ctx context.Context, tx *store.Tx, r store.Review, body string) (*responseMail, error) {
	skip := func(notice string) (*responseMail, error) {
		return nil, tx.SetSellerResponseNotice(ctx, r.ID, notice)
	}
	if r.Origin != core.OriginOwn || r.OrderID == 0 || !r.AnonymizedAt.IsZero() {
		return skip(ResponseNoticeNoAddress)
	}
	o, err := tx.OrderByID(ctx, r.OrderID)
	if err != nil {
		return nil, err
	}
	if o.Erased() || !core.ValidEmail(o.CustomerEmail) {
		return skip(ResponseNoticeNoAddress)
	}
	if out, err := tx.OptedOut(ctx, o.CustomerEmail); err != nil {
		return nil, err
	} else if out {
		return skip(ResponseNoticeOptedOut)
	}
	if !c.Sending.Mailer.Enabled() {
		return skip(ResponseNoticeMailOff)
	}
	ch, err := tx.ChannelByID(ctx, r.ChannelID)
	if err != nil {
		return nil, err
	}
	st, err := c.Brand.LoadSettings(ctx, tx.Q)
	if err != nil {
		return nil, err
	}
	lang := r.Language
	if lang != "tr" && lang != "en" {
		lang = core.Language("", ch)
	}
	brandName := core.BrandOf(ch)
	data := mail.TemplateData{Brand: brandName, ProductName: r.ProductName, ReviewTitle: r.Title, ResponseText: body,
		UnsubscribeURL: c.Sending.UnsubscribeURL(brand.RouteEmail, lang, o.CustomerEmail)}
	if !r.HideName {
		data.CustomerName = r.AuthorName
	}
	if p, err := tx.ProductByVariant(ctx, r.VariantKey); err == nil {
		data.ProductURL = p.URL
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	subject, text, html, err := mail.Render(mail.KindSellerResponse, lang, data)
	if err != nil {
		return skip(sending.OutcomeFailedStart + sending.ErrRenderFailed)
	}
	return &responseMail{reviewID: r.ID,
		msg: c.customerMessage(ch.SenderAddress, st.SenderAddress, brandName, o.CustomerEmail, subject, text, html, data.UnsubscribeURL)}, nil
}

// customerMessage is an e-mail of the brand to a customer: from the channel's
// sender address, else the brand's, under the brand's name, with the stop link
// and a Message-ID of reviewd's.
func (c *Service) customerMessage(channelFrom, brandFrom, brandName, to, subject, text, html, unsubscribe string) mail.Message {
	from := channelFrom
	if from == "" {
		from = brandFrom
	}
	return mail.Message{From: from, FromName: brandName, To: to, Subject: subject, Text: text, HTML: html,
		ListUnsubscribeURL: unsubscribe, MessageID: mail.NewMessageID(sending.MessageIDDomain(from, c.PublicURL))}
}

// sendResponseMail sends a prepared e-mail once and records sent or failed:
// <reason> on the response (a failed e-mail is not retried; the reply stays
// published). It returns the notice.
func (c *Service) sendResponseMail(ctx context.Context, m *responseMail) string {
	return c.Sending.SendOnce(ctx, m.msg, "seller response", func(tx *store.Tx, notice string) error {
		return tx.SetSellerResponseNotice(ctx, m.reviewID, notice)
	}, "review", m.reviewID)
}

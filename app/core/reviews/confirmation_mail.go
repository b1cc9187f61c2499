package reviews

import (
	"context"
	"net/url"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/store"
)

// Outcomes of the confirmation e-mail (review_confirmations.outcome), besides
// sending.SendOnce's sent and failed: <reason>.
const (
	ConfirmationOptedOut = "opted_out"     // the address is on the opt-out list
	ConfirmationMailOff  = "mail_disabled" // no SMTP host
)

// confirmationMail is one prepared confirmation e-mail, sent after the
// transaction that wrote the reviews commits.
type confirmationMail struct {
	orderID int64
	reviews int
	msg     mail.Message
}

// ReceiptURL is the address of a review's human-readable transparency receipt in
// lang: the receipt route, which answers HTML to a browser.
func ReceiptURL(publicURL, reviewID, token, lang string) string {
	return publicURL + "/v1/transparency/receipt/" + reviewID + "?token=" + url.QueryEscape(token) + "&lang=" + lang
}

// prepareConfirmation decides, in the transaction that wrote the reviews of order
// o, whether the writer gets a confirmation e-mail: one per call, to the order's
// address, in the order's language, from the channel's sender and brand, saying
// whether each review is live or being checked, with its receipt link. Like every
// e-mail of reviewd it is never sent to an address on the opt-out list and not
// while sending is off; those outcomes are recorded at once. The returned message
// (nil when none) is sent by sendConfirmation.
func (c *Service) prepareConfirmation(ctx context.Context, tx *store.Tx, o store.Order, written []WrittenReview, products []string) (*confirmationMail, error) {
	if o.Erased() || !core.ValidEmail(o.CustomerEmail) || len(written) == 0 {
		return nil, nil
	}
	skip := func(outcome string) (*confirmationMail, error) {
		return nil, tx.AddReviewConfirmation(ctx, store.ReviewConfirmation{OrderID: o.ID, Reviews: len(written), Outcome: outcome})
	}
	if out, err := tx.OptedOut(ctx, o.CustomerEmail); err != nil {
		return nil, err
	} else if out {
		return skip(ConfirmationOptedOut)
	}
	if !c.Sending.Mailer.Enabled() {
		return skip(ConfirmationMailOff)
	}
	ch, err := tx.ChannelByID(ctx, o.ChannelID)
	if err != nil {
		return nil, err
	}
	st, err := c.Brand.LoadSettings(ctx, tx.Q)
	if err != nil {
		return nil, err
	}
	lang := core.Language(o.Language, ch)
	brandName := core.BrandOf(ch)
	data := mail.TemplateData{Brand: brandName, UnsubscribeURL: c.Sending.UnsubscribeURL(brand.RouteEmail, lang, o.CustomerEmail)}
	for i, w := range written {
		if w.Receipt == "" {
			continue
		}
		data.Receipts = append(data.Receipts, mail.Receipt{ProductName: products[i], Live: w.State == core.ReviewPublished,
			URL: ReceiptURL(c.PublicURL, w.ID, w.Receipt, lang)})
	}
	subject, text, html, err := mail.Render(mail.KindConfirmation, lang, data)
	if err != nil {
		return skip(sending.OutcomeFailedStart + sending.ErrRenderFailed)
	}
	return &confirmationMail{orderID: o.ID, reviews: len(written),
		msg: c.customerMessage(ch.SenderAddress, st.SenderAddress, brandName, o.CustomerEmail, subject, text, html, data.UnsubscribeURL)}, nil
}

// sendConfirmation sends a prepared confirmation e-mail once and records its
// outcome (a failed e-mail is not retried: the receipt is in the answer too).
func (c *Service) sendConfirmation(ctx context.Context, m *confirmationMail) {
	c.Sending.SendOnce(ctx, m.msg, "confirmation", func(tx *store.Tx, outcome string) error {
		return tx.AddReviewConfirmation(ctx, store.ReviewConfirmation{OrderID: m.orderID, Reviews: m.reviews,
			Subject: m.msg.Subject, MessageID: m.msg.MessageID, Outcome: outcome})
	}, "order", m.orderID)
}

package sending

import (
	"context"
	"errors"

	"reviewd/app/mail"
	"reviewd/store"
)

// Outcomes of an e-mail sent once (answer and seller-response e-mails): "sent",
// or "failed: " followed by the mail package's reason.
const (
	OutcomeSent        = "sent"
	OutcomeFailedStart = "failed: "
)

// SendOnce sends msg a single time (a failed e-mail is not retried) after the
// caller's commit and records the outcome with record in a transaction of its
// own. what names the e-mail in the log, with the attributes in logArgs (never an
// address). It returns the outcome.
func (c *Service) SendOnce(ctx context.Context, msg mail.Message, what string, record func(*store.Tx, string) error, logArgs ...any) string {
	outcome := OutcomeSent
	if _, err := c.Mailer.Send(ctx, msg); err != nil {
		reason := "unexpected"
		var se *mail.SendError
		if errors.As(err, &se) {
			reason = se.Reason
		}
		outcome = OutcomeFailedStart + reason
		c.Log.Warn(what+" e-mail not sent", append(logArgs, "err", err)...)
	}
	err := c.DB.WithTx(context.WithoutCancel(ctx), func(tx *store.Tx) error { return record(tx, outcome) })
	if err != nil {
		c.Log.Error(what+" e-mail outcome not saved", append(logArgs, "err", err)...)
	}
	return outcome
}

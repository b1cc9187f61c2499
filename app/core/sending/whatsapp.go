package sending

import (
	"context"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/whatsapp"
	"reviewd/store"
)

// phoneInvites reports whether orders with a phone but no e-mail address can be
// invited: WhatsApp is configured and invitations go by it.
func (c *Service) phoneInvites(st brand.Settings) bool {
	return c.WhatsApp.Enabled() && st.InviteDelivery == brand.RouteWhatsApp
}

// phoneRef is the key of the daily limit and burst check of a customer reached by
// phone without a customer_key.
func phoneRef(keys *core.Keyring, phone string) string {
	return "p:" + keys.Pseudonym("customer_phone", phone)
}

// whatsAppRoute decides how a message whose route is whatsapp goes to the customer
// of o: by WhatsApp when it is configured and the order has a phone that is not on
// the opt-out list; else by e-mail when whatsapp_fallback_email is on; else not at
// all (skip is the reason: phone_missing or opted_out).
func (c *Service) whatsAppRoute(ctx context.Context, q *store.Q, o store.Order, st brand.Settings) (route, skip string, err error) {
	skip = SkipNoPhone
	if c.WhatsApp.Enabled() && o.CustomerPhone != "" && !o.Erased() {
		out, err := q.OptedOut(ctx, o.CustomerPhone)
		if err != nil {
			return "", "", err
		}
		if !out {
			return brand.RouteWhatsApp, "", nil
		}
		skip = SkipOptedOut
	}
	if st.FallbackEmail() {
		return brand.RouteEmail, "", nil
	}
	return "", skip, nil
}

// whatsAppMessage is the template message of an invitation or reminder: the
// reminder template for reminders, in the order's language, with the brand, the
// products and the writing link as body parameters {{1}}, {{2}}, {{3}}.
func (c *Service) whatsAppMessage(kind string, o store.Order, brandName string, products []string, reviewURL string) whatsapp.Message {
	return whatsapp.Message{To: o.CustomerPhone, Template: c.WhatsApp.Template(kind == MsgReminder), Language: o.Language,
		BodyParams: []string{brandName, strings.Join(products, ", "), reviewURL}}
}

// sendWhatsApp sends the prepared template message of job.
func (c *Service) sendWhatsApp(ctx context.Context, job *sendJob) sendResult {
	if !c.WhatsApp.Enabled() {
		return sendResult{temporary: true, reason: "whatsapp_unavailable"}
	}
	r := c.WhatsApp.Send(ctx, job.wa)
	return sendResult{ok: r.OK, temporary: r.Temporary, reason: r.Reason, messageID: r.MessageID, retryAfter: r.RetryAfter}
}

// Opt-out reason and source of a stop word sent to the business number.
const (
	OptOutStopWord = "stop_word"
	sourceWhatsApp = "whatsapp"
)

// WhatsAppEventsResult is what one webhook call of WhatsApp changed.
type WhatsAppEventsResult struct {
	Statuses int `json:"statuses"`  // status events received
	Matched  int `json:"matched"`   // of them, events of a message in the log
	Messages int `json:"messages"`  // incoming messages received
	OptedOut int `json:"opted_out"` // numbers put on the opt-out list by a stop word
}

// RecordWhatsAppEvents applies the events of one webhook call: a status event
// (sent, delivered, read, failed) becomes the last status of its message-log row
// (a failure's Meta code becomes the row's reason); an incoming message whose text
// is a stop word puts the sender's number on the opt-out list (channel_kind
// whatsapp). Events of unknown messages are counted and ignored.
func (c *Service) RecordWhatsAppEvents(ctx context.Context, ev whatsapp.Events) (WhatsAppEventsResult, error) {
	res := WhatsAppEventsResult{Statuses: len(ev.Statuses), Messages: len(ev.Messages)}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		for _, s := range ev.Statuses {
			switch s.Status {
			case "sent", "delivered", "read", "failed":
			default:
				continue
			}
			reason := ""
			if s.Status == "failed" && s.ErrorCode != 0 {
				reason = whatsapp.Classify(s.ErrorCode, 0).Reason
			}
			at := tx.Now
			if s.Timestamp > 0 {
				at = time.Unix(s.Timestamp, 0).UTC()
			}
			id, err := tx.SetProviderStatus(ctx, s.MessageID, s.Status, reason, at)
			if err != nil {
				return err
			}
			if id != 0 {
				res.Matched++
			}
		}
		for _, m := range ev.Messages {
			if !whatsapp.IsStopWord(m.Text) {
				continue
			}
			phone := core.PhoneE164(m.From, "")
			if phone == "" {
				continue
			}
			added, err := tx.AddOptOut(ctx, store.OptOut{Address: phone, ChannelKind: brand.RouteWhatsApp, Reason: OptOutStopWord,
				Source: sourceWhatsApp})
			if err != nil {
				return err
			}
			if added {
				res.OptedOut++
				if err := c.Record(ctx, tx, core.System(sourceWhatsApp), "opt_out.added", "opt_out", "", map[string]any{
					"reason": OptOutStopWord, "source": sourceWhatsApp, "channel_kind": brand.RouteWhatsApp}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return res, err
}

// WhatsAppTest is the answer of a test message.
type WhatsAppTest struct {
	Sent      bool   `json:"sent"`
	To        string `json:"to"`
	MessageID string `json:"message_id"`
}

// SendWhatsAppTest sends the invitation template to a number the user typed (local
// form is completed with the first channel market that makes it valid), with the
// brand, a sample product and the public address as parameters, in that channel's
// language, and records it (whatsapp.test_sent). Errors: 400 invalid /
// whatsapp_unavailable (not configured), invalid / phone, 502 whatsapp_failed /
// <reason> (Meta's refusal, as in the message log).
func (c *Service) SendWhatsAppTest(ctx context.Context, a *core.Actor, phone string) (WhatsAppTest, error) {
	var out WhatsAppTest
	if !c.WhatsApp.Enabled() {
		return out, core.Invalid("whatsapp_unavailable")
	}
	chans, err := c.DB.Read().ListChannels(ctx)
	if err != nil {
		return out, err
	}
	lang, name := "en", ""
	to := core.PhoneE164(phone, "")
	for _, ch := range chans {
		if to == "" {
			if to = core.PhoneE164(phone, ch.Market); to != "" {
				lang, name = ch.Language, core.BrandOf(ch)
			}
		} else if name == "" {
			lang, name = ch.Language, core.BrandOf(ch)
		}
	}
	if to == "" || len(phone) > core.MaxPhoneLen {
		return out, core.Invalid("phone")
	}
	r := c.WhatsApp.Send(ctx, whatsapp.Message{To: to, Template: c.WhatsApp.Template(false), Language: lang,
		BodyParams: []string{name, "—", c.PublicURL + "/"}})
	if !r.OK {
		return out, core.E(502, "whatsapp_failed", r.Reason)
	}
	out = WhatsAppTest{Sent: true, To: to, MessageID: r.MessageID}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.Record(ctx, tx, a, "whatsapp.test_sent", "settings", "", map[string]any{"message_id": r.MessageID})
	})
	return out, err
}

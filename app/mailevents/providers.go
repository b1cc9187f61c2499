package mailevents

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// ParseSendGrid reads a SendGrid Event Webhook body: a JSON array of events (a
// single object is accepted too). Mapping: delivered; deferred; bounce and
// dropped → bounced (bounce of type "bounce" is hard, "blocked" soft; dropped is
// hard for "Bounced Address" and "Invalid"); spamreport → complained; open →
// opened; unsubscribe, group_unsubscribe → unsubscribed; everything else ignored.
// EventID is sg_event_id (a payload hash when missing); MessageID is the smtp-id
// header, else sg_message_id up to its first '.'; SendID is the send_id custom arg.
func ParseSendGrid(raw []byte) ([]Event, error) {
	trimmed := bytes.TrimSpace(raw)
	var elems []json.RawMessage
	if len(trimmed) > 0 && trimmed[0] == '{' {
		elems = []json.RawMessage{trimmed}
	} else if err := json.Unmarshal(trimmed, &elems); err != nil {
		return nil, errBody
	}
	out := make([]Event, 0, len(elems))
	for _, el := range elems {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(el, &m); err != nil || m == nil {
			return nil, errBody
		}
		ev := Event{
			EventID:    loose(m, "sg_event_id"),
			Address:    cleanAddress(loose(m, "email")),
			SendID:     loose(m, "send_id"),
			OccurredAt: unixTime(loose(m, "timestamp")),
		}
		if ev.EventID == "" {
			ev.EventID = payloadID(el)
		}
		if pid := loose(m, "sg_message_id"); pid != "" {
			if i := strings.IndexByte(pid, '.'); i > 0 {
				pid = pid[:i]
			}
			ev.ProviderMessageID = pid
		}
		ev.MessageID = trimMessageID(loose(m, "smtp-id"))
		if ev.MessageID == "" {
			ev.MessageID = ev.ProviderMessageID
		}
		reason, status, response := loose(m, "reason"), loose(m, "status"), loose(m, "response")
		switch loose(m, "event") {
		case "delivered":
			ev.Type = Delivered
			ev.Detail = detailOf(response)
		case "deferred":
			ev.Type = Deferred
			attempt := ""
			if a := loose(m, "attempt"); a != "" {
				attempt = "attempt " + a
			}
			ev.Detail = detailOf(status, response, attempt)
		case "bounce":
			kind := loose(m, "type")
			ev.Type = Bounced
			ev.Detail = detailOf(kind, status, reason)
			ev.Hard = kind != "blocked"
		case "dropped":
			ev.Type = Bounced
			ev.Detail = detailOf("dropped", reason)
			r := strings.ToLower(strings.TrimSpace(reason))
			ev.Hard = r == "bounced address" || r == "invalid"
		case "spamreport":
			ev.Type = Complained
		case "open":
			ev.Type = Opened
			if loose(m, "sg_machine_open") == "true" {
				ev.Detail = "machine_open"
			}
		case "unsubscribe", "group_unsubscribe":
			ev.Type = Unsubscribed
			if g := loose(m, "asm_group_id"); g != "" {
				ev.Detail = detailOf("group", g)
			}
		default:
			// processed, click, group_resubscribe and account events.
			ev.Detail = detailOf(loose(m, "event"))
		}
		out = append(out, ev)
	}
	return out, nil
}

// ParseMailgun reads a Mailgun webhook body {"signature": {...}, "event-data":
// {...}}. Mapping: delivered; failed with severity permanent → bounced (hard);
// failed otherwise → deferred; rejected → bounced (hard only when the detail
// says so); opened; complained; unsubscribed; accepted, clicked, stored and
// list events ignored. EventID is event-data.id plus ":" and the event timestamp
// (Mailgun ids are unique for about a day only), signature.token when there is no
// id. MessageID is message.headers.message-id; SendID user-variables.send_id.
func ParseMailgun(raw []byte) ([]Event, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, errBody
	}
	data := object(top, "event-data")
	if data == nil {
		return nil, errBody
	}
	sig := object(top, "signature")
	ts := loose(data, "timestamp")
	ev := Event{
		Address:    cleanAddress(loose(data, "recipient")),
		OccurredAt: unixTime(ts),
		SendID:     loose(object(data, "user-variables"), "send_id"),
	}
	switch id := loose(data, "id"); {
	case id != "":
		ev.EventID = id + ":" + ts
	case loose(sig, "token") != "":
		ev.EventID = loose(sig, "token")
	default:
		ev.EventID = payloadID(raw)
	}
	ev.MessageID = trimMessageID(loose(object(object(data, "message"), "headers"), "message-id"))
	ev.ProviderMessageID = ev.MessageID

	ds := object(data, "delivery-status")
	status := detailOf(loose(ds, "code"), loose(ds, "enhanced-code"), loose(ds, "message"), loose(ds, "description"))
	severity, reason := loose(data, "severity"), loose(data, "reason")
	switch event := loose(data, "event"); event {
	case "delivered":
		ev.Type = Delivered
		ev.Detail = status
	case "failed", "permanent_fail", "temporary_fail":
		if severity == "permanent" || event == "permanent_fail" {
			ev.Type, ev.Hard = Bounced, true
			ev.Detail = detailOf("permanent", reason, status)
		} else {
			ev.Type = Deferred
			ev.Detail = detailOf("temporary", reason, status)
		}
	case "rejected":
		rej := object(data, "reject")
		ev.Type = Bounced
		ev.Detail = detailOf("rejected", loose(rej, "reason"), loose(rej, "description"))
		ev.Hard = HardDetail(ev.Detail)
	case "opened":
		ev.Type = Opened
	case "complained":
		ev.Type = Complained
	case "unsubscribed":
		ev.Type = Unsubscribed
	default:
		ev.Detail = detailOf(event)
	}
	return []Event{ev}, nil
}

// VerifyMailgun checks a Mailgun webhook signature: hex HMAC-SHA256 of
// timestamp+token under the HTTP webhook signing key, compared in constant time.
// It does not judge the age of timestamp or replays of token.
func VerifyMailgun(signingKey, timestamp, token, signature string) bool {
	if signingKey == "" || timestamp == "" || token == "" {
		return false
	}
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(signingKey))
	mac.Write([]byte(timestamp + token))
	return hmac.Equal(got, mac.Sum(nil))
}

// VerifyMailgunPayload checks the signature object inside a raw Mailgun body
// with VerifyMailgun; a body without one fails.
func VerifyMailgunPayload(signingKey string, raw []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	sig := object(top, "signature")
	return VerifyMailgun(signingKey, loose(sig, "timestamp"), loose(sig, "token"), loose(sig, "signature"))
}

// ParsePostmark reads one Postmark webhook record. Mapping by RecordType:
// Delivery → delivered; Bounce by Type: Transient → deferred; HardBounce,
// BadEmailAddress, ManuallyDeactivated → bounced hard; SoftBounce, DnsError,
// Blocked, SpamNotification → bounced; Unsubscribe → unsubscribed; SpamComplaint
// → complained; other bounce types ignored. SpamComplaint → complained; Open →
// opened; SubscriptionChange with SuppressSending and reason ManualSuppression →
// unsubscribed; Click and the rest ignored. EventID is the bounce ID for
// bounce-shaped records, else RecordType:MessageID:<time of the record>.
// MessageID is Postmark's MessageID; SendID is Metadata.send_id.
func ParsePostmark(raw []byte) ([]Event, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errBody
	}
	rt := loose(m, "RecordType")
	ev := Event{
		MessageID: loose(m, "MessageID"),
		SendID:    loose(object(m, "Metadata"), "send_id"),
	}
	ev.ProviderMessageID = ev.MessageID
	var when string
	switch rt {
	case "Delivery":
		when = loose(m, "DeliveredAt")
		ev.Type = Delivered
		ev.Address = loose(m, "Recipient")
		ev.Detail = detailOf(loose(m, "Details"))
	case "Bounce", "SpamComplaint":
		when = loose(m, "BouncedAt")
		ev.Address = loose(m, "Email")
		typ := loose(m, "Type")
		ev.Detail = detailOf(typ, loose(m, "Description"), loose(m, "Details"))
		switch {
		case rt == "SpamComplaint" || typ == "SpamComplaint":
			ev.Type = Complained
		case typ == "Transient":
			ev.Type = Deferred
		case typ == "HardBounce" || typ == "BadEmailAddress" || typ == "ManuallyDeactivated":
			ev.Type, ev.Hard = Bounced, true
		case typ == "SoftBounce" || typ == "DnsError" || typ == "Blocked" || typ == "SpamNotification":
			ev.Type = Bounced
		case typ == "Unsubscribe":
			ev.Type = Unsubscribed
		}
	case "Open":
		when = loose(m, "ReceivedAt")
		ev.Type = Opened
		ev.Address = loose(m, "Recipient")
		if ev.Address == "" {
			ev.Address = loose(m, "Email")
		}
	case "SubscriptionChange":
		when = loose(m, "ChangedAt")
		ev.Address = loose(m, "Recipient")
		reason := loose(m, "SuppressionReason")
		if loose(m, "SuppressSending") == "true" && reason == "ManualSuppression" {
			ev.Type = Unsubscribed
		}
		ev.Detail = detailOf(reason, loose(m, "Origin"))
	default:
		// Click and record types we do not know.
		when = firstNonEmpty(loose(m, "ReceivedAt"), loose(m, "ChangedAt"))
		ev.Address = firstNonEmpty(loose(m, "Recipient"), loose(m, "Email"))
		ev.Detail = detailOf(rt)
	}
	ev.Address = cleanAddress(ev.Address)
	ev.OccurredAt = isoTime(when)
	if id := loose(m, "ID"); id != "" && id != "0" {
		ev.EventID = id
	} else if ev.MessageID != "" && rt != "" {
		ev.EventID = rt + ":" + ev.MessageID + ":" + when
	} else {
		ev.EventID = payloadID(raw)
	}
	return []Event{ev}, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// SubscriptionConfirmation is returned by ParseSES (as the error) for an SNS
// subscription confirmation. The handler answers 200 and shows SubscribeURL to
// the operator, who opens it once to confirm; reviewd never fetches it itself.
type SubscriptionConfirmation struct {
	TopicArn     string
	SubscribeURL string
}

func (c *SubscriptionConfirmation) Error() string {
	return "mailevents: sns subscription confirmation for " + c.TopicArn
}

// Is makes errors.Is(err, ErrSubscriptionConfirmation) true.
func (c *SubscriptionConfirmation) Is(target error) bool {
	return target == ErrSubscriptionConfirmation
}

// ErrSubscriptionConfirmation matches every *SubscriptionConfirmation. It is not
// an *Error: a confirmation is answered 200, never refused.
var ErrSubscriptionConfirmation = errors.New("mailevents: sns subscription confirmation")

// snsHost is where SNS subscription links may point.
var snsHost = regexp.MustCompile(`^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$`)

// ParseSES reads an Amazon SNS HTTP(S) delivery carrying an SES notification
// (identity notifications use notificationType, configuration-set event
// publishing eventType; raw message delivery without the SNS envelope is read
// too). It returns one event per recipient. Mapping: Bounce → bounced (hard
// when Permanent); Complaint → complained (feedback type not-spam ignored);
// Delivery → delivered; DeliveryDelay → deferred; Open → opened; Reject →
// bounced; Subscription → unsubscribed when the recipient opted out; Send, Click,
// Rendering Failure ignored. EventID is the SNS MessageId plus a hash of the
// recipient. MessageID is the original Message-ID header
// (mail.commonHeaders.messageId) when present, else mail.messageId; SendID is the
// send_id message tag. A SubscriptionConfirmation comes back as a
// *SubscriptionConfirmation error, an UnsubscribeConfirmation as no events. SNS
// signatures are not verified (that needs AWS certificates fetched online); the
// access code in the endpoint address authenticates the caller.
func ParseSES(raw []byte) ([]Event, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(raw, &env); err != nil || env == nil {
		return nil, errBody
	}
	var (
		msg    map[string]json.RawMessage
		baseID string
	)
	switch typ := loose(env, "Type"); typ {
	case "SubscriptionConfirmation":
		u := loose(env, "SubscribeURL")
		pu, err := url.Parse(u)
		if err != nil || pu.Scheme != "https" || !snsHost.MatchString(pu.Hostname()) || pu.Port() != "" {
			return nil, fieldErr("field_invalid", "SubscribeURL")
		}
		return nil, &SubscriptionConfirmation{TopicArn: loose(env, "TopicArn"), SubscribeURL: u}
	case "UnsubscribeConfirmation":
		return nil, nil
	case "Notification":
		inner := loose(env, "Message")
		if err := json.Unmarshal([]byte(inner), &msg); err != nil || msg == nil {
			return nil, fieldErr("field_invalid", "Message")
		}
		baseID = loose(env, "MessageId")
		if baseID == "" {
			baseID = payloadID([]byte(inner))
		}
	case "":
		// Raw message delivery: the body is the SES notification itself.
		if loose(env, "notificationType") == "" && loose(env, "eventType") == "" {
			return nil, errBody
		}
		msg, baseID = env, payloadID(raw)
	default:
		return nil, fieldErr("field_invalid", "Type")
	}
	return sesEvents(msg, baseID, isoTime(loose(env, "Timestamp"))), nil
}

func sesEvents(msg map[string]json.RawMessage, baseID string, snsTime time.Time) []Event {
	mail := object(msg, "mail")
	base := Event{ProviderMessageID: loose(mail, "messageId")}
	base.MessageID = trimMessageID(loose(object(mail, "commonHeaders"), "messageId"))
	if base.MessageID == "" {
		base.MessageID = base.ProviderMessageID
	}
	var tags map[string][]string
	if raw, ok := mail["tags"]; ok {
		_ = json.Unmarshal(raw, &tags)
	}
	if v := tags["send_id"]; len(v) > 0 {
		base.SendID = v[0]
	}
	var destination []string
	if raw, ok := mail["destination"]; ok {
		_ = json.Unmarshal(raw, &destination)
	}

	kind := firstNonEmpty(loose(msg, "eventType"), loose(msg, "notificationType"))
	type recipient struct{ addr, detail string }
	var (
		recips []recipient
		when   string
	)
	fromDestination := func(detail string) {
		for _, d := range destination {
			recips = append(recips, recipient{d, detail})
		}
	}
	switch kind {
	case "Bounce":
		b := object(msg, "bounce")
		when = loose(b, "timestamp")
		bt := loose(b, "bounceType")
		base.Type, base.Hard = Bounced, bt == "Permanent"
		var list []map[string]json.RawMessage
		_ = json.Unmarshal(b["bouncedRecipients"], &list)
		for _, r := range list {
			recips = append(recips, recipient{loose(r, "emailAddress"),
				detailOf(bt, loose(b, "bounceSubType"), loose(r, "status"), loose(r, "diagnosticCode"))})
		}
	case "Complaint":
		c := object(msg, "complaint")
		when = loose(c, "timestamp")
		ft := loose(c, "complaintFeedbackType")
		if ft != "not-spam" {
			base.Type = Complained
		}
		var list []map[string]json.RawMessage
		_ = json.Unmarshal(c["complainedRecipients"], &list)
		for _, r := range list {
			recips = append(recips, recipient{loose(r, "emailAddress"), detailOf(ft)})
		}
	case "Delivery":
		d := object(msg, "delivery")
		when = loose(d, "timestamp")
		base.Type = Delivered
		var list []string
		_ = json.Unmarshal(d["recipients"], &list)
		for _, r := range list {
			recips = append(recips, recipient{r, detailOf(loose(d, "smtpResponse"))})
		}
	case "DeliveryDelay":
		d := object(msg, "deliveryDelay")
		when = loose(d, "timestamp")
		base.Type = Deferred
		var list []map[string]json.RawMessage
		_ = json.Unmarshal(d["delayedRecipients"], &list)
		for _, r := range list {
			recips = append(recips, recipient{loose(r, "emailAddress"),
				detailOf(loose(d, "delayType"), loose(r, "status"), loose(r, "diagnosticCode"))})
		}
	case "Open":
		when = loose(object(msg, "open"), "timestamp")
		base.Type = Opened
		fromDestination("")
	case "Reject":
		base.Type = Bounced
		fromDestination(detailOf("rejected", loose(object(msg, "reject"), "reason")))
	case "Subscription":
		s := object(msg, "subscription")
		when = loose(s, "timestamp")
		if optedOut(object(s, "newTopicPreferences")) {
			base.Type = Unsubscribed
		}
		fromDestination(detailOf(loose(s, "source")))
	default:
		// Send, Click, Rendering Failure and types we do not know.
		when = firstNonEmpty(loose(object(msg, "click"), "timestamp"), loose(object(msg, "send"), "timestamp"))
		fromDestination(detailOf(kind))
	}
	at := isoTime(when)
	if at.IsZero() {
		at = isoTime(loose(mail, "timestamp"))
	}
	if at.IsZero() {
		at = snsTime
	}
	out := make([]Event, 0, len(recips))
	for _, r := range recips {
		ev := base
		ev.Address = cleanAddress(r.addr)
		ev.Detail = r.detail
		ev.OccurredAt = at
		ev.EventID = baseID + ":" + recipientKey(ev.Address)
		out = append(out, ev)
	}
	return out
}

// optedOut reads SES list-management preferences: unsubscribeAll, or any topic
// set to OptOut.
func optedOut(p map[string]json.RawMessage) bool {
	if loose(p, "unsubscribeAll") == "true" {
		return true
	}
	var topics []map[string]json.RawMessage
	_ = json.Unmarshal(p["topicSubscriptionStatus"], &topics)
	for _, t := range topics {
		if loose(t, "subscriptionStatus") == "OptOut" {
			return true
		}
	}
	return false
}

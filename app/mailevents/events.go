// Package mailevents turns the delivery reports of mail providers (SendGrid,
// Mailgun, Postmark, Amazon SES through SNS) and of the generic mail event
// endpoint into one Event shape. It only parses: it holds no state, touches no
// database and imports nothing of ours, so the ingest handler decides what an
// event changes.
package mailevents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Generic event types (spec 1, email delivery event).
const (
	Delivered    = "delivered"
	Deferred     = "deferred"
	Bounced      = "bounced"
	Complained   = "complained"
	Opened       = "opened"
	Unsubscribed = "unsubscribed"
)

// Types lists every generic event type.
var Types = []string{Delivered, Deferred, Bounced, Complained, Opened, Unsubscribed}

// Event is one thing that happened to one sent message for one recipient.
type Event struct {
	// Type is one of Types, or "" for provider events the service ignores
	// (SendGrid processed/click, Mailgun accepted/clicked/stored, ...). Ignored
	// events still carry their ids so the caller can count them.
	Type string
	// EventID de-duplicates retried deliveries of the same report. Provider ids
	// are only unique per provider, so store them together with the source
	// (generic, sendgrid, mailgun, postmark, ses).
	EventID string
	// MessageID is the Message-ID header (without angle brackets) when the report
	// carries it, otherwise the provider's own message id.
	MessageID string
	// ProviderMessageID is the provider's own message id ("" for generic events).
	ProviderMessageID string
	// SendID is our send id when the message carried it as custom data
	// (SendGrid custom/unique args, Mailgun user-variables, Postmark Metadata,
	// SES tags; see SendIDHeaders), keyed send_id.
	SendID string
	// Address is the recipient as reported.
	Address string
	// Detail is free text from the report with e-mail addresses replaced by the
	// word "address" (RedactAddresses), at most MaxDetail bytes for provider events.
	Detail string
	// Hard is set on bounced events that will not go away: a hard bounce.
	Hard bool
	// OccurredAt is when the provider says it happened; zero when unknown.
	OccurredAt time.Time
}

// Limits of the generic endpoint (the spec fixes only MaxBatch).
const (
	MaxBatch     = 500
	MaxEventID   = 200
	MaxMessageID = 998
	MaxAddress   = 320
	MaxDetail    = 1000
)

// Error is a refusal of a body; Detail is the spec's error detail
// ("body_invalid", "field_missing: event_id", "batch_too_large: 500", ...), to be
// answered as 400 invalid / <Detail>.
type Error struct{ Detail string }

func (e *Error) Error() string { return "mailevents: " + e.Detail }

func invalid(detail string) error { return &Error{Detail: detail} }

func fieldErr(kind, field string) error { return &Error{Detail: kind + ": " + field} }

// errBody is the answer to bodies that are not JSON of the expected shape.
var errBody = &Error{Detail: "body_invalid"}

// addressRE finds e-mail addresses in free text: a local part, "@", and a domain
// of letters, digits and hyphens (any script).
var addressRE = regexp.MustCompile(`[\p{L}\p{N}._%+\-!#$&'*/=?^{|}~]+@[\p{L}\p{N}](?:[\p{L}\p{N}\-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}\-]*[\p{L}\p{N}])?)*`)

// RedactAddresses replaces every e-mail address inside detail by the word
// "address".
func RedactAddresses(detail string) string {
	return addressRE.ReplaceAllString(detail, "address")
}

// statusRE finds an enhanced status code of class 5 (RFC 3463), not inside a
// longer dotted number such as an IP address.
var statusRE = regexp.MustCompile(`(?:^|[^0-9.])5\.[0-9]{1,3}\.[0-9]{1,3}(?:$|[^0-9.]|\.(?:$|[^0-9]))`)

// HardDetail reports whether a bounce detail means a hard bounce: it says "hard"
// or carries a 5.x.x status. Pass the redacted detail, so an address such as
// hard@example.com cannot decide it.
func HardDetail(detail string) bool {
	return strings.Contains(strings.ToLower(detail), "hard") || statusRE.MatchString(detail)
}

// ParseGeneric reads the body of POST /v1/mail-events/generic: one event, or
// {"events": [...]} with at most MaxBatch events. Fields: type (one of Types),
// event_id, detail (free; a non-string value is kept as its JSON text),
// message_id (angle brackets optional), address, occurred_at (RFC 3339). The
// first problem found is returned as an *Error. The caller should have run the
// shared JSON checks (depth, NUL, unpaired surrogates) on raw first.
func ParseGeneric(raw []byte) ([]Event, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, invalid("body_empty")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, errBody
	}
	var items []map[string]json.RawMessage
	if list, ok := top["events"]; ok {
		var elems []json.RawMessage
		if err := json.Unmarshal(list, &elems); err != nil || elems == nil {
			return nil, fieldErr("field_invalid", "events")
		}
		if len(elems) > MaxBatch {
			return nil, invalid("batch_too_large: " + strconv.Itoa(MaxBatch))
		}
		for _, e := range elems {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(e, &m); err != nil || m == nil {
				return nil, fieldErr("field_invalid", "events")
			}
			items = append(items, m)
		}
	} else {
		items = []map[string]json.RawMessage{top}
	}
	out := make([]Event, 0, len(items))
	for _, m := range items {
		ev, err := genericEvent(m)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func genericEvent(m map[string]json.RawMessage) (Event, error) {
	var ev Event
	typ, ok, err := strictString(m, "type")
	if err != nil {
		return ev, err
	}
	if !ok || typ == "" {
		return ev, fieldErr("field_missing", "type")
	}
	if !isType(typ) {
		return ev, fieldErr("field_invalid", "type")
	}
	ev.Type = typ

	id, ok, err := strictString(m, "event_id")
	if err != nil {
		return ev, err
	}
	id = strings.TrimSpace(id)
	if !ok || id == "" {
		return ev, fieldErr("field_missing", "event_id")
	}
	if len(id) > MaxEventID {
		return ev, fieldErr("field_too_long", "event_id")
	}
	ev.EventID = id

	if rawDetail, ok := m["detail"]; ok && string(rawDetail) != "null" {
		var s string
		if json.Unmarshal(rawDetail, &s) != nil {
			// Free detail: any JSON value is kept as its compact text.
			s = compactJSON(rawDetail)
		}
		if strings.ContainsRune(s, 0) {
			return ev, fieldErr("field_invalid", "detail")
		}
		if len(s) > MaxDetail {
			return ev, fieldErr("field_too_long", "detail")
		}
		ev.Detail = RedactAddresses(s)
	}

	mid, _, err := strictString(m, "message_id")
	if err != nil {
		return ev, err
	}
	mid = trimMessageID(mid)
	if len(mid) > MaxMessageID {
		return ev, fieldErr("field_too_long", "message_id")
	}
	if strings.ContainsAny(mid, "<> \t\r\n") {
		return ev, fieldErr("field_invalid", "message_id")
	}
	ev.MessageID = mid

	addr, _, err := strictString(m, "address")
	if err != nil {
		return ev, err
	}
	addr = strings.TrimSpace(addr)
	if len(addr) > MaxAddress {
		return ev, fieldErr("field_too_long", "address")
	}
	if addr != "" && !plausibleAddress(addr) {
		return ev, fieldErr("field_invalid", "address")
	}
	ev.Address = addr

	at, ok, err := strictString(m, "occurred_at")
	if err != nil {
		return ev, err
	}
	if ok && at != "" {
		t, perr := time.Parse(time.RFC3339Nano, at)
		if perr != nil {
			return ev, fieldErr("field_invalid", "occurred_at")
		}
		ev.OccurredAt = t
	}
	ev.Hard = ev.Type == Bounced && HardDetail(ev.Detail)
	return ev, nil
}

func isType(s string) bool {
	for _, t := range Types {
		if s == t {
			return true
		}
	}
	return false
}

// strictString reads member k as a string: absent or null gives ok=false; any
// other non-string value, or a NUL character, is field_invalid: k.
func strictString(m map[string]json.RawMessage, k string) (string, bool, error) {
	raw, ok := m[k]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || strings.ContainsRune(s, 0) {
		return "", false, fieldErr("field_invalid", k)
	}
	return s, true, nil
}

func compactJSON(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func plausibleAddress(s string) bool {
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " \t\r\n<>,;")
}

// trimMessageID removes white space and one pair of angle brackets.
func trimMessageID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "<")
	s = strings.TrimSuffix(s, ">")
	return strings.TrimSpace(s)
}

// cleanAddress turns "Name <a@b>" or "<a@b>" into a@b.
func cleanAddress(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j > 0 {
			s = s[i+1 : i+j]
		}
	}
	return strings.TrimSpace(s)
}

// detailOf joins the non-empty parts, redacts addresses and caps the length.
func detailOf(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			keep = append(keep, p)
		}
	}
	d := RedactAddresses(strings.Join(keep, " "))
	if len(d) > MaxDetail {
		d = d[:MaxDetail]
		for !utf8.ValidString(d) {
			d = d[:len(d)-1]
		}
	}
	return d
}

// payloadID is the de-duplication key of a report that carries no event id: a
// hash of its exact bytes.
func payloadID(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// recipientKey identifies a recipient inside an event id without storing the
// address itself.
func recipientKey(addr string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(addr))))
	return hex.EncodeToString(sum[:8])
}

// Providers are the mail providers with their own endpoint.
var Providers = []string{"sendgrid", "mailgun", "postmark", "ses"}

// ErrUnknownProvider is returned by Parse for a provider not in Providers.
var ErrUnknownProvider = errors.New("mailevents: unknown provider")

// Parse dispatches raw to the parser of provider.
func Parse(provider string, raw []byte) ([]Event, error) {
	switch provider {
	case "sendgrid":
		return ParseSendGrid(raw)
	case "mailgun":
		return ParseMailgun(raw)
	case "postmark":
		return ParsePostmark(raw)
	case "ses":
		return ParseSES(raw)
	}
	return nil, ErrUnknownProvider
}

// SendIDHeaders returns the header fields that make each provider echo sendID
// back in its reports as send_id (SendGrid X-SMTPAPI unique_args, Mailgun
// X-Mailgun-Variables, Postmark X-PM-Metadata-send_id, SES X-SES-MESSAGE-TAGS).
// A relay that is none of them passes them on unread. sendID must be a token of
// letters, digits, '-' and '_' (a UUID); otherwise nil is returned.
func SendIDHeaders(sendID string) map[string]string {
	if sendID == "" || len(sendID) > 100 {
		return nil
	}
	for _, c := range sendID {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return nil
		}
	}
	return map[string]string{
		"X-SMTPAPI":             `{"unique_args":{"send_id":"` + sendID + `"}}`,
		"X-Mailgun-Variables":   `{"send_id":"` + sendID + `"}`,
		"X-PM-Metadata-send_id": sendID,
		"X-SES-MESSAGE-TAGS":    "send_id=" + sendID,
	}
}

// loose reads member k of a provider object as text: strings as they are,
// numbers and booleans as their JSON text, anything else as "". Providers add
// and retype fields; a parser that refused them would make them retry forever.
func loose(m map[string]json.RawMessage, k string) string {
	raw, ok := m[k]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.ReplaceAll(s, "\x00", "")
	}
	t := strings.TrimSpace(string(raw))
	if t == "" || t[0] == '{' || t[0] == '[' || t == "null" {
		return ""
	}
	return t
}

// object reads member k as a JSON object (nil when absent or not an object).
func object(m map[string]json.RawMessage, k string) map[string]json.RawMessage {
	var o map[string]json.RawMessage
	if raw, ok := m[k]; ok {
		_ = json.Unmarshal(raw, &o)
	}
	return o
}

// unixTime reads seconds since the epoch, possibly fractional.
func unixTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return time.Time{}
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC().Round(time.Microsecond)
}

// isoTime reads an ISO 8601 / RFC 3339 time; zero when unreadable.
func isoTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

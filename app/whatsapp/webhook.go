package whatsapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"
)

// MaxEventBytes bounds the body of one webhook call (Meta batches at most a few
// hundred events per call).
const MaxEventBytes = 1 << 20

// SignatureValid reports whether header (the X-Hub-Signature-256 value,
// "sha256=<hex>") is the HMAC-SHA256 of body under secret. The comparison takes
// the same time whatever the header holds. An empty secret accepts nothing.
func SignatureValid(secret string, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok || secret == "" {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// Sign is the X-Hub-Signature-256 value of body under secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Status is one message status event.
type Status struct {
	MessageID string // wamid of the message we sent
	Status    string // sent, delivered, read, failed
	Recipient string // E.164
	Timestamp int64  // seconds since 1970
	ErrorCode int    // Meta's code of a failed status
}

// Incoming is one message a customer sent to the business number.
type Incoming struct {
	From      string // E.164
	MessageID string
	Text      string
}

// Events is what one webhook call carries.
type Events struct {
	Statuses []Status
	Messages []Incoming
}

type payload struct {
	Object string `json:"object"`
	Entry  []struct {
		Changes []struct {
			Field string `json:"field"`
			Value struct {
				Statuses []struct {
					ID          string `json:"id"`
					Status      string `json:"status"`
					Timestamp   string `json:"timestamp"`
					RecipientID string `json:"recipient_id"`
					Errors      []struct {
						Code int `json:"code"`
					} `json:"errors"`
				} `json:"statuses"`
				Messages []struct {
					From string `json:"from"`
					ID   string `json:"id"`
					Type string `json:"type"`
					Text struct {
						Body string `json:"body"`
					} `json:"text"`
					Button struct {
						Text string `json:"text"`
					} `json:"button"`
				} `json:"messages"`
			} `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

// ParseEvents reads a webhook body of the whatsapp_business_account object. It
// reports false for a body that is not JSON of that shape.
func ParseEvents(body []byte) (Events, bool) {
	var p payload
	var ev Events
	if err := json.Unmarshal(body, &p); err != nil {
		return ev, false
	}
	for _, e := range p.Entry {
		for _, ch := range e.Changes {
			for _, s := range ch.Value.Statuses {
				st := Status{MessageID: s.ID, Status: s.Status, Recipient: plus(s.RecipientID)}
				for _, c := range s.Timestamp {
					if c < '0' || c > '9' {
						st.Timestamp = 0
						break
					}
					st.Timestamp = st.Timestamp*10 + int64(c-'0')
				}
				if len(s.Errors) > 0 {
					st.ErrorCode = s.Errors[0].Code
				}
				ev.Statuses = append(ev.Statuses, st)
			}
			for _, m := range ch.Value.Messages {
				text := m.Text.Body
				if m.Type == "button" {
					text = m.Button.Text
				}
				ev.Messages = append(ev.Messages, Incoming{From: plus(m.From), MessageID: m.ID, Text: text})
			}
		}
	}
	return ev, true
}

func plus(waID string) string {
	if waID == "" || strings.HasPrefix(waID, "+") {
		return waID
	}
	return "+" + waID
}

// stopWords are the texts that put a number on the opt-out list (CONTRACT,
// "Messaging-app invitations"), folded by foldStop.
var stopWords = map[string]bool{"stop": true, "dur": true, "iptal": true}

// IsStopWord reports whether text, trimmed of spaces and final punctuation, is a
// stop word in any case. Turkish case rules are applied by hand: "İ" (dotted
// capital) and "I" (dotless capital) and "ı" (dotless small) all fold to "i", so
// "İPTAL", "IPTAL", "iptal" and "ıptal" match, where strings.ToLower would turn
// "İ" into "i̇" (i plus a combining dot) and miss.
func IsStopWord(text string) bool {
	return stopWords[foldStop(text)]
}

func foldStop(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	var b strings.Builder
	for _, r := range s {
		switch r {
		case 'İ', 'I', 'ı', 'i':
			b.WriteRune('i')
		case '\u0307': // combining dot above, left by a lower-cased İ
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

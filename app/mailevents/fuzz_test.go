package mailevents

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzProviders are the parsers a fuzz input is handed to, by its first byte.
var fuzzProviders = []string{"generic", "sendgrid", "mailgun", "postmark", "ses"}

func parseAny(provider string, raw []byte) ([]Event, error) {
	if provider == "generic" {
		return ParseGeneric(raw)
	}
	return Parse(provider, raw)
}

// FuzzParse: every provider's parser never panics, refuses only with *Error (or a
// subscription confirmation for SES), and returns events with storable text.
func FuzzParse(f *testing.F) {
	// Seeds: testdata/fuzz/<target>/, one recorded report of every provider.
	f.Add(uint8(0), []byte(`{"type": "bounced", "event_id": "e-1", "message_id": "<m@x>", "address": "a@mail.example", "detail": "5.1.1", "occurred_at": "2026-06-01T10:00:00Z"}`))
	f.Add(uint8(0), []byte(`{"events": [{"type": "complained", "event_id": "e-2", "address": "a@mail.example"}]}`))
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		provider := fuzzProviders[int(which)%len(fuzzProviders)]
		events, err := parseAny(provider, raw)
		if err != nil {
			var e *Error
			var sub *SubscriptionConfirmation
			if !errors.As(err, &e) && !errors.As(err, &sub) {
				t.Fatalf("%s: error %T %v is neither *Error nor a subscription confirmation", provider, err, err)
			}
			return
		}
		for _, ev := range events {
			for _, s := range []string{ev.Type, ev.EventID, ev.MessageID, ev.Address, ev.Detail} {
				if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
					t.Fatalf("%s: event %+v holds an unstorable string", provider, ev)
				}
			}
		}
	})
}

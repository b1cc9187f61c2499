package mailevents_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"reviewd/app/mailevents"
)

func TestParseGeneric(t *testing.T) {
	at := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		body string
		want []mailevents.Event
	}{
		{
			name: "single event, message id with brackets",
			body: `{"type":"delivered","event_id":"e1","message_id":"<inv-1@reviews.shop.example>","address":"ayse@customer.example","occurred_at":"2026-06-01T10:00:00Z","detail":"250 OK"}`,
			want: []mailevents.Event{{Type: "delivered", EventID: "e1", MessageID: "inv-1@reviews.shop.example",
				Address: "ayse@customer.example", Detail: "250 OK", OccurredAt: at}},
		},
		{
			name: "batch with every type",
			body: `{"events":[
				{"type":"delivered","event_id":"1"},
				{"type":"deferred","event_id":"2","detail":"451 4.7.1 greylisted"},
				{"type":"bounced","event_id":"3","detail":"550 5.1.1 <ayse@customer.example> user unknown","message_id":"m@x"},
				{"type":"bounced","event_id":"4","detail":"Hard bounce"},
				{"type":"bounced","event_id":"5","detail":"mailbox full 4.2.2"},
				{"type":"complained","event_id":"6"},
				{"type":"opened","event_id":"7","occurred_at":"2026-06-01T13:00:00+03:00"},
				{"type":"unsubscribed","event_id":"8","address":"ayse@customer.example"}
			]}`,
			want: []mailevents.Event{
				{Type: "delivered", EventID: "1"},
				{Type: "deferred", EventID: "2", Detail: "451 4.7.1 greylisted"},
				{Type: "bounced", EventID: "3", MessageID: "m@x", Detail: "550 5.1.1 <address> user unknown", Hard: true},
				{Type: "bounced", EventID: "4", Detail: "Hard bounce", Hard: true},
				{Type: "bounced", EventID: "5", Detail: "mailbox full 4.2.2"},
				{Type: "complained", EventID: "6"},
				{Type: "opened", EventID: "7", OccurredAt: at.Add(0)},
				{Type: "unsubscribed", EventID: "8", Address: "ayse@customer.example"},
			},
		},
		{
			name: "detail that is not a string is kept as JSON text",
			body: `{"type":"deferred","event_id":"x","detail":{"code":451,"to":"a@b.example"}}`,
			want: []mailevents.Event{{Type: "deferred", EventID: "x", Detail: `{"code":451,"to":"address"}`}},
		},
		{
			name: "an address that says hard does not make a hard bounce",
			body: `{"type":"bounced","event_id":"x","detail":"rejected by hard@customer.example"}`,
			want: []mailevents.Event{{Type: "bounced", EventID: "x", Detail: "rejected by address"}},
		},
		{
			name: "hard only counts for bounces",
			body: `{"type":"deferred","event_id":"x","detail":"5.1.1 hard"}`,
			want: []mailevents.Event{{Type: "deferred", EventID: "x", Detail: "5.1.1 hard"}},
		},
		{
			name: "empty batch",
			body: `{"events":[]}`,
			want: []mailevents.Event{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mailevents.ParseGeneric([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseGenericErrors(t *testing.T) {
	tooMany := `{"events":[` + strings.TrimSuffix(strings.Repeat(`{"type":"opened","event_id":"e"},`, 501), ",") + `]}`
	exactly := `{"events":[` + strings.TrimSuffix(strings.Repeat(`{"type":"opened","event_id":"e"},`, 500), ",") + `]}`
	if evs, err := mailevents.ParseGeneric([]byte(exactly)); err != nil || len(evs) != 500 {
		t.Fatalf("500 events: %d, %v", len(evs), err)
	}
	cases := []struct {
		name, body, detail string
	}{
		{"empty", "  ", "body_empty"},
		{"not json", `{"type":`, "body_invalid"},
		{"array body", `[{"type":"opened","event_id":"e"}]`, "body_invalid"},
		{"scalar body", `"opened"`, "body_invalid"},
		{"too many", tooMany, "batch_too_large: 500"},
		{"events not a list", `{"events":{"type":"opened"}}`, "field_invalid: events"},
		{"event not an object", `{"events":["opened"]}`, "field_invalid: events"},
		{"type missing", `{"event_id":"e"}`, "field_missing: type"},
		{"type unknown", `{"type":"clicked","event_id":"e"}`, "field_invalid: type"},
		{"type not a string", `{"type":3,"event_id":"e"}`, "field_invalid: type"},
		{"event_id missing", `{"type":"opened"}`, "field_missing: event_id"},
		{"event_id empty", `{"type":"opened","event_id":" "}`, "field_missing: event_id"},
		{"event_id a number", `{"type":"opened","event_id":5}`, "field_invalid: event_id"},
		{"event_id too long", `{"type":"opened","event_id":"` + strings.Repeat("x", 201) + `"}`, "field_too_long: event_id"},
		{"second event bad", `{"events":[{"type":"opened","event_id":"1"},{"type":"opened"}]}`, "field_missing: event_id"},
		{"occurred_at without zone", `{"type":"opened","event_id":"e","occurred_at":"2026-06-01T10:00:00"}`, "field_invalid: occurred_at"},
		{"address not an address", `{"type":"opened","event_id":"e","address":"nobody"}`, "field_invalid: address"},
		{"message_id with space", `{"type":"opened","event_id":"e","message_id":"a b@c"}`, "field_invalid: message_id"},
		{"detail with NUL", `{"type":"opened","event_id":"e","detail":"a\u0000b"}`, "field_invalid: detail"},
		{"detail too long", `{"type":"opened","event_id":"e","detail":"` + strings.Repeat("d", 1001) + `"}`, "field_too_long: detail"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mailevents.ParseGeneric([]byte(tc.body))
			var e *mailevents.Error
			if !errors.As(err, &e) || e.Detail != tc.detail {
				t.Fatalf("err %v, want detail %q", err, tc.detail)
			}
		})
	}
}

func TestRedactAddresses(t *testing.T) {
	cases := []struct{ in, want string }{
		{"550 5.1.1 <ayse@customer.example>: user unknown", "550 5.1.1 <address>: user unknown"},
		{"to a.b+tag@mail.shop.example and c_d@x.co", "to address and address"},
		{"Ayşe.Yılmaz@müşteri.example rejected", "address rejected"},
		{"postmaster@localhost said no.", "address said no."},
		{"no address here @ all, 5.1.1 status", "no address here @ all, 5.1.1 status"},
		{"", ""},
	}
	for _, tc := range cases {
		if got := mailevents.RedactAddresses(tc.in); got != tc.want {
			t.Errorf("RedactAddresses(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHardDetail(t *testing.T) {
	cases := map[string]bool{
		"hard":                         true,
		"HardBounce":                   true,
		"550 5.1.1 user unknown":       true,
		"status 5.7.1.":                true,
		"smtp;550 5.2.1":               true,
		"451 4.7.1 greylisted":         false,
		"relay 10.5.1.12 said 421":     false,
		"version 15.1.1 of the server": false,
		"soft bounce":                  false,
	}
	for in, want := range cases {
		if got := mailevents.HardDetail(in); got != want {
			t.Errorf("HardDetail(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestSendIDHeaders(t *testing.T) {
	h := mailevents.SendIDHeaders("7f1c2c1e-1111-4a4a-9b9b-000000000001")
	want := map[string]string{
		"X-SMTPAPI":             `{"unique_args":{"send_id":"7f1c2c1e-1111-4a4a-9b9b-000000000001"}}`,
		"X-Mailgun-Variables":   `{"send_id":"7f1c2c1e-1111-4a4a-9b9b-000000000001"}`,
		"X-PM-Metadata-send_id": "7f1c2c1e-1111-4a4a-9b9b-000000000001",
		"X-SES-MESSAGE-TAGS":    "send_id=7f1c2c1e-1111-4a4a-9b9b-000000000001",
	}
	if d := cmp.Diff(want, h); d != "" {
		t.Error(d)
	}
	for _, bad := range []string{"", `a"b`, "a b", "a\r\nb", strings.Repeat("a", 101)} {
		if h := mailevents.SendIDHeaders(bad); h != nil {
			t.Errorf("SendIDHeaders(%q) = %v, want nil", bad, h)
		}
	}
}

func ExampleParseGeneric() {
	evs, err := mailevents.ParseGeneric([]byte(`{"type":"bounced","event_id":"e-1","message_id":"<m1@shop.example>","detail":"550 5.1.1 bob@customer.example unknown"}`))
	fmt.Println(evs[0].Type, evs[0].MessageID, evs[0].Hard, evs[0].Detail, err)
	// Output: bounced m1@shop.example true 550 5.1.1 address unknown <nil>
}

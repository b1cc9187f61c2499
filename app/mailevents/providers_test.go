package mailevents_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"reviewd/app/mailevents"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// rk is the recipient part of SES event ids: the first 8 bytes of the SHA-256 of
// the lower-cased address, in hex.
func rk(addr string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(addr)))
	return hex.EncodeToString(sum[:8])
}

var timeEqual = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

func TestParseSendGrid(t *testing.T) {
	got, err := mailevents.ParseSendGrid(fixture(t, "sendgrid_batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1780308000, 0)
	ev := func(typ, id, detail string, hard bool) mailevents.Event {
		return mailevents.Event{Type: typ, EventID: id, MessageID: "inv-1@reviews.shop.example",
			ProviderMessageID: "14c5d75ce93", SendID: "7f1c2c1e-1111-4a4a-9b9b-000000000001",
			Address: "ayse@customer.example", Detail: detail, Hard: hard, OccurredAt: at}
	}
	want := []mailevents.Event{
		ev("", "sg-processed-1", "processed", false),
		ev("delivered", "sg-delivered-1", "250 2.0.0 OK 1780308000 x1si", false),
		ev("deferred", "sg-deferred-1", "451 4.7.1 Greylisted, try again later attempt 1", false),
		ev("bounced", "sg-bounce-1", "bounce 5.1.1 550 5.1.1 <address>: Recipient address rejected: User unknown", true),
		ev("bounced", "sg-blocked-1", "blocked 5.7.1 550 5.7.1 Message blocked by policy", false),
		ev("bounced", "sg-dropped-1", "dropped Bounced Address", true),
		ev("bounced", "sg-dropped-2", "dropped Spam Content", false),
		ev("complained", "sg-spam-1", "", false),
		ev("opened", "sg-open-1", "machine_open", false),
		ev("", "sg-click-1", "click", false),
		ev("unsubscribed", "sg-unsub-1", "", false),
		ev("unsubscribed", "sg-gunsub-1", "group 42", false),
		ev("", "sg-gresub-1", "group_resubscribe", false),
	}
	// Without smtp-id and sg_event_id: the provider id is the message id and a
	// payload hash the event id.
	last := ev("delivered", "", "250 OK", false)
	last.MessageID, last.SendID = "14c5d75ce93", ""
	want = append(want, last)
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	if !strings.HasPrefix(got[len(got)-1].EventID, "sha256:") {
		t.Errorf("event without sg_event_id got id %q", got[len(got)-1].EventID)
	}
	got[len(got)-1].EventID = ""
	if d := cmp.Diff(want, got, timeEqual); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}

	// The same bytes give the same hash id: a retried batch de-duplicates.
	again, _ := mailevents.ParseSendGrid(fixture(t, "sendgrid_batch.json"))
	first, _ := mailevents.ParseSendGrid(fixture(t, "sendgrid_batch.json"))
	if again[len(again)-1].EventID != first[len(first)-1].EventID {
		t.Error("hash id not stable")
	}
}

func TestParseMailgun(t *testing.T) {
	base := mailevents.Event{EventID: "CPgfbmQMTCKtHW6uIWtuVe:1780308000.123456", MessageID: "inv-1@reviews.shop.example",
		ProviderMessageID: "inv-1@reviews.shop.example", SendID: "7f1c2c1e-1111-4a4a-9b9b-000000000002",
		Address: "ayse@customer.example", OccurredAt: time.Unix(1780308000, 123456000)}
	cases := []struct {
		file   string
		typ    string
		detail string
		hard   bool
	}{
		{"mailgun_delivered.json", "delivered", "250 OK", false},
		{"mailgun_failed_permanent.json", "bounced", "permanent bounce 550 5.1.1 5.1.1 The email account that you tried to reach does not exist: address", true},
		{"mailgun_failed_temporary.json", "deferred", "temporary greylisted 451 4.7.1 Greylisted", false},
		{"mailgun_rejected.json", "bounced", "rejected suppress-bounce Not delivering to previously bounced address", false},
		{"mailgun_opened.json", "opened", "", false},
		{"mailgun_complained.json", "complained", "", false},
		{"mailgun_unsubscribed.json", "unsubscribed", "", false},
		{"mailgun_clicked.json", "", "clicked", false},
		{"mailgun_accepted.json", "", "accepted", false},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			got, err := mailevents.ParseMailgun(fixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			want := base
			want.Type, want.Detail, want.Hard = tc.typ, tc.detail, tc.hard
			if d := cmp.Diff([]mailevents.Event{want}, got, timeEqual); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	got, err := mailevents.ParseMailgun(fixture(t, "mailgun_no_id.json"))
	if err != nil || got[0].EventID != "tok-without-id-0000000000000000000000000000000000" {
		t.Errorf("without id: %v %+v", err, got)
	}
}

func TestVerifyMailgun(t *testing.T) {
	const key = "mailgun-test-signing-key"
	raw := fixture(t, "mailgun_delivered.json")
	if !mailevents.VerifyMailgunPayload(key, raw) {
		t.Fatal("valid signature refused")
	}
	if mailevents.VerifyMailgunPayload("other-key", raw) {
		t.Error("wrong key accepted")
	}
	if mailevents.VerifyMailgunPayload("", raw) {
		t.Error("empty key accepted")
	}
	tampered := strings.Replace(string(raw), `"timestamp": "1780308000"`, `"timestamp": "1780308001"`, 1)
	if tampered == string(raw) || mailevents.VerifyMailgunPayload(key, []byte(tampered)) {
		t.Error("changed timestamp accepted")
	}
	if mailevents.VerifyMailgun(key, "1780308000", "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0", "zz") {
		t.Error("non-hex signature accepted")
	}
	if mailevents.VerifyMailgunPayload(key, []byte(`{"event-data":{}}`)) {
		t.Error("body without signature accepted")
	}
}

func TestParsePostmark(t *testing.T) {
	const mid = "883953f4-6105-42a2-a16a-77a8eac79483"
	cases := []struct {
		file   string
		typ    string
		id     string
		detail string
		hard   bool
		at     string
	}{
		{"postmark_delivery.json", "delivered", "Delivery:" + mid + ":2026-06-01T10:05:00Z", "Test delivery webhook details", false, "2026-06-01T10:05:00Z"},
		{"postmark_bounce_hard.json", "bounced", "4323372036854775807", "HardBounce The server was unable to deliver your message (ex: unknown user, mailbox not found). smtp;550 5.1.1 The email account that you tried to reach does not exist <address>", true, "2026-06-01T10:06:00Z"},
		{"postmark_bounce_transient.json", "deferred", "1002", "Transient The server could not temporarily deliver your message. smtp;451 4.4.1 try later", false, "2026-06-01T10:06:00Z"},
		{"postmark_bounce_soft.json", "bounced", "5096", "SoftBounce Unable to temporarily deliver this email message (ex: mailbox full). smtp;452 4.2.2 mailbox full", false, "2026-06-01T10:06:00Z"},
		{"postmark_bounce_unsubscribe.json", "unsubscribed", "1016", "Unsubscribe Unsubscribe or Remove request.", false, "2026-06-01T10:06:00Z"},
		{"postmark_bounce_autoresponder.json", "", "1032", `AutoResponder Automatic email responder (ex: "Out of Office" or "On Vacation").`, false, "2026-06-01T10:06:00Z"},
		{"postmark_spamcomplaint.json", "complained", "5512", "SpamComplaint The subscriber explicitly marked this message as spam.", false, "2026-06-01T10:06:00Z"},
		{"postmark_open.json", "opened", "Open:" + mid + ":2026-06-01T11:00:00Z", "", false, "2026-06-01T11:00:00Z"},
		{"postmark_click.json", "", "Click:" + mid + ":2026-06-01T11:01:00Z", "Click", false, "2026-06-01T11:01:00Z"},
		{"postmark_subscription_change.json", "unsubscribed", "SubscriptionChange:" + mid + ":2026-06-01T12:00:00Z", "ManualSuppression Recipient", false, "2026-06-01T12:00:00Z"},
		{"postmark_subscription_reactivate.json", "", "SubscriptionChange:" + mid + ":2026-06-02T12:00:00Z", "Customer", false, "2026-06-02T12:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			got, err := mailevents.ParsePostmark(fixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			want := []mailevents.Event{{Type: tc.typ, EventID: tc.id, MessageID: mid, ProviderMessageID: mid,
				SendID: "7f1c2c1e-1111-4a4a-9b9b-000000000003", Address: "ayse@customer.example",
				Detail: tc.detail, Hard: tc.hard, OccurredAt: ts(tc.at)}}
			if d := cmp.Diff(want, got, timeEqual); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseSES(t *testing.T) {
	const (
		header  = "inv-1@reviews.shop.example"
		sesID   = "0102018f-ses-message-id-000001"
		sendID  = "7f1c2c1e-1111-4a4a-9b9b-000000000004"
		snsBase = "d9b8e7a6-1111-5f5f-8c8c-0000000000"
		ayse    = "ayse@customer.example"
		bob     = "bob@customer.example"
	)
	ev := func(typ, sns, addr, detail string, hard bool, at string) mailevents.Event {
		return mailevents.Event{Type: typ, EventID: snsBase + sns + ":" + rk(addr), MessageID: header,
			ProviderMessageID: sesID, SendID: sendID, Address: addr, Detail: detail, Hard: hard, OccurredAt: ts(at)}
	}
	cases := []struct {
		file string
		want []mailevents.Event
	}{
		{"ses_bounce_permanent.json", []mailevents.Event{
			ev("bounced", "01", ayse, "Permanent General 5.1.1 smtp; 550 5.1.1 user unknown", true, "2026-06-01T10:01:00Z"),
			ev("bounced", "01", bob, "Permanent General 5.1.1 smtp; 550 5.1.1 <address> no such user", true, "2026-06-01T10:01:00Z"),
		}},
		{"ses_bounce_transient.json", []mailevents.Event{
			ev("bounced", "02", ayse, "Transient MailboxFull 4.2.2 smtp; 452 4.2.2 mailbox full", false, "2026-06-01T10:02:00Z")}},
		{"ses_complaint.json", []mailevents.Event{ev("complained", "03", ayse, "abuse", false, "2026-06-01T10:03:30Z")}},
		{"ses_complaint_notspam.json", []mailevents.Event{ev("", "04", ayse, "not-spam", false, "2026-06-01T10:03:40Z")}},
		{"ses_delivery.json", []mailevents.Event{ev("delivered", "05", ayse, "250 ok: Message 64111812 accepted", false, "2026-06-01T10:00:05Z")}},
		{"ses_delivery_delay.json", []mailevents.Event{
			ev("deferred", "06", ayse, "TransientCommunicationFailure 4.4.1 smtp; 421 4.4.1 Unable to connect", false, "2026-06-01T10:30:00Z")}},
		{"ses_open.json", []mailevents.Event{ev("opened", "07", ayse, "", false, "2026-06-01T11:00:00Z")}},
		{"ses_reject.json", []mailevents.Event{ev("bounced", "08", ayse, "rejected Bad content", false, "2026-06-01T10:00:00Z")}},
		{"ses_subscription.json", []mailevents.Event{ev("unsubscribed", "09", ayse, "UnsubscribeHeader", false, "2026-06-01T12:00:00Z")}},
		{"ses_send.json", []mailevents.Event{ev("", "10", ayse, "Send", false, "2026-06-01T10:00:00Z")}},
		{"ses_click.json", []mailevents.Event{ev("", "11", ayse, "Click", false, "2026-06-01T11:05:00Z")}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			got, err := mailevents.ParseSES(fixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, timeEqual); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}

	t.Run("raw message delivery", func(t *testing.T) {
		got, err := mailevents.ParseSES(fixture(t, "ses_raw_bounce.json"))
		if err != nil || len(got) != 1 {
			t.Fatalf("%v %+v", err, got)
		}
		if got[0].Type != "bounced" || !got[0].Hard || got[0].Address != ayse || !strings.HasPrefix(got[0].EventID, "sha256:") {
			t.Errorf("%+v", got[0])
		}
	})
	t.Run("subscription confirmation", func(t *testing.T) {
		evs, err := mailevents.ParseSES(fixture(t, "ses_subscription_confirmation.json"))
		var sc *mailevents.SubscriptionConfirmation
		if evs != nil || !errors.As(err, &sc) || !errors.Is(err, mailevents.ErrSubscriptionConfirmation) {
			t.Fatalf("%v %v", evs, err)
		}
		if sc.TopicArn != "arn:aws:sns:eu-west-1:123456789012:ses-events" ||
			!strings.HasPrefix(sc.SubscribeURL, "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription") {
			t.Errorf("%+v", sc)
		}
		var e *mailevents.Error
		if errors.As(err, &e) {
			t.Error("a confirmation must not look like a refusal")
		}
	})
	t.Run("confirmation pointing elsewhere", func(t *testing.T) {
		_, err := mailevents.ParseSES(fixture(t, "ses_subscription_confirmation_foreign.json"))
		var e *mailevents.Error
		if !errors.As(err, &e) || e.Detail != "field_invalid: SubscribeURL" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("unsubscribe confirmation", func(t *testing.T) {
		evs, err := mailevents.ParseSES(fixture(t, "ses_unsubscribe_confirmation.json"))
		if err != nil || len(evs) != 0 {
			t.Fatalf("%v %v", evs, err)
		}
	})
}

func TestProviderBodiesRefused(t *testing.T) {
	cases := []struct {
		provider, body, detail string
	}{
		{"sendgrid", `not json`, "body_invalid"},
		{"sendgrid", `["x"]`, "body_invalid"},
		{"mailgun", `[]`, "body_invalid"},
		{"mailgun", `{"signature":{}}`, "body_invalid"},
		{"postmark", `"Delivery"`, "body_invalid"},
		{"ses", `{}`, "body_invalid"},
		{"ses", `{"Type":"Notification","MessageId":"m","Message":"not json"}`, "field_invalid: Message"},
		{"ses", `{"Type":"Weird"}`, "field_invalid: Type"},
	}
	for _, tc := range cases {
		t.Run(tc.provider+" "+tc.body, func(t *testing.T) {
			_, err := mailevents.Parse(tc.provider, []byte(tc.body))
			var e *mailevents.Error
			if !errors.As(err, &e) || e.Detail != tc.detail {
				t.Fatalf("err %v, want %q", err, tc.detail)
			}
		})
	}
	if _, err := mailevents.Parse("sparkpost", []byte(`{}`)); !errors.Is(err, mailevents.ErrUnknownProvider) {
		t.Errorf("unknown provider: %v", err)
	}
	// Unknown or oddly typed fields never refuse a provider report: providers
	// would retry it for hours.
	evs, err := mailevents.ParseSendGrid([]byte(`[{"event":"delivered","sg_event_id":7,"email":["x"],"timestamp":"soon","new_field":{"a":1}}]`))
	if err != nil || len(evs) != 1 || evs[0].Type != "delivered" || evs[0].EventID != "7" || !evs[0].OccurredAt.IsZero() {
		t.Errorf("%v %+v", err, evs)
	}
}

func TestProviderDetailsNeverCarryAddresses(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		provider := strings.SplitN(filepath.Base(f), "_", 2)[0]
		evs, _ := mailevents.Parse(provider, raw)
		for _, e := range evs {
			if strings.Contains(e.Detail, "@") || strings.Contains(e.EventID, "@customer.example") {
				t.Errorf("%s: detail %q id %q", f, e.Detail, e.EventID)
			}
		}
	}
}

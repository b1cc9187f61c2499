package mailhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
)

var fuzzProviders = []string{"generic", "sendgrid", "mailgun", "postmark", "ses"}

// FuzzMailEvents: the provider endpoints (with the right access code) and the
// signed generic endpoint never answer 5xx, whatever the body; matched events
// reach the opt-out list and the message log as in production.
func FuzzMailEvents(f *testing.F) {
	env := apptest.New(f, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.NoLimits()
	ctx := context.Background()
	code, err := env.App.Sending.MailAccessCode(ctx)
	if err != nil {
		f.Fatal(err)
	}
	id, secret := env.Password(core.PurposeMailEvents, "")
	// Seeds: testdata/fuzz/<target>/, one recorded report of every provider.
	f.Add(uint8(0), []byte(`{"type": "bounced", "event_id": "e-1", "message_id": "<m@x>", "address": "a@mail.example", "detail": "5.1.1", "occurred_at": "2026-06-01T10:00:00Z"}`))
	f.Add(uint8(0), []byte(`{"events": [{"type": "unsubscribed", "event_id": "e-2", "address": "b@mail.example"}]}`))
	post := func(t testing.TB, which uint8, raw []byte) apptest.Response {
		provider := fuzzProviders[int(which)%len(fuzzProviders)]
		if provider != "generic" {
			return env.Fuzz(t, "POST", "/v1/mail-events/"+provider+"/"+code, raw, map[string]string{"Content-Type": "application/json"})
		}
		ts := env.Clock.T.Format(time.RFC3339)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(raw)
		return env.Fuzz(t, "POST", "/v1/mail-events/generic", raw, map[string]string{"Content-Type": "application/json",
			"X-Service-Secret": id, "X-Service-Timestamp": ts, "X-Service-Signature": hex.EncodeToString(mac.Sum(nil))})
	}
	// The harness reaches the parsers: a signed generic event and a provider's
	// report are accepted.
	if res := post(f, 0, []byte(`{"type": "delivered", "event_id": "e-0", "address": "a@mail.example"}`)); res.Status != 200 {
		f.Fatalf("generic event: %d %s", res.Status, res.Body)
	}
	if res := post(f, 1, []byte(`[{"email": "a@mail.example", "timestamp": 1780477200, "event": "delivered", "sg_event_id": "sg-0"}]`)); res.Status != 200 {
		f.Fatalf("sendgrid event: %d %s", res.Status, res.Body)
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		post(t, which, raw)
	})
}

package mailhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/sending"
	"reviewd/app/sendtest"
)

const appSecret = "0123456789abcdef-app-secret"

// newWAHookEnv is a running installation with WhatsApp configured against the fake
// Graph API and invitations going by WhatsApp.
func newWAHookEnv(t *testing.T) (*hookEnv, *sendtest.Graph) {
	t.Helper()
	g := sendtest.StartGraph(t)
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.Outbound = app.Outbound{Resolve: []string{g.Resolve}, CAFile: g.CAFile}
		c.WhatsApp = app.WhatsApp{PhoneNumberID: "1065550001", AccessToken: "EAAG-test-token", AppSecret: appSecret,
			VerifyToken: "verify-me", APIURL: sendtest.GraphURL, InviteTemplate: "review_invite"}
	})
	env.Channel("web-tr", "TR", "tr")
	env.App.SetPublicURL("https://reviews.example")
	s := sendtest.StartSMTP(t)
	env.App.SetMailer(s.Mailer())
	h := &hookEnv{t: t, env: env, c: env.App, smtp: s, ctx: context.Background()}
	if _, err := env.App.Brand.UpdateSettings(h.ctx, &core.Actor{Via: core.ViaSession, ID: "1", Role: "owner",
		Perms: core.PermsOfRole("owner")}, map[string]json.RawMessage{"invite_delivery": json.RawMessage(`"whatsapp"`)}); err != nil {
		t.Fatal(err)
	}
	return h, g
}

// hubSign is X-Hub-Signature-256 computed independently of reviewd's code.
func hubSign(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (h *hookEnv) hub(body, signature string) apptest.Response {
	h.t.Helper()
	hd := map[string]string{}
	if signature != "" {
		hd["X-Hub-Signature-256"] = signature
	}
	return h.env.Do("POST", "/v1/messaging/whatsapp", body, hd)
}

// statusBody is a webhook body in Meta's format with one status event.
func statusBody(wamid, status, recipient string, ts int64, errCode int) string {
	errs := ""
	if errCode != 0 {
		errs = fmt.Sprintf(`,"errors":[{"code":%d,"title":"Message undeliverable."}]`, errCode)
	}
	return fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{
		"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"1065550001"},
		"statuses":[{"id":%q,"status":%q,"timestamp":"%d","recipient_id":%q%s}]},"field":"messages"}]}]}`,
		wamid, status, ts, recipient, errs)
}

// textBody is a webhook body with one incoming text message.
func textBody(from, text string) string {
	return fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{
		"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"1065550001"},
		"contacts":[{"profile":{"name":"Ayşe"},"wa_id":%q}],
		"messages":[{"from":%q,"id":"wamid.IN%s","timestamp":"1780000000","type":"text","text":{"body":%q}}]},
		"field":"messages"}]}]}`, from, from, from, text)
}

// TestWhatsAppHandshake: the subscription check answers hub.challenge for the
// configured verify token only.
func TestWhatsAppHandshake(t *testing.T) {
	h, _ := newWAHookEnv(t)
	q := url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"verify-me"}, "hub.challenge": {"1158201444"}}
	res := h.env.Do("GET", "/v1/messaging/whatsapp?"+q.Encode(), nil, nil)
	if res.Status != 200 || string(res.Body) != "1158201444" {
		t.Fatalf("handshake: %s", res)
	}
	q.Set("hub.verify_token", "verify-you")
	apptest.Expect(t, h.env.Do("GET", "/v1/messaging/whatsapp?"+q.Encode(), nil, nil), 403, "forbidden / verify_token_invalid")
}

// TestWhatsAppSignature: an unsigned body, a wrong signature and a signature with
// another secret are refused; nothing is recorded.
func TestWhatsAppSignature(t *testing.T) {
	h, _ := newWAHookEnv(t)
	body := textBody("905321234567", "STOP")
	for name, sig := range map[string]string{
		"unsigned":     "",
		"garbage":      "sha256=zz",
		"no prefix":    strings.TrimPrefix(hubSign(appSecret, body), "sha256="),
		"other secret": hubSign("another-secret", body),
		"other body":   hubSign(appSecret, body+" "),
		"sha1":         "sha1=" + strings.TrimPrefix(hubSign(appSecret, body), "sha256="),
	} {
		apptest.Expect(t, h.hub(body, sig), 401, "signature_refused / signature_invalid")
		if h.optedOut("+905321234567") {
			t.Fatalf("%s: a refused body opted the number out", name)
		}
	}
	apptest.Expect(t, h.hub("", ""), 401, "signature_refused / signature_invalid")
	res := h.hub(body, hubSign(appSecret, body))
	if res.Status != 200 || !h.optedOut("+905321234567") {
		t.Fatalf("signed stop: %s", res)
	}
	// The body is bounded before it is read.
	big := `{"object":"whatsapp_business_account","pad":"` + strings.Repeat("x", 1<<20) + `"}`
	apptest.Expect(t, h.hub(big, hubSign(appSecret, big)), 413, "invalid / body_too_large")
}

// TestWhatsAppStatusEvents: status events become the last status of the message
// in the message log; a late "sent" does not undo "read"; a failure carries its
// reason.
func TestWhatsAppStatusEvents(t *testing.T) {
	h, g := newWAHookEnv(t)
	inviteByPhone(h, "S-1", "0532 123 45 67")
	inviteByPhone(h, "S-2", "0532 765 43 21")
	reqs := g.Requests()
	if len(reqs) != 2 {
		t.Fatalf("graph requests = %d", len(reqs))
	}
	for _, ev := range []string{
		statusBody("wamid.HBgM00000001", "delivered", "905321234567", 1780000100, 0),
		statusBody("wamid.HBgM00000001", "read", "905321234567", 1780000200, 0),
		statusBody("wamid.HBgM00000001", "sent", "905321234567", 1780000050, 0),
		statusBody("wamid.HBgM00000002", "failed", "905327654321", 1780000300, 131026),
		statusBody("wamid.unknown", "delivered", "905320000000", 1780000300, 0),
	} {
		if res := h.hub(ev, hubSign(appSecret, ev)); res.Status != 200 {
			t.Fatalf("event: %s", res)
		}
	}
	key := h.env.Key("api", "", "read")
	res := h.env.Do("GET", "/admin/v1/send-logs?channel_kind=whatsapp&sort=oldest", nil, map[string]string{"Authorization": "Api-Key " + key})
	items, _ := res.JSON["items"].([]any)
	if res.Status != 200 || len(items) != 2 {
		t.Fatalf("send logs: %s", res)
	}
	first, second := items[0].(map[string]any), items[1].(map[string]any)
	if first["channel_kind"] != "whatsapp" || first["message_id"] != "wamid.HBgM00000001" || first["provider_status"] != "read" ||
		first["recipient"] != "+905321234567" {
		t.Fatalf("first row: %v", first)
	}
	if second["provider_status"] != "failed" || second["error"] != "undeliverable: 131026" {
		t.Fatalf("second row: %v", second)
	}
	// The read message counts as an opened invitation in the funnel.
	day := h.env.Clock.T.Format("2006-01-02")
	res = h.env.Do("GET", "/admin/v1/metrics?from="+day+"&to="+day, nil, map[string]string{"Authorization": "Api-Key " + key})
	funnel, _ := res.JSON["invitations"].(map[string]any)
	if res.Status != 200 || funnel["sent"] != float64(2) || funnel["opened"] != float64(1) {
		t.Fatalf("metrics: %s", res)
	}
}

// inviteByPhone ingests an order with a phone delivered at delivered and runs the
// invitations job when it is due.
func inviteByPhone(h *hookEnv, ext, phone string) {
	h.t.Helper()
	_, err := h.env.App.Orders.IngestOrders(h.ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{Channel: "web-tr",
		ExternalID: ext, PaymentState: "paid", PlacedAt: delivered.Add(-24 * time.Hour).Format(time.RFC3339), CustomerPhone: phone,
		Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1", FulfilmentState: "delivered",
			DeliveredAt: delivered.Format(time.RFC3339)}}}}})
	if err != nil {
		h.t.Fatal(err)
	}
	now := delivered.Add(48 * time.Hour)
	if h.env.Clock.T.After(now) {
		now = h.env.Clock.T
	}
	h.env.Clock.T = now
	run, err := h.env.App.Sending.RunInvitations(h.ctx, now)
	if err != nil || run.Sent != 1 {
		h.t.Fatalf("invitations job: %+v, %v", run, err)
	}
}

// TestWhatsAppStopWords: STOP, DUR, IPTAL and İPTAL in any case put the sender's
// number on the opt-out list with channel_kind whatsapp; other texts do not. The
// opt-out lookup finds the number in local and international form, and the export
// gives phone rows a keyed hash.
func TestWhatsAppStopWords(t *testing.T) {
	h, _ := newWAHookEnv(t)
	stops := map[string]string{"905320000001": "STOP", "905320000002": "dur", "905320000003": "İPTAL", "905320000004": "iptal ",
		"905320000005": "İptal", "905320000006": "IPTAL", "905320000007": "Dur."}
	for from, text := range stops {
		body := textBody(from, text)
		if res := h.hub(body, hubSign(appSecret, body)); res.Status != 200 || res.JSON["opted_out"] != float64(1) {
			t.Fatalf("%q: %s", text, res)
		}
	}
	for i, text := range []string{"stop it", "hello", "Durum nedir?", "iptal etmek istiyorum"} {
		from := fmt.Sprintf("90532000010%d", i)
		body := textBody(from, text)
		if res := h.hub(body, hubSign(appSecret, body)); res.Status != 200 || res.JSON["opted_out"] != float64(0) {
			t.Fatalf("%q: %s", text, res)
		}
	}
	list, err := h.c.DB.Read().ListOptOuts(h.ctx)
	if err != nil || len(list) != len(stops) {
		t.Fatalf("opt-outs = %+v, %v", list, err)
	}
	for _, o := range list {
		if o.ChannelKind != "whatsapp" || !strings.HasPrefix(o.Address, "+90532000000") {
			t.Fatalf("opt-out row %+v", o)
		}
	}

	key := h.env.Key("api", "", "read", "export")
	auth := map[string]string{"Authorization": "Api-Key " + key}
	res := h.env.Do("POST", "/admin/v1/opt-outs/check", map[string]any{"addresses": []string{"0532 000 00 01", "+90 532 000 0002",
		"0532 000 00 09", "ayse@mail.example"}}, auth)
	rows, _ := res.JSON["opted_out"].([]any)
	if res.Status != 200 || len(rows) != 2 {
		t.Fatalf("check: %s", res)
	}
	for _, r := range rows {
		m := r.(map[string]any)
		if m["channel_kind"] != "whatsapp" || (m["address"] != "0532 000 00 01" && m["address"] != "+90 532 000 0002") {
			t.Fatalf("check row %v", m)
		}
	}
	res = h.env.Do("GET", "/admin/v1/opt-outs/export?format=json", nil, auth)
	if res.Status != 200 {
		t.Fatalf("export: %s", res)
	}
	if !strings.Contains(string(res.Body), h.c.Keys.PhoneHash("+905320000001")) {
		t.Fatalf("export without the keyed hash: %s", res.Body)
	}
	plain := sha256.Sum256([]byte("+905320000001"))
	if strings.Contains(string(res.Body), hex.EncodeToString(plain[:])) {
		t.Fatal("phone row hashed with plain SHA-256")
	}

	// An opted-out number gets no WhatsApp message: the e-mail goes instead.
	_, err = h.env.App.Orders.IngestOrders(h.ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{Channel: "web-tr",
		ExternalID: "O-1", PaymentState: "paid", PlacedAt: delivered.Add(-24 * time.Hour).Format(time.RFC3339),
		CustomerPhone: "0532 000 00 03", CustomerEmail: "o1@mail.example",
		Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1", FulfilmentState: "delivered",
			DeliveredAt: delivered.Format(time.RFC3339)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	h.env.Clock.T = delivered.Add(48 * time.Hour)
	if _, err := h.env.App.Sending.RunInvitations(h.ctx, h.env.Clock.T); err != nil {
		t.Fatal(err)
	}
	o, _ := h.c.DB.Read().OrderByExternalID(h.ctx, "O-1")
	inv, _ := h.c.DB.Read().InvitationOfOrder(h.ctx, o.ID, sending.MsgInvitation)
	if inv.Route != "email" || inv.State != sending.StateSent {
		t.Fatalf("invitation = %+v", inv)
	}
}

// TestWhatsAppWebhookOff: without WhatsApp configured the routes answer 404, as in
// v1.
func TestWhatsAppWebhookOff(t *testing.T) {
	h := newHookEnv(t)
	body := textBody("905321234567", "STOP")
	apptest.Expect(t, h.hub(body, hubSign("", body)), 404, "not_found / not_found")
	apptest.Expect(t, h.env.Do("GET", "/v1/messaging/whatsapp?hub.mode=subscribe&hub.verify_token=&hub.challenge=1", nil, nil), 404, "not_found / not_found")
}

package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/orders"
	"reviewd/app/sendtest"
)

func newWhatsAppAdminEnv(t *testing.T) (*apptest.Env, *sendtest.Graph) {
	t.Helper()
	g := sendtest.StartGraph(t)
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.Outbound = app.Outbound{Resolve: []string{g.Resolve}, CAFile: g.CAFile}
		c.WhatsApp = app.WhatsApp{PhoneNumberID: "1065550001", AccessToken: "EAAG-test-token", AppSecret: "s",
			APIURL: sendtest.GraphURL, InviteTemplate: "review_invite"}
	})
	env.Channel("web-tr", "TR", "tr")
	env.User(access.NewUser{Username: "owner", Email: "owner@shop.example", Role: "owner", Password: "correct horse battery staple"})
	return env, g
}

// TestWhatsAppTestMessage: a panel owner sends the invitation template to a number
// typed in local form; a key is refused, a bad number and Meta's refusal answer
// their codes.
func TestWhatsAppTestMessage(t *testing.T) {
	env, g := newWhatsAppAdminEnv(t)
	b := newBrowser(t, env)
	expect(t, b.signIn("owner", "correct horse battery staple"), 200, "")
	res := b.do("POST", "/admin/v1/settings/whatsapp-test", map[string]string{"phone": "0532 123 45 67"}, true)
	if res.Status != 200 || res.JSON["to"] != "+905321234567" || res.JSON["message_id"] != "wamid.HBgM00000001" {
		t.Fatalf("test message: %s", res)
	}
	if reqs := g.Requests(); len(reqs) != 1 || reqs[0].Body.To != "905321234567" || reqs[0].Body.Template.Name != "review_invite" ||
		reqs[0].Body.Template.Language.Code != "tr" {
		t.Fatalf("graph requests = %+v", reqs)
	}
	expect(t, b.do("POST", "/admin/v1/settings/whatsapp-test", map[string]string{"phone": "12"}, true), 400, "invalid / phone")
	g.Fail(sendtest.GraphError{Status: http.StatusUnauthorized, Code: 190})
	expect(t, b.do("POST", "/admin/v1/settings/whatsapp-test", map[string]string{"phone": "+44 7911 123456"}, true), 502,
		"whatsapp_failed / token_invalid: 190")
	key := env.Key("api", "", "read", "write")
	expect(t, env.Do("POST", "/admin/v1/settings/whatsapp-test", map[string]string{"phone": "0532 123 45 67"},
		map[string]string{"Authorization": "Api-Key " + key}), 403, "")

	// Without WhatsApp the route refuses.
	off := newPanelEnv(t)
	off.User(access.NewUser{Username: "owner", Email: "owner@shop.example", Role: "owner", Password: "correct horse battery staple"})
	ob := newBrowser(t, off)
	expect(t, ob.signIn("owner", "correct horse battery staple"), 200, "")
	expect(t, ob.do("POST", "/admin/v1/settings/whatsapp-test", map[string]string{"phone": "0532 123 45 67"}, true), 400,
		"invalid / whatsapp_unavailable")
}

// TestWhatsAppDeliveryFigures: /admin/v1/metrics and /admin/v1/overview count the
// attempts per route once WhatsApp is configured, and carry no deliveries without.
func TestWhatsAppDeliveryFigures(t *testing.T) {
	env, g := newWhatsAppAdminEnv(t)
	ctx := context.Background()
	owner := &core.Actor{Via: core.ViaSession, ID: "1", Role: "owner", Perms: core.PermsOfRole("owner")}
	if _, err := env.App.Brand.UpdateSettings(ctx, owner, map[string]json.RawMessage{"invite_delivery": json.RawMessage(`"whatsapp"`),
		"invite_delay_days": json.RawMessage(`0`)}); err != nil {
		t.Fatal(err)
	}
	at := env.Clock.T.Add(-time.Hour)
	for i, phone := range []string{"0532 100 00 01", "0532 100 00 02"} {
		_, err := env.App.Orders.IngestOrders(ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{Channel: "web-tr",
			ExternalID: "M-" + string(rune('1'+i)), PaymentState: "paid", PlacedAt: at.Add(-time.Hour).Format(time.RFC3339),
			CustomerPhone: phone, Items: []orders.LineInput{{LineReference: "L1", VariantKey: "SKU-1", FulfilmentState: "delivered",
				DeliveredAt: at.Format(time.RFC3339)}}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	g.Fail(sendtest.GraphError{Status: http.StatusBadRequest, Code: 131026})
	if _, err := env.App.Sending.RunInvitations(ctx, env.Clock.T); err != nil {
		t.Fatal(err)
	}
	auth := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read")}
	day := env.Clock.T.Format("2006-01-02")
	res := env.Do("GET", "/admin/v1/metrics?from="+day+"&to="+day, nil, auth)
	d, _ := res.JSON["deliveries"].(map[string]any)
	wa, _ := d["whatsapp"].(map[string]any)
	if res.Status != 200 || wa["sent"] != float64(1) || wa["failed"] != float64(1) || d["email"] == nil {
		t.Fatalf("metrics: %s", res)
	}
	res = env.Do("GET", "/admin/v1/overview", nil, auth)
	d, _ = res.JSON["deliveries"].(map[string]any)
	if wa, _ := d["whatsapp"].(map[string]any); res.Status != 200 || wa["sent"] != float64(1) {
		t.Fatalf("overview: %s", res)
	}

	off := newPanelEnv(t)
	oauth := map[string]string{"Authorization": "Api-Key " + off.Key("api", "", "read")}
	for _, p := range []string{"/admin/v1/metrics", "/admin/v1/overview"} {
		if res := off.Do("GET", p, nil, oauth); res.Status != 200 || res.JSON["deliveries"] != nil {
			t.Fatalf("%s without WhatsApp: %s", p, res)
		}
	}
}

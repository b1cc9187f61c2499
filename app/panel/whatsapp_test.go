package panel_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/app/sendtest"
)

// TestWhatsAppSettingsPage: with WhatsApp configured the sending settings offer
// the whatsapp route, the e-mail fallback and a test message to a typed number;
// the overview shows the messages per route. Without it, none of these appear.
func TestWhatsAppSettingsPage(t *testing.T) {
	g := sendtest.StartGraph(t)
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.Outbound = app.Outbound{Resolve: []string{g.Resolve}, CAFile: g.CAFile}
		c.WhatsApp = app.WhatsApp{PhoneNumberID: "1065550001", AccessToken: "EAAG-test-token", AppSecret: "s",
			APIURL: sendtest.GraphURL, InviteTemplate: "review_invite"}
	})
	env.Channel("web", "GB", "en")
	env.User(access.NewUser{Username: "olive", Email: "olive@example.com", Role: "owner", Password: "owner-password-1"})
	b := newBrowser(t, env)
	csrf := b.signIn("olive", "owner-password-1")
	p := b.do("GET", "/panel/settings", nil, nil)
	for _, want := range []string{`<option value="whatsapp">whatsapp</option>`, `name="whatsapp_fallback_email" value="1" checked`,
		`action="/panel/settings/whatsapp-test"`} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("settings page lacks %q:\n%.2000s", want, p.body)
		}
	}
	res := b.do("POST", "/panel/settings", url.Values{"csrf": {csrf}, "invite_delivery": {"whatsapp"},
		"whatsapp_fallback_email_shown": {"1"}}, nil)
	if res.status != http.StatusSeeOther {
		t.Fatalf("save: %d\n%.300s", res.status, res.body)
	}
	s, _ := env.App.Brand.SettingsOf(context.Background())
	if s.InviteDelivery != "whatsapp" || s.WhatsAppFallbackEmail == nil || *s.WhatsAppFallbackEmail {
		t.Fatalf("settings after save: %+v", s)
	}
	res = b.do("POST", "/panel/settings/whatsapp-test", url.Values{"csrf": {csrf}, "phone": {"07911 123456"}}, nil)
	if res.status != http.StatusSeeOther || res.location != "/panel/settings?notice=whatsapp_test_sent" {
		t.Fatalf("test message: %d %q\n%.300s", res.status, res.location, res.body)
	}
	if reqs := g.Requests(); len(reqs) != 1 || reqs[0].Body.To != "447911123456" || reqs[0].Body.Template.Language.Code != "en" {
		t.Fatalf("graph requests = %+v", reqs)
	}
	res = b.do("POST", "/panel/settings/whatsapp-test", url.Values{"csrf": {csrf}, "phone": {"123"}}, nil)
	if res.status != http.StatusBadRequest {
		t.Fatalf("bad number: %d", res.status)
	}
	if ov := b.do("GET", "/panel/", nil, nil); !strings.Contains(ov.body, "data-deliveries") || !strings.Contains(ov.body, "<td>whatsapp</td>") {
		t.Fatalf("overview without the route figures:\n%.1500s", ov.body)
	}

	f := newFixture(t)
	ob := newBrowser(t, f.env)
	ob.signIn("olive", "owner-password-1")
	if p := ob.do("GET", "/panel/settings", nil, nil); strings.Contains(p.body, "whatsapp") {
		t.Fatal("settings page mentions whatsapp without it configured")
	}
	if ov := ob.do("GET", "/panel/", nil, nil); strings.Contains(ov.body, "data-deliveries") {
		t.Fatal("overview shows route figures without WhatsApp")
	}
}

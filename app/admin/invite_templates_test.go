package admin_test

import (
	"strings"
	"testing"
	"time"

	"reviewd/app/sendtest"
)

// brandHTML is a template a brand might write, with things reviewd must not send.
const brandHTML = `<h1 onclick="steal()">Merhaba {{customer_name}}!</h1>
<script>alert(document.cookie)</script>
<p style="color:#c00">{{brand}} ailesine hoş geldiniz. <a href="javascript:alert(1)">tıkla</a>
<a href="https://shop.example/kampanya">Kampanyalar</a></p>
<iframe src="https://evil.example"></iframe>
{{products}}
<img src="https://cdn.shop.example/logo.png" width="120" height="40" alt="Acme">
<img src="http://cdn.shop.example/insecure.png" width="120" height="40">
{{review_button}}
<p>Teşekkürler</p>`

// TestInviteTemplates: saving and its refusals (every template code of spec 3),
// the list, the preview, deleting, and the sending path using the matching
// template (channel first), with the built-in e-mail where none matches.
func TestInviteTemplates(t *testing.T) {
	o := newOwnerEnv(t)
	env := o.env
	env.Channel("web-de", "DE", "en")
	smtp := sendtest.StartSMTP(t)
	env.App.SetMailer(smtp.Mailer())

	res := env.Do("GET", "/admin/v1/invite-templates", nil, o.write)
	expect(t, res, 200, "")
	if items := res.JSON["items"].([]any); len(items) != 0 || len(res.JSON["placeholders"].([]any)) != 6 {
		t.Fatalf("empty list = %s", res)
	}
	expect(t, env.Do("GET", "/admin/v1/invite-templates", nil, o.read), 403, "forbidden / scope_missing")

	base := map[string]any{"type": "invitation", "language": "tr", "channel": "web-tr", "subject": "{{brand}}: siparişiniz nasıldı?",
		"html": brandHTML}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	for _, c := range []struct {
		body map[string]any
		code string
	}{
		{with("html", "<p>Yorum yazın: {{review_url}}</p>"), "invalid / cta_required"},
		{with("html", `<p>{{review_button}}</p><img src="https://t.example/o.gif" width="1" height="1">`), "invalid / image_tracking"},
		{with("html", `<p>{{review_button}}</p><img src="https://t.example/o.gif" style="display:none">`), "invalid / image_tracking"},
		{with("html", `<p style="background:url(https://t.example/o.gif)">{{review_button}}</p>`), "invalid / image_tracking"},
		{with("html", `<style>@import url(https://fonts.example/x.css); p{color:red}</style><p>{{review_button}}</p>`), "invalid / style_import"},
		{with("html", `<p style="@import 'x'">{{review_button}}</p>`), "invalid / style_import"},
		// A filled value is HTML-escaped, not CSS-escaped: no placeholder in a style.
		{with("html", `<p style="color:{{customer_name}}">{{review_button}}</p>`), "invalid / placeholder_unknown"},
		{with("html", `<style>p{font-family:{{brand}}}</style><p>{{review_button}}</p>`), "invalid / placeholder_unknown"},
		{with("html", `<p>{{review_button}} {{coupon}}</p>`), "invalid / placeholder_unknown"},
		{with("type", "newsletter"), "invalid / type"},
		{with("language", "de"), "invalid / language"},
		{with("channel", "nope"), "invalid / channel"},
		{with("market", "DE"), "invalid / channel_market_mismatch"},
		{with("market", "tr"), "invalid / market"},
		{with("subject", ""), "invalid / subject_required"},
		{with("subject", "{{discount}} için yorum"), "invalid / placeholder_unknown"},
		{with("html", ""), "invalid / html_required"},
	} {
		expect(t, env.Do("POST", "/admin/v1/invite-templates", c.body, o.write), 400, c.code)
	}

	saved := env.Do("POST", "/admin/v1/invite-templates", base, o.write)
	expect(t, saved, 201, "")
	html := saved.JSON["html"].(string)
	for _, bad := range []string{"<script", "onclick", "javascript:", "<iframe", "http://cdn", "document.cookie"} {
		if strings.Contains(html, bad) {
			t.Fatalf("saved html keeps %q: %s", bad, html)
		}
	}
	if !strings.Contains(html, "{{review_button}}") || !strings.Contains(html, `src="https://cdn.shop.example/logo.png"`) ||
		!strings.Contains(html, `href="https://shop.example/kampanya"`) || saved.JSON["channel"] != "web-tr" ||
		saved.JSON["market"] != "TR" || saved.JSON["type"] != "invitation" {
		t.Fatalf("saved = %s", saved)
	}
	id := saved.JSON["id"].(string)
	expect(t, env.Do("POST", "/admin/v1/invite-templates", base, o.write), 400, "invalid / template_scope_taken")
	// A market-wide template of TR and a change of the saved one by id.
	market := with("channel", "")
	market["market"], market["html"] = "TR", "<p>Pazar şablonu {{review_button}}</p>"
	expect(t, env.Do("POST", "/admin/v1/invite-templates", market, o.write), 201, "")
	changed := with("id", id)
	changed["subject"] = "{{brand}}: deneyiminizi paylaşın"
	up := env.Do("POST", "/admin/v1/invite-templates", changed, o.write)
	expect(t, up, 200, "")
	if up.JSON["id"] != id || up.JSON["subject"] != "{{brand}}: deneyiminizi paylaşın" {
		t.Fatalf("changed = %s", up)
	}
	expect(t, env.Do("POST", "/admin/v1/invite-templates", with("id", "tpl_999"), o.write), 404, "not_found / not_found")
	list := env.Do("GET", "/admin/v1/invite-templates", nil, o.write)
	if items := list.JSON["items"].([]any); len(items) != 2 {
		t.Fatalf("list = %s", list)
	}

	// Preview: the saved template, a draft, and the built-in e-mail.
	pv := env.Do("POST", "/admin/v1/invite-templates/preview", map[string]any{"id": id}, o.write)
	expect(t, pv, 200, "")
	if pv.JSON["source"] != "brand" || pv.JSON["subject"] != "Acme: deneyiminizi paylaşın" ||
		!strings.Contains(pv.JSON["html"].(string), "Merhaba Ayşe Yılmaz!") || !strings.Contains(pv.JSON["html"].(string), "Yorum yaz</a>") ||
		!strings.Contains(pv.JSON["text"].(string), "#review_token=preview") || strings.Contains(pv.JSON["html"].(string), "{{") {
		t.Fatalf("preview = %s", pv)
	}
	draft := env.Do("POST", "/admin/v1/invite-templates/preview", map[string]any{"type": "reminder", "language": "en",
		"subject": "Still thinking, {{customer_name}}?", "html": `<p>Hi &lt;b&gt; {{customer_name}}</p>{{review_button}}`}, o.write)
	expect(t, draft, 200, "")
	if draft.JSON["subject"] != "Reminder: Still thinking, Alex Smith?" || strings.Contains(draft.JSON["html"].(string), "<b>") {
		t.Fatalf("draft preview = %s", draft)
	}
	expect(t, env.Do("POST", "/admin/v1/invite-templates/preview", map[string]any{"type": "reminder", "language": "en",
		"subject": "x", "html": "<p>no button</p>"}, o.write), 400, "invalid / cta_required")
	def := env.Do("POST", "/admin/v1/invite-templates/preview", map[string]any{"type": "invitation", "language": "en"}, o.write)
	expect(t, def, 200, "")
	if def.JSON["source"] != "default" || !strings.Contains(def.JSON["text"].(string), "#review_token=preview") {
		t.Fatalf("default preview = %s", def)
	}

	// Sending: the web-tr order gets the channel's template.
	delivered := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	o.sendOrders(t, delivered, map[string]string{"T-1": "ayse@mail.example"})
	msgs := smtp.Messages()
	if len(msgs) != 1 {
		t.Fatalf("invitations sent: %d", len(msgs))
	}
	m := msgs[0]
	if subjectOf(m) != "Acme: deneyiminizi paylaşın" || !strings.Contains(m.HTML, "ailesine hoş geldiniz") ||
		!strings.Contains(m.HTML, "<li>Kettle</li>") || !strings.Contains(m.HTML, "#review_token=") ||
		!strings.Contains(m.HTML, "/v1/unsubscribe?t=") || strings.Contains(m.HTML, "<script") ||
		!strings.Contains(m.Text, "Yorum yaz:") || !strings.Contains(m.Text, "#review_token=") ||
		!strings.Contains(m.Text, "/v1/unsubscribe?t=") || strings.Contains(m.Text, "{{") {
		t.Fatalf("invitation e-mail did not use the brand template: %v", texts(msgs))
	}

	// Deleting the channel template makes the market template apply.
	expect(t, env.Do("DELETE", "/admin/v1/invite-templates/"+id, nil, o.write), 204, "")
	expect(t, env.Do("DELETE", "/admin/v1/invite-templates/"+id, nil, o.write), 404, "")
	o.sendOrders(t, delivered.Add(72*time.Hour), map[string]string{"T-2": "baris@mail.example"})
	msgs = smtp.Messages()
	if len(msgs) != 2 || !strings.Contains(msgs[1].HTML, "Pazar şablonu") {
		t.Fatalf("market template not used: %v", texts(msgs))
	}
	if n := len(activityEntries(t, env, "invite_template.created")); n != 2 {
		t.Fatalf("invite_template.created entries = %d", n)
	}
}

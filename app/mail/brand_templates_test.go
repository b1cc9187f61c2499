package mail_test

import (
	htmlstd "html"
	"strings"
	"testing"

	"reviewd/app/mail"
)

// TestSanitizeTemplate: what a brand template may hold, what is removed and what is
// refused.
func TestSanitizeTemplate(t *testing.T) {
	const cta = "{{review_button}}"
	for _, c := range []struct {
		name, in, problem string
		keep, drop        []string
	}{
		{name: "event handler and bad image", in: `<img src=x onerror=alert(1)><p onclick="x()">Hi</p>` + cta,
			keep: []string{"<p>Hi</p>"}, drop: []string{"onerror", "onclick", "<img"}},
		{name: "script links", in: `<a href="javascript:alert(1)">a</a><a href=" JaVaScRiPt:alert(1)">b</a><a href="data:text/html,x">c</a>` + cta,
			keep: []string{"<a rel=\"noopener\">a</a>"}, drop: []string{"javascript", "JaVaScRiPt", "data:"}},
		{name: "script, svg, math, frames, forms", in: `<script>alert(1)</script><svg onload=alert(1)></svg><math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>` +
			`<iframe src="https://x.example"></iframe><form action="https://x.example"><input name=a></form><noscript><img src=x></noscript>` + cta,
			drop: []string{"<script", "alert", "<svg", "<math", "<iframe", "<form", "<input", "<noscript"}},
		{name: "comments and unknown elements", in: `<!-- secret --><custom-el><b>bold</b></custom-el><o:p>word</o:p>` + cta,
			keep: []string{"<b>bold</b>"}, drop: []string{"secret", "custom-el", "o:p"}},
		{name: "links and images kept", in: `<a href="https://shop.example/x" target="_blank">Shop</a><a href="{{review_url}}">Yaz</a>` +
			`<img src="https://cdn.example/logo.png" width="120" height="40" alt="Logo" style="border:0">` + cta,
			keep: []string{`href="https://shop.example/x"`, `href="{{review_url}}"`, `src="https://cdn.example/logo.png"`, `alt="Logo"`, `style="border:0"`},
			drop: []string{"target"}},
		{name: "markup placeholders only in text", in: `<p title="{{review_button}}{{products}}">x</p>` + cta, keep: []string{`<p title="">`}},
		{name: "unsafe style attribute dropped", in: `<p style="width:expression(alert(1))">x</p>` + cta, drop: []string{"expression"}},
		{name: "escaped style dropped", in: `<p style="background:\75 rl(https://t.example/p.gif)">x</p><style>p{background:\75 rl(https://t.example/q.gif)}</style>` + cta,
			drop: []string{"t.example", "<style"}},
		{name: "http image dropped", in: `<img src="http://cdn.example/a.png" width="100">` + cta, drop: []string{"<img"}},
		{name: "tracking pixel", in: `<img src="https://t.example/p.gif" width="1" height="1">` + cta, problem: mail.ProblemTracking},
		{name: "tracking pixel by style", in: `<img src="https://t.example/p.gif" style="width:0px;height:0px">` + cta, problem: mail.ProblemTracking},
		{name: "hidden image", in: `<img src="https://t.example/p.gif" style="visibility:hidden">` + cta, problem: mail.ProblemTracking},
		{name: "placeholder in a style attribute", in: `<p style="color:{{customer_name}}">x</p>` + cta, problem: mail.ProblemPlaceholder},
		{name: "markup placeholder in a style attribute", in: `<p style="{{products}}">x</p>` + cta, problem: mail.ProblemPlaceholder},
		{name: "placeholder in a style element", in: `<style>p{font-family:{{brand}}}</style>` + cta, problem: mail.ProblemPlaceholder},
		{name: "placeholder in an img style", in: `<img src="https://cdn.example/a.png" style="background:{{ review_url }}">` + cta, problem: mail.ProblemPlaceholder},
		{name: "remote style resource", in: `<style>body{background:url(https://t.example/p.gif)}</style>` + cta, problem: mail.ProblemTracking},
		{name: "remote resource in attribute", in: `<div style="behavior:url(x.htc)">` + cta + `</div>`, problem: mail.ProblemTracking},
		{name: "style import", in: `<style>@import "https://fonts.example/a.css";</style>` + cta, problem: mail.ProblemStyleImport},
		{name: "style import, spaced", in: `<style>@ IMPORT url(a.css)</style>` + cta, problem: mail.ProblemStyleImport},
		{name: "no button", in: `<p>Write a review: <a href="{{review_url}}">here</a></p>`, problem: mail.ProblemCTA},
		{name: "button only in an attribute", in: `<p title="{{review_button}}">x</p>`, problem: mail.ProblemCTA},
		{name: "unknown placeholder", in: `<p>{{coupon_code}}</p>` + cta, problem: mail.ProblemPlaceholder},
		{name: "style kept", in: `<style>p { color: #222; }</style>` + cta, keep: []string{"<style>p { color: #222; }</style>"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, problem, err := mail.SanitizeTemplate(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if problem != c.problem {
				t.Fatalf("problem = %q, want %q (out %s)", problem, c.problem, out)
			}
			for _, k := range c.keep {
				if !strings.Contains(out, k) {
					t.Errorf("lost %q: %s", k, out)
				}
			}
			for _, d := range c.drop {
				if strings.Contains(out, d) {
					t.Errorf("kept %q: %s", d, out)
				}
			}
		})
	}
}

// TestRenderBrand: values are escaped, the button, the stop link and the reminder
// prefix are added, the text part is made from the HTML.
func TestRenderBrand(t *testing.T) {
	clean, problem, err := mail.SanitizeTemplate(`<h1>Hello {{customer_name}}</h1><p>Thanks for shopping at {{brand}}.</p>{{products}}{{review_button}}<p><a href="{{unsubscribe_url}}">stop</a></p>`)
	if err != nil || problem != "" {
		t.Fatal(err, problem)
	}
	d := fullData()
	subject, text, html, err := mail.RenderBrand(mail.KindReminder, "en", mail.BrandTemplate{Subject: "{{brand}} asks, {{customer_name}}", HTML: clean}, d)
	if err != nil {
		t.Fatal(err)
	}
	if subject != mail.ReminderPrefix+"Acme & <Co> asks, Ayşe" {
		t.Errorf("subject = %q", subject)
	}
	for _, s := range []string{"Hello Ayşe", "Acme &amp; &lt;Co&gt;", "<li>Kettle &lt;script&gt;alert(1)&lt;/script&gt;</li>", `href="` + htmlstd.EscapeString(reviewURL) + `"`,
		"Write a review</a>", `<a href="` + htmlstd.EscapeString(stopURL) + `"`, `<html lang="en">`} {
		if !strings.Contains(html, s) {
			t.Errorf("html lacks %q:\n%s", s, html)
		}
	}
	if strings.Contains(html, "<script>") {
		t.Errorf("html carries a script:\n%s", html)
	}
	for _, s := range []string{"Hello Ayşe", "Write a review:\n" + reviewURL, "- Kettle <script>alert(1)</script>", stopURL} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	if _, _, _, err := mail.RenderBrand(mail.KindInvitation, "en", mail.BrandTemplate{Subject: "x", HTML: clean}, mail.TemplateData{Brand: "A"}); err == nil {
		t.Error("rendered without the review link")
	}
}

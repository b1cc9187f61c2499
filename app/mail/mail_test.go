package mail_test

import (
	"context"
	"html"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"

	"reviewd/app/mail"
)

const (
	reviewURL = "https://shop.example/reviews?ref=mail&x=1#review_token=tok123"
	stopURL   = "https://reviews.shop.example/v1/stop?t=abc"
)

func invitation(t *testing.T, lang string) (subject, text, htmlBody string) {
	t.Helper()
	s, tx, h, err := mail.Render(mail.KindInvitation, lang, mail.TemplateData{
		Brand: "Shop Example", CustomerName: "Ayşe", Products: []string{"Tea kettle"},
		ReviewURL: reviewURL, UnsubscribeURL: stopURL,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, tx, h
}

func TestSendPlainConnection(t *testing.T) {
	be := &backend{}
	port := startServer(t, be, serverOpts{})
	m := mail.New(mail.Config{Host: "127.0.0.1", Port: port, Security: "none", From: "reviews@shop.example"})
	if !m.Enabled() {
		t.Fatal("mailer with a host must be enabled")
	}
	subject, text, htmlBody := invitation(t, "en")
	id, err := m.Send(ctx(t), mail.Message{
		FromName: "Shop Example", To: "ayse@customer.example", Subject: subject, Text: text, HTML: htmlBody,
		ListUnsubscribeURL: stopURL, Headers: map[string]string{"X-Reviewd-Send": "s-1"},
	})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if strings.ContainsAny(id, "<>") || !strings.HasSuffix(id, "@shop.example") {
		t.Errorf("message id %q: want no brackets and the sender's domain", id)
	}
	msgs := be.messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages, want 1", len(msgs))
	}
	got := msgs[0]
	if got.From != "reviews@shop.example" || len(got.To) != 1 || got.To[0] != "ayse@customer.example" {
		t.Errorf("envelope from %q to %v", got.From, got.To)
	}
	if got.TLS {
		t.Error("security none must not use TLS")
	}
	p := parseMessage(t, got.Data)
	checks := map[string]string{
		"From":                  `"Shop Example" <reviews@shop.example>`,
		"To":                    "<ayse@customer.example>",
		"Message-Id":            "<" + id + ">",
		"List-Unsubscribe":      "<" + stopURL + ">",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"Auto-Submitted":        "auto-generated",
		"X-Reviewd-Send":        "s-1",
	}
	for k, want := range checks {
		if v := p.Header.Get(k); v != want {
			t.Errorf("header %s = %q, want %q", k, v, want)
		}
	}
	if s := decodeHeader(t, p.Header.Get("Subject")); s != subject {
		t.Errorf("subject %q, want %q", s, subject)
	}
	if p.Header.Get("Date") == "" {
		t.Error("Date header missing")
	}
	if p.Type != "multipart/alternative" {
		t.Errorf("content type %q, want multipart/alternative", p.Type)
	}
	if !strings.Contains(p.Text, reviewURL) || !strings.Contains(p.Text, stopURL) {
		t.Errorf("text part lacks the review or stop link:\n%s", p.Text)
	}
	if !strings.Contains(html.UnescapeString(p.HTML), reviewURL) || !strings.Contains(html.UnescapeString(p.HTML), stopURL) {
		t.Errorf("html part lacks the review or stop link:\n%s", p.HTML)
	}
}

func TestSendStartTLSWithLogin(t *testing.T) {
	serverTLS, roots := selfSigned(t)
	be := &backend{user: "relay-user", password: "relay-pass"}
	port := startServer(t, be, serverOpts{tls: serverTLS})
	m := mail.New(mail.Config{Host: "127.0.0.1", Port: port, Security: "starttls", Username: "relay-user",
		Password: "relay-pass", From: "Reviews <reviews@shop.example>", RootCAs: roots})
	subject, text, htmlBody := invitation(t, "tr")
	id, err := m.Send(ctx(t), mail.Message{To: "ayse@customer.example", Subject: subject, Text: text, HTML: htmlBody,
		MessageID: "<inv-42@reviews.shop.example>"})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if id != "inv-42@reviews.shop.example" {
		t.Errorf("id %q, want the given id without brackets", id)
	}
	msgs := be.messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages, want 1", len(msgs))
	}
	if !msgs[0].TLS || msgs[0].User != "relay-user" {
		t.Errorf("tls %v user %q: want a TLS session logged in as relay-user", msgs[0].TLS, msgs[0].User)
	}
	p := parseMessage(t, msgs[0].Data)
	if got := p.Header.Get("Message-Id"); got != "<inv-42@reviews.shop.example>" {
		t.Errorf("Message-ID %q", got)
	}
	if s := decodeHeader(t, p.Header.Get("Subject")); s != subject || !strings.Contains(s, "siparişinizi") {
		t.Errorf("subject %q, want %q", s, subject)
	}
	if p.Header.Get("List-Unsubscribe") != "" {
		t.Error("List-Unsubscribe set without a URL")
	}
	if !strings.Contains(p.Text, reviewURL) || !strings.Contains(p.Text, "Değerlendirme") {
		t.Errorf("text part:\n%s", p.Text)
	}
}

func TestSendImplicitTLS(t *testing.T) {
	serverTLS, roots := selfSigned(t)
	be := &backend{user: "u", password: "p"}
	port := startServer(t, be, serverOpts{tls: serverTLS, implicit: true})
	m := mail.New(mail.Config{Host: "127.0.0.1", Port: port, Security: "tls", Username: "u", Password: "p",
		From: "reviews@shop.example", RootCAs: roots})
	if _, err := m.Send(ctx(t), mail.Message{To: "a@customer.example", Subject: "s", Text: "t"}); err != nil {
		t.Fatalf("send: %v", err)
	}
	msgs := be.messages()
	if len(msgs) != 1 || !msgs[0].TLS || msgs[0].User != "u" {
		t.Fatalf("messages %+v", msgs)
	}
	if p := parseMessage(t, msgs[0].Data); p.Type != "text/plain" || !strings.Contains(p.Text, "t") {
		t.Errorf("text-only message: type %q body %q", p.Type, p.Text)
	}
}

func TestSendRefusesWithoutTrustedTLS(t *testing.T) {
	serverTLS, _ := selfSigned(t)
	cases := []struct {
		name string
		opts serverOpts
	}{
		{"server offers no STARTTLS", serverOpts{}},
		{"certificate not trusted", serverOpts{tls: serverTLS}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			be := &backend{}
			port := startServer(t, be, tc.opts)
			m := mail.New(mail.Config{Host: "127.0.0.1", Port: port, Security: "starttls", From: "r@shop.example"})
			_, err := m.Send(ctx(t), mail.Message{To: "a@customer.example", Subject: "s", Text: "t"})
			se, ok := isErr[*mail.SendError](err)
			if !ok || !se.Temporary || se.Reason != "connection_failed" {
				t.Fatalf("err %v: want a temporary connection_failed SendError", err)
			}
			if n := len(be.messages()); n != 0 {
				t.Errorf("server got %d messages over an unprotected connection", n)
			}
		})
	}
}

func TestSendErrors(t *testing.T) {
	cases := []struct {
		name      string
		be        *backend
		noServer  bool
		temporary bool
		code      int
		reason    string
	}{
		{name: "451 at RCPT", be: &backend{rcptErr: &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0},
			Message: "try again later, ayse@customer.example"}}, temporary: true, code: 451, reason: "smtp_status: 451"},
		{name: "550 at RCPT", be: &backend{rcptErr: &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
			Message: "<ayse@customer.example>: user unknown"}}, code: 550, reason: "smtp_status: 550"},
		{name: "554 after DATA", be: &backend{dataErr: &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0},
			Message: "content rejected"}}, code: 554, reason: "smtp_status: 554"},
		{name: "452 after DATA", be: &backend{dataErr: &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1},
			Message: "insufficient storage"}}, temporary: true, code: 452, reason: "smtp_status: 452"},
		{name: "nothing listening", noServer: true, temporary: true, reason: "connection_failed"},
		{name: "wrong password", be: &backend{user: "u", password: "other"}, temporary: true, code: 535, reason: "connection_failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var cfg mail.Config
			switch {
			case tc.noServer:
				cfg = mail.Config{Host: "127.0.0.1", Port: freePort(t), Security: "none", From: "r@shop.example"}
			case tc.be.user != "":
				serverTLS, roots := selfSigned(t)
				port := startServer(t, tc.be, serverOpts{tls: serverTLS})
				cfg = mail.Config{Host: "127.0.0.1", Port: port, Security: "starttls", From: "r@shop.example",
					Username: "u", Password: "p", RootCAs: roots}
			default:
				port := startServer(t, tc.be, serverOpts{})
				cfg = mail.Config{Host: "127.0.0.1", Port: port, Security: "none", From: "r@shop.example"}
			}
			id, err := mail.New(cfg).Send(ctx(t), mail.Message{To: "ayse@customer.example", Subject: "s", Text: "t"})
			se, ok := isErr[*mail.SendError](err)
			if !ok {
				t.Fatalf("id %q err %v: want a SendError", id, err)
			}
			if id != "" {
				t.Errorf("id %q returned with an error", id)
			}
			if se.Temporary != tc.temporary || se.Code != tc.code || se.Reason != tc.reason {
				t.Errorf("got temporary=%v code=%d reason=%q, want %v %d %q", se.Temporary, se.Code, se.Reason,
					tc.temporary, tc.code, tc.reason)
			}
			if strings.Contains(se.Error(), "customer.example") {
				t.Errorf("error text leaks the recipient: %s", se.Error())
			}
		})
	}
}

func TestSendRefusesBadInput(t *testing.T) {
	be := &backend{}
	port := startServer(t, be, serverOpts{})
	m := mail.New(mail.Config{Host: "127.0.0.1", Port: port, Security: "none", From: "r@shop.example"})
	cases := []struct {
		name      string
		msg       mail.Message
		temporary bool
		reason    string
	}{
		{"recipient not an address", mail.Message{To: "not an address", Subject: "s", Text: "t"}, false, "address_invalid"},
		{"recipient with header break", mail.Message{To: "a@b.example\r\nBcc: c@d.example", Subject: "s", Text: "t"}, false, "address_invalid"},
		{"no text", mail.Message{To: "a@customer.example", Subject: "s"}, false, "message_invalid"},
		{"reserved header", mail.Message{To: "a@customer.example", Subject: "s", Text: "t", Headers: map[string]string{"bcc": "x@y.example"}}, false, "message_invalid"},
		{"header value with line break", mail.Message{To: "a@customer.example", Subject: "s", Text: "t", Headers: map[string]string{"X-A": "1\r\nBcc: x@y.example"}}, false, "message_invalid"},
		{"sender missing is a setup problem", mail.Message{From: "nope", To: "a@customer.example", Subject: "s", Text: "t"}, true, "address_invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Send(ctx(t), tc.msg)
			se, ok := isErr[*mail.SendError](err)
			if !ok || se.Temporary != tc.temporary || se.Reason != tc.reason {
				t.Fatalf("err %v: want SendError temporary=%v reason %q", err, tc.temporary, tc.reason)
			}
		})
	}
	if n := len(be.messages()); n != 0 {
		t.Errorf("server got %d messages", n)
	}

	// A subject with a line break is folded into one line, never a new header.
	if _, err := m.Send(ctx(t), mail.Message{To: "a@customer.example", Subject: "Hello\r\nBcc: x@y.example", Text: "t"}); err != nil {
		t.Fatal(err)
	}
	p := parseMessage(t, be.messages()[0].Data)
	if p.Header.Get("Bcc") != "" || decodeHeader(t, p.Header.Get("Subject")) != "Hello Bcc: x@y.example" {
		t.Errorf("subject %q bcc %q", p.Header.Get("Subject"), p.Header.Get("Bcc"))
	}
	// An http (not https) stop link gets List-Unsubscribe but no one-click header.
	if _, err := m.Send(ctx(t), mail.Message{To: "a@customer.example", Subject: "s", Text: "t", ListUnsubscribeURL: "http://localhost:8080/stop"}); err != nil {
		t.Fatal(err)
	}
	p = parseMessage(t, be.messages()[1].Data)
	if p.Header.Get("List-Unsubscribe") != "<http://localhost:8080/stop>" || p.Header.Get("List-Unsubscribe-Post") != "" {
		t.Errorf("list-unsubscribe %q post %q", p.Header.Get("List-Unsubscribe"), p.Header.Get("List-Unsubscribe-Post"))
	}
}

func TestSendStopsWhenContextEnds(t *testing.T) {
	be := &backend{inData: make(chan struct{}), release: make(chan struct{})}
	defer close(be.release)
	port := startServer(t, be, serverOpts{})
	m := mail.New(mail.Config{Host: "127.0.0.1", Port: port, Security: "none", From: "r@shop.example"})
	c, cancel := context.WithCancel(ctx(t))
	go func() {
		<-be.inData
		cancel()
	}()
	_, err := m.Send(c, mail.Message{To: "a@customer.example", Subject: "s", Text: "t"})
	se, ok := isErr[*mail.SendError](err)
	if !ok || !se.Temporary {
		t.Fatalf("err %v: want a temporary SendError", err)
	}
}

func TestDisabledMailer(t *testing.T) {
	m := mail.New(mail.Config{From: "r@shop.example"})
	if m.Enabled() {
		t.Fatal("mailer without host must be disabled")
	}
	_, err := m.Send(ctx(t), mail.Message{To: "a@customer.example", Subject: "s", Text: "t"})
	se, ok := isErr[*mail.SendError](err)
	if !ok || !se.Temporary || se.Reason != "mail_disabled" {
		t.Fatalf("err %v", err)
	}
}

func TestNewMessageID(t *testing.T) {
	a, b := mail.NewMessageID("Reviews <reviews@Shop.Example>"), mail.NewMessageID("reviews@shop.example")
	if a == b || !strings.HasSuffix(a, "@shop.example") || strings.ContainsAny(a, "<> ") {
		t.Errorf("ids %q %q", a, b)
	}
	if id := mail.NewMessageID("no-domain"); !strings.HasSuffix(id, "@localhost") {
		t.Errorf("id %q", id)
	}
}

package storefront_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"reviewd/app/core/buyer"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// confirmations lists the confirmation e-mails recorded for an order.
func (f *fx) confirmations(ext string) []store.ReviewConfirmation {
	f.T.Helper()
	o, err := f.App.DB.Read().OrderByExternalID(ctx, ext)
	if err != nil {
		f.T.Fatal(err)
	}
	cs, err := f.App.DB.Read().ReviewConfirmations(ctx, o.ID)
	if err != nil {
		f.T.Fatal(err)
	}
	return cs
}

var receiptLink = regexp.MustCompile(`https?://\S+/v1/transparency/receipt/r_[a-z2-7]{20}\?token=\S+`)

// TestConfirmationEmail: after POST /v1/reviews the writer gets one e-mail, in the
// order's language from the channel's brand, saying for each review whether it is
// live, with a receipt link whose token opens the receipt page (HTML to a browser,
// JSON to a program). Nothing is sent while mail is off (the write still
// succeeds) nor to an address on the opt-out list; each outcome is recorded.
func TestConfirmationEmail(t *testing.T) {
	f := newFx(t)
	f.sign()

	// Mail off: the reviews are written, the outcome says why nothing went.
	f.order("C-0", "off@example.com")
	if res := f.write(f.issue(buyer.TokenInvitation, "C-0", "1"), row("1")); res.Status != 201 {
		t.Fatalf("write with mail off: %s", res)
	}
	if cs := f.confirmations("C-0"); len(cs) != 1 || cs[0].Outcome != "mail_disabled" {
		t.Fatalf("confirmations with mail off: %+v", cs)
	}

	smtp := sendtest.StartSMTP(t)
	f.App.SetMailer(smtp.Mailer())
	f.order("C-1", "writer@example.com", line{ref: "1"}, line{ref: "2"})
	res := f.write(f.issue(buyer.TokenInvitation, "C-1", "1", "2"), row("1"), row("2"))
	if res.Status != 201 {
		t.Fatalf("write: %s", res)
	}
	written := res.JSON["reviews"].([]any)
	msgs := smtp.Messages()
	if len(msgs) != 1 {
		t.Fatalf("confirmation e-mails: %d, want 1", len(msgs))
	}
	m := msgs[0]
	if m.To[0] != "writer@example.com" || !strings.Contains(m.Header.Get("From"), "Acme") ||
		m.DecodedHeader("Subject") != "Yorumunuz için teşekkürler" || strings.Count(m.Text, "şimdi yayında") != 2 ||
		!strings.Contains(m.Text, "Product 1") || !strings.Contains(m.Text, "Product 2") || m.Header.Get("List-Unsubscribe") == "" {
		t.Fatalf("confirmation e-mail: %v\n%s", m.Header, m.Text)
	}
	links := receiptLink.FindAllString(m.Text, -1)
	if len(links) != 2 {
		t.Fatalf("receipt links: %q\n%s", links, m.Text)
	}
	for i, link := range links {
		w := written[i].(map[string]any)
		if !strings.Contains(link, w["id"].(string)) || !strings.Contains(link, "token="+w["receipt"].(string)) {
			t.Fatalf("link %d %s for %v", i, link, w)
		}
	}
	if cs := f.confirmations("C-1"); len(cs) != 1 || cs[0].Outcome != "sent" || cs[0].Reviews != 2 ||
		"<"+cs[0].MessageID+">" != m.Header.Get("Message-ID") {
		t.Fatalf("confirmations: %+v, Message-ID %s", cs, m.Header.Get("Message-ID"))
	}

	// The link opens the receipt: a page to a browser, in the e-mail's language,
	// with the review's published entry once a checkpoint holds it.
	f.sign()
	link := strings.Replace(links[0], "http://reviewd.test", f.URL, 1)
	req, _ := http.NewRequest("GET", link, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	hr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(hr.Body)
	hr.Body.Close()
	if hr.StatusCode != 200 || !strings.HasPrefix(hr.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(page), "Yorumunuzun makbuzu") || !strings.Contains(string(page), "<strong>published</strong>") ||
		!strings.Contains(string(page), "imzalı kayıtta") || hr.Header.Get("Vary") != "Accept" {
		t.Fatalf("receipt page: %d %v\n%s", hr.StatusCode, hr.Header, page)
	}
	st, hd, body := f.logGet(strings.TrimPrefix(link, f.URL))
	var rc map[string]any
	if st != 200 || !strings.HasPrefix(hd.Get("Content-Type"), "application/json") || json.Unmarshal(body, &rc) != nil ||
		len(rc["entries"].([]any)) != 1 {
		t.Fatalf("receipt JSON: %d %v %s", st, hd, body)
	}

	// An address on the opt-out list gets no confirmation.
	err = f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.AddOptOut(ctx, store.OptOut{Address: "Stop@Example.com", ChannelKind: "email", Reason: "link", Source: "link"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.order("C-2", "stop@example.com")
	if res := f.write(f.issue(buyer.TokenInvitation, "C-2", "1"), row("1")); res.Status != 201 {
		t.Fatalf("write opted out: %s", res)
	}
	if n := len(smtp.Messages()); n != 1 {
		t.Fatalf("e-mails after an opted-out writer: %d", n)
	}
	if cs := f.confirmations("C-2"); len(cs) != 1 || cs[0].Outcome != "opted_out" {
		t.Fatalf("confirmations opted out: %+v", cs)
	}
}

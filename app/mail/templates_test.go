package mail_test

import (
	"errors"
	"html"
	"strings"
	"testing"

	"reviewd/app/mail"
)

func fullData() mail.TemplateData {
	return mail.TemplateData{
		Brand: "Acme & <Co>", CustomerName: "Ayşe", Products: []string{"Kettle <script>alert(1)</script>", "Mug"},
		ReviewURL: reviewURL, UnsubscribeURL: stopURL, Reason: "Contains a phone number",
		CorrectionURL: "https://shop.example/fix#review_token=tok123", ProductName: "Kettle",
		ProductURL: "https://shop.example/kettle", QuestionText: "Is it loud?", AnswerText: "No, it is quiet.",
		ReviewTitle: "Loud but fast", ResponseText: "Thank you; the quiet model is in stock again.",
		Receipts: []mail.Receipt{{ProductName: "Kettle", Live: true, URL: "https://reviews.example/v1/transparency/receipt/r_a?token=t1"},
			{ProductName: "Mug", URL: "https://reviews.example/v1/transparency/receipt/r_b?token=t2"}},
	}
}

// TestRenderEveryTemplate renders each kind in each language and checks what the
// spec requires of it.
func TestRenderEveryTemplate(t *testing.T) {
	d := fullData()
	must := map[string][]string{
		mail.KindInvitation:     {d.ReviewURL, d.UnsubscribeURL, "Mug"},
		mail.KindReminder:       {d.ReviewURL, d.UnsubscribeURL, "Mug"},
		mail.KindExperience:     {d.ReviewURL, d.UnsubscribeURL},
		mail.KindRejection:      {d.Reason, d.CorrectionURL},
		mail.KindAnswer:         {d.AnswerText, d.QuestionText, d.ProductURL},
		mail.KindSellerResponse: {d.ResponseText, d.ReviewTitle, d.ProductURL, d.UnsubscribeURL},
		mail.KindConfirmation:   {d.Receipts[0].URL, d.Receipts[1].URL, "Mug", d.UnsubscribeURL},
	}
	seen := map[string]bool{}
	for _, kind := range mail.Kinds {
		for _, lang := range mail.Languages {
			t.Run(kind+"."+lang, func(t *testing.T) {
				subject, text, htmlBody, err := mail.Render(kind, lang, d)
				if err != nil {
					t.Fatal(err)
				}
				if subject == "" || strings.ContainsAny(subject, "\r\n") {
					t.Errorf("subject %q", subject)
				}
				if seen[subject+text] {
					t.Errorf("same text as another template")
				}
				seen[subject+text] = true
				if got := strings.HasPrefix(subject, mail.ReminderPrefix); got != (kind == mail.KindReminder) {
					t.Errorf("subject %q: reminder prefix %v", subject, got)
				}
				plainHTML := html.UnescapeString(htmlBody)
				for _, s := range must[kind] {
					if !strings.Contains(text, s) {
						t.Errorf("text lacks %q:\n%s", s, text)
					}
					if !strings.Contains(plainHTML, s) {
						t.Errorf("html lacks %q", s)
					}
				}
				if !strings.Contains(htmlBody, `<html lang="`+lang+`">`) {
					t.Error("html lang attribute missing")
				}
				if strings.Contains(htmlBody, "<script>") || strings.Contains(htmlBody, "<Co>") {
					t.Error("html does not escape data")
				}
				for _, banned := range []string{"<img", "coupon", "discount", "kupon", "indirim"} {
					if strings.Contains(strings.ToLower(htmlBody+text), banned) {
						t.Errorf("mail contains %q", banned)
					}
				}
			})
		}
	}
}

func TestRenderLanguages(t *testing.T) {
	d := fullData()
	en, _, _, _ := mail.Render(mail.KindInvitation, "en", d)
	tr, _, _, _ := mail.Render(mail.KindInvitation, "tr", d)
	if !strings.Contains(en, "How was your order") || !strings.Contains(tr, "siparişinizi") {
		t.Errorf("en %q tr %q", en, tr)
	}
	rem, _, _, _ := mail.Render(mail.KindReminder, "tr", d)
	if rem != "Reminder: "+tr {
		t.Errorf("tr reminder subject %q, want %q", rem, "Reminder: "+tr)
	}
}

func TestRenderRefuses(t *testing.T) {
	d := fullData()
	noStop := d
	noStop.UnsubscribeURL = ""
	noLink := d
	noLink.ReviewURL = " "
	noReason := d
	noReason.Reason = ""
	noAnswer := d
	noAnswer.AnswerText = ""
	cases := []struct {
		name, kind, lang string
		data             mail.TemplateData
		unknown          bool
	}{
		{"unknown kind", "coupon", "en", d, true},
		{"unknown language", mail.KindInvitation, "de", d, true},
		{"invitation without stop link", mail.KindInvitation, "en", noStop, false},
		{"reminder without stop link", mail.KindReminder, "tr", noStop, false},
		{"experience without review link", mail.KindExperience, "en", noLink, false},
		{"rejection without reason", mail.KindRejection, "tr", noReason, false},
		{"answer without answer", mail.KindAnswer, "en", noAnswer, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := mail.Render(tc.kind, tc.lang, tc.data)
			if err == nil || errors.Is(err, mail.ErrUnknownTemplate) != tc.unknown {
				t.Fatalf("err %v", err)
			}
		})
	}
	// Optional fields may be empty.
	min := mail.TemplateData{Brand: "B", AnswerText: "yes"}
	if _, text, _, err := mail.Render(mail.KindAnswer, "en", min); err != nil || strings.Contains(text, "<no value>") {
		t.Fatalf("err %v text %q", err, text)
	}
}

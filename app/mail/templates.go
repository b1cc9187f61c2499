package mail

import (
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"strings"
	texttemplate "text/template"

	"reviewd/assets"
)

// Template kinds. Each exists in every language of Languages as
// assets/templates/mail/<kind>.<lang>.txt (templates "subject" and "text") and
// <kind>.<lang>.html (template "content", framed by layout.html).
const (
	KindInvitation = "invitation" // product review request
	KindReminder   = "reminder"   // second request, same link; subject gets ReminderPrefix
	KindExperience = "experience" // shopping-experience request for cancelled or returned lines
	KindRejection  = "rejection"  // a moderator rejected the review: reason and correction link
	KindAnswer     = "answer"     // the customer's question got an answer
	// KindSellerResponse tells a reviewer that the brand replied to the review.
	KindSellerResponse = "seller_response"
	// KindConfirmation thanks a writer after POST /v1/reviews: each review's state
	// and its transparency receipt link.
	KindConfirmation = "confirmation"
)

// ReminderPrefix starts every reminder subject, in every language: the spec
// recognises reminders by the literal prefix "Reminder:".
const ReminderPrefix = "Reminder: "

// Kinds and Languages list every template Render knows.
var (
	Kinds     = []string{KindInvitation, KindReminder, KindExperience, KindRejection, KindAnswer, KindSellerResponse, KindConfirmation}
	Languages = []string{"tr", "en"}
)

// TemplateData feeds the mail templates. Which fields a kind needs is checked by
// Render.
type TemplateData struct {
	Brand          string    // the channel's customer-facing name, else the brand name
	CustomerName   string    // optional greeting name
	Products       []string  // product titles of the invitation (invitation, reminder)
	ReviewURL      string    // landing_url#review_token=<token> (invitation, reminder, experience)
	UnsubscribeURL string    // stop-e-mails link; required for invitation, reminder, experience
	Reason         string    // rejection reason as the moderator wrote it (rejection)
	CorrectionURL  string    // where the customer corrects the review (rejection)
	ProductName    string    // the product concerned (rejection, answer; optional)
	ProductURL     string    // product page (answer; optional)
	QuestionText   string    // the customer's question (answer; optional)
	AnswerText     string    // the published answer (answer)
	ReviewTitle    string    // the reviewer's title (seller_response; optional)
	ResponseText   string    // the brand's reply (seller_response)
	Receipts       []Receipt // the reviews written and their receipts (confirmation)
}

// Receipt is one review of a confirmation e-mail.
type Receipt struct {
	ProductName string
	Live        bool   // published; else held for checks
	URL         string // the human-readable transparency receipt
}

// view is what the templates see: the data plus the language and the subject.
type view struct {
	TemplateData
	Lang    string
	Subject string
}

type button struct{ URL, Label, Fallback string }

type templateSet struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

// sets holds every kind and language, parsed once; a broken template stops the
// program at start (and fails TestRenderEveryTemplate).
var sets = mustParse(assets.Templates())

func mustParse(fsys fs.FS) map[string]templateSet {
	s, err := parseTemplates(fsys)
	if err != nil {
		panic(err)
	}
	return s
}

func parseTemplates(fsys fs.FS) (map[string]templateSet, error) {
	funcs := htmltemplate.FuncMap{
		"button": func(url, label, fallback string) button { return button{url, label, fallback} },
	}
	layout, err := htmltemplate.New("layout.html").Funcs(funcs).ParseFS(fsys, "mail/layout.html")
	if err != nil {
		return nil, fmt.Errorf("mail: parse layout: %w", err)
	}
	out := make(map[string]templateSet)
	for _, kind := range Kinds {
		for _, lang := range Languages {
			name := "mail/" + kind + "." + lang
			tt, err := texttemplate.New(kind).Option("missingkey=error").ParseFS(fsys, name+".txt")
			if err != nil {
				return nil, fmt.Errorf("mail: parse %s.txt: %w", name, err)
			}
			if tt.Lookup("subject") == nil || tt.Lookup("text") == nil {
				return nil, fmt.Errorf("mail: %s.txt must define subject and text", name)
			}
			ht, err := layout.Clone()
			if err != nil {
				return nil, err
			}
			if ht, err = ht.ParseFS(fsys, name+".html"); err != nil {
				return nil, fmt.Errorf("mail: parse %s.html: %w", name, err)
			}
			if ht.Lookup("content") == nil {
				return nil, fmt.Errorf("mail: %s.html must define content", name)
			}
			out[kind+"."+lang] = templateSet{text: tt, html: ht}
		}
	}
	return out, nil
}

// ErrUnknownTemplate is returned by Render for a kind or language without templates.
var ErrUnknownTemplate = errors.New("mail: unknown template")

// Render produces the subject (one line), plain text and HTML of an e-mail of
// kind in lang ("tr" or "en"). Reminder subjects start with ReminderPrefix.
// Invitation, reminder and experience mails always carry the review link and the
// stop-e-mails link; Render refuses data without them. The HTML is escaped by
// html/template and has no images, tracking or offers.
func Render(kind, lang string, data TemplateData) (subject, text, html string, err error) {
	set, ok := sets[kind+"."+lang]
	if !ok {
		return "", "", "", fmt.Errorf("%w: %s.%s", ErrUnknownTemplate, kind, lang)
	}
	if err := checkData(kind, data); err != nil {
		return "", "", "", err
	}
	v := view{TemplateData: data, Lang: lang}
	var b strings.Builder
	if err := set.text.ExecuteTemplate(&b, "subject", v); err != nil {
		return "", "", "", fmt.Errorf("mail: render %s.%s subject: %w", kind, lang, err)
	}
	subject = oneLine(b.String())
	if kind == KindReminder {
		subject = ReminderPrefix + subject
	}
	v.Subject = subject
	b.Reset()
	if err := set.text.ExecuteTemplate(&b, "text", v); err != nil {
		return "", "", "", fmt.Errorf("mail: render %s.%s text: %w", kind, lang, err)
	}
	text = b.String()
	b.Reset()
	if err := set.html.ExecuteTemplate(&b, "html", v); err != nil {
		return "", "", "", fmt.Errorf("mail: render %s.%s html: %w", kind, lang, err)
	}
	html = b.String()
	return subject, text, html, nil
}

func checkData(kind string, d TemplateData) error {
	need := map[string]string{"Brand": d.Brand}
	switch kind {
	case KindInvitation, KindReminder, KindExperience:
		need["ReviewURL"] = d.ReviewURL
		need["UnsubscribeURL"] = d.UnsubscribeURL
	case KindRejection:
		need["Reason"] = d.Reason
		need["CorrectionURL"] = d.CorrectionURL
	case KindAnswer:
		need["AnswerText"] = d.AnswerText
	case KindSellerResponse:
		need["ResponseText"] = d.ResponseText
	case KindConfirmation:
		if len(d.Receipts) == 0 {
			return fmt.Errorf("mail: render %s: Receipts missing", kind)
		}
	}
	for _, f := range []string{"Brand", "ReviewURL", "UnsubscribeURL", "Reason", "CorrectionURL", "AnswerText", "ResponseText"} {
		if v, ok := need[f]; ok && strings.TrimSpace(v) == "" {
			return fmt.Errorf("mail: render %s: %s missing", kind, f)
		}
	}
	return nil
}

package sending

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/mail"
	"reviewd/store"
)

// Invitation templates (GET and POST /admin/v1/invite-templates; docs/decisions.md,
// "Invitation templates"): a brand's own subject and HTML for invitations,
// reminders and experience invitations, per language, for every market, one market
// or one channel. The sending path uses the most specific template that matches a
// message (channel, else market, else every market), else the built-in tr and en
// e-mails.

// Limits of a template.
const (
	MaxTemplateSubject = 200
	MaxTemplateHTML    = 100 << 10
)

// ErrIncentiveConditional is the detail of invalid / incentive_conditional: a
// template whose reward depends on the rating or on a positive review.
const ErrIncentiveConditional = "incentive_conditional"

// TemplateKinds are the message kinds a brand template may replace.
var TemplateKinds = []string{MsgInvitation, MsgReminder, MsgExperience}

var reMarket = regexp.MustCompile(`^[A-Z]{2}$`)

// InviteTemplateInput is the body of POST /admin/v1/invite-templates (and of the
// preview). ID names a saved template to change ("tpl_<n>"); empty creates one.
type InviteTemplateInput struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Language string `json:"language"`
	Market   string `json:"market"`
	Channel  string `json:"channel"`
	Subject  string `json:"subject"`
	HTML     string `json:"html"`
	// Incentive marks a template offering something for a review (a discount for
	// any review); reviews written through its e-mails are labelled incentivised.
	Incentive bool `json:"incentive"`
}

// InviteTemplate is a template row of the admin API. Channel is empty when the
// template is for every channel (of Market, or of every market when Market is
// empty too).
type InviteTemplate struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	Language  string    `json:"language"`
	Market    string    `json:"market"`
	Channel   string    `json:"channel"`
	Subject   string    `json:"subject"`
	HTML      string    `json:"html"`
	Incentive bool      `json:"incentive,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// TemplatePreview is the answer of POST /admin/v1/invite-templates/preview.
type TemplatePreview struct {
	Subject string `json:"subject"`
	HTML    string `json:"html"`
	Text    string `json:"text"`
	// Source is brand (the template given or saved) or default (the built-in one).
	Source string `json:"source"`
}

// TemplatePlaceholders lists the placeholders a template may use (the list answer
// carries them for the panel).
func TemplatePlaceholders() []string { return append([]string(nil), mail.Placeholders...) }

// templatePublicID is the id of a template in answers.
func templatePublicID(id int64) string { return "tpl_" + strconv.FormatInt(id, 10) }

// parseTemplateID reads "tpl_<n>".
func parseTemplateID(s string) (int64, bool) { return core.ParseID("tpl_", s) }

func (c *Service) templateView(ctx context.Context, q *store.Q, t store.InviteTemplate) (InviteTemplate, error) {
	v := InviteTemplate{ID: templatePublicID(t.ID), Type: t.Kind, Language: t.Language, Market: t.Market, Subject: t.Subject,
		HTML: t.HTML, Incentive: t.Incentive, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if t.ChannelID != 0 {
		ch, err := q.ChannelByID(ctx, t.ChannelID)
		if err != nil {
			return v, err
		}
		v.Channel = ch.Code
	}
	return v, nil
}

// InviteTemplates lists the brand's templates.
func (c *Service) InviteTemplates(ctx context.Context) ([]InviteTemplate, error) {
	q := c.DB.Read()
	rows, err := q.InviteTemplates(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]InviteTemplate, 0, len(rows))
	for _, t := range rows {
		v, err := c.templateView(ctx, q, t)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// checkTemplate validates a template without its scope being free: invalid / type,
// language, market, channel, channel_market_mismatch, subject_required,
// subject_too_long, html_required, html_too_long, and the problems of
// mail.SanitizeTemplate (style_import, image_tracking, placeholder_unknown,
// cta_required), incentive_conditional (an incentive tied to a rating or a
// positive review). It returns the row to store (HTML sanitised).
func checkTemplate(ctx context.Context, q *store.Q, in InviteTemplateInput) (store.InviteTemplate, error) {
	t := store.InviteTemplate{Kind: strings.TrimSpace(in.Type), Language: strings.TrimSpace(in.Language),
		Market: strings.TrimSpace(in.Market), Subject: core.SingleLine(in.Subject), Incentive: in.Incentive}
	known := false
	for _, k := range TemplateKinds {
		known = known || k == t.Kind
	}
	switch {
	case !known:
		return t, core.Invalid("type")
	case t.Language != "tr" && t.Language != "en":
		return t, core.Invalid("language")
	case t.Market != "" && !reMarket.MatchString(t.Market):
		return t, core.Invalid("market")
	}
	ch, err := core.ChannelFilter(ctx, q, strings.TrimSpace(in.Channel), t.Market)
	if err != nil {
		return t, err
	}
	if ch.ID != 0 {
		t.ChannelID, t.Market = ch.ID, ch.Market
	}
	switch {
	case t.Subject == "":
		return t, core.Invalid("subject_required")
	case utf8.RuneCountInString(t.Subject) > MaxTemplateSubject:
		return t, core.Invalid("subject_too_long")
	case strings.TrimSpace(in.HTML) == "":
		return t, core.Invalid("html_required")
	case len(in.HTML) > MaxTemplateHTML:
		return t, core.Invalid("html_too_long")
	case mail.CheckSubject(t.Subject) != "":
		return t, core.Invalid(mail.CheckSubject(t.Subject))
	}
	if mail.IncentiveConditional(t.Subject + "\n" + in.HTML) {
		return t, core.Invalid(ErrIncentiveConditional)
	}
	clean, problem, err := mail.SanitizeTemplate(in.HTML)
	if err != nil {
		return t, err
	}
	if problem != "" {
		return t, core.Invalid(problem)
	}
	t.HTML = clean
	return t, nil
}

// SaveInviteTemplate creates a template, or changes the one named by in.ID. It
// reports whether one was created. Errors: those of checkTemplate; 404 not_found
// (in.ID unknown); invalid / template_scope_taken (another template has the same
// type, language, market and channel).
func (c *Service) SaveInviteTemplate(ctx context.Context, a *core.Actor, in InviteTemplateInput) (InviteTemplate, bool, error) {
	var out InviteTemplate
	created := in.ID == ""
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		t, err := checkTemplate(ctx, tx.Q, in)
		if err != nil {
			return err
		}
		if !created {
			id, ok := parseTemplateID(in.ID)
			if !ok {
				return core.ErrNotFound
			}
			if _, err := tx.InviteTemplateByID(ctx, id); err != nil {
				return err
			}
			t.ID = id
		}
		t.ActorID = a.ID
		saved, err := tx.SaveInviteTemplate(ctx, t)
		if errors.Is(err, store.ErrConflict) {
			return core.Invalid("template_scope_taken")
		}
		if err != nil {
			return err
		}
		if out, err = c.templateView(ctx, tx.Q, saved); err != nil {
			return err
		}
		action := "invite_template.changed"
		if created {
			action = "invite_template.created"
		}
		return c.Record(ctx, tx, a, action, "invite_template", out.ID, map[string]any{"type": out.Type,
			"language": out.Language, "market": out.Market, "channel": out.Channel})
	})
	return out, created, err
}

// DeleteInviteTemplate removes a template (the built-in e-mail, or a wider
// template, is used again). Errors: 404 not_found.
func (c *Service) DeleteInviteTemplate(ctx context.Context, a *core.Actor, publicID string) error {
	id, ok := parseTemplateID(publicID)
	if !ok {
		return core.ErrNotFound
	}
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteInviteTemplate(ctx, id); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "invite_template.deleted", "invite_template", publicID, nil)
	})
}

// PreviewInviteTemplate renders a template with sample data as a customer would
// receive it: the template given in the body (checked like a save, scope not
// needed), else the saved template in.ID, else the built-in e-mail of in.Type and
// in.Language. The brand name and landing page are the channel's (in.Channel, else
// the first channel). Errors: those of checkTemplate, 404 not_found.
func (c *Service) PreviewInviteTemplate(ctx context.Context, in InviteTemplateInput) (TemplatePreview, error) {
	q := c.DB.Read()
	var tpl *mail.BrandTemplate
	kind, lang, channel := in.Type, in.Language, in.Channel
	switch {
	case strings.TrimSpace(in.HTML) != "":
		t, err := checkTemplate(ctx, q, in)
		if err != nil {
			return TemplatePreview{}, err
		}
		tpl = &mail.BrandTemplate{Subject: t.Subject, HTML: t.HTML}
	case in.ID != "":
		id, ok := parseTemplateID(in.ID)
		if !ok {
			return TemplatePreview{}, core.ErrNotFound
		}
		t, err := q.InviteTemplateByID(ctx, id)
		if err != nil {
			return TemplatePreview{}, err
		}
		v, err := c.templateView(ctx, q, t)
		if err != nil {
			return TemplatePreview{}, err
		}
		kind, lang, channel = t.Kind, t.Language, v.Channel
		tpl = &mail.BrandTemplate{Subject: t.Subject, HTML: t.HTML}
	default:
		if _, err := checkTemplate(ctx, q, InviteTemplateInput{Type: in.Type, Language: in.Language, Market: in.Market,
			Channel: in.Channel, Subject: "-", HTML: mail.PlaceReviewButton}); err != nil {
			return TemplatePreview{}, err
		}
	}
	ch, err := core.ChannelFilter(ctx, q, channel, "")
	if err != nil {
		return TemplatePreview{}, err
	}
	if ch.ID == 0 {
		if all, err := q.ListChannels(ctx); err == nil && len(all) > 0 {
			ch = all[0]
		}
	}
	sample := map[string][2]string{"tr": {"Ayşe Yılmaz", "Örnek ürün"}, "en": {"Alex Smith", "Sample product"}}[lang]
	data := mail.TemplateData{Brand: core.BrandOf(ch), CustomerName: sample[0], Products: []string{sample[1]},
		ReviewURL: landingURL(ch, c.PublicURL) + "#review_token=preview", UnsubscribeURL: c.PublicURL + "/v1/unsubscribe?t=preview"}
	if data.Brand == "" {
		data.Brand = "reviewd"
	}
	out := TemplatePreview{Source: "default"}
	mkind := mailKind(kind)
	if tpl != nil {
		out.Source = "brand"
		out.Subject, out.Text, out.HTML, err = mail.RenderBrand(mkind, lang, *tpl, data)
	} else {
		out.Subject, out.Text, out.HTML, err = mail.Render(mkind, lang, data)
	}
	if err != nil {
		return TemplatePreview{}, fmt.Errorf("sending: preview: %w", err)
	}
	return out, nil
}

// mailKind is the mail template kind of a message kind.
func mailKind(kind string) string {
	switch kind {
	case MsgReminder:
		return mail.KindReminder
	case MsgExperience:
		return mail.KindExperience
	}
	return mail.KindInvitation
}

// brandTemplate returns the brand template an invitation, reminder or experience
// invitation of kind in lang to channel ch uses (channel, else market, else every
// market); nil when none matches and the built-in e-mail is used. incentive
// incentive reports whether the template carries an incentive.
func brandTemplate(ctx context.Context, q *store.Q, kind, lang string, ch store.Channel) (tpl *mail.BrandTemplate, incentive bool, err error) {
	t, err := q.InviteTemplateFor(ctx, kind, lang, ch.Market, ch.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return &mail.BrandTemplate{Subject: t.Subject, HTML: t.HTML}, t.Incentive, nil
}

// renderMessage renders a message of kind with tpl, else the built-in e-mail.
func renderMessage(tpl *mail.BrandTemplate, kind, lang string, data mail.TemplateData) (subject, text, html string, err error) {
	if tpl != nil {
		return mail.RenderBrand(mailKind(kind), lang, *tpl, data)
	}
	return mail.Render(mailKind(kind), lang, data)
}

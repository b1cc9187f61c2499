package panel

import (
	"errors"
	"net/http"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/brandexport"
	"reviewd/app/core/feeds"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/app/web"
)

// refused renders a page again with a refusal of its form (the code shown at the
// top and next to the field it names, in the user's language), or returns err
// when it is not a refusal the user can act on.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, a *core.Actor, page string, data any, err error) error {
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Status >= 500 || ce.Status == http.StatusForbidden || ce.Status == http.StatusNotFound {
		return err
	}
	v := h.view(r, a, page)
	v.Data, v.Status, v.Error, v.ErrDetail = data, ce.Status, refusal(r, ce), ce.Detail
	v.Path = pageAddress(page, r)
	h.render(w, r, ce.Status, v)
	return nil
}

// ---- seller reply and resolution note (review detail) ----

// noteWrite runs one of the brand's note writes of a review and answers with the
// review page: back to it with a notice, or the page again with the refusal.
func (h *Handler) noteWrite(w http.ResponseWriter, r *http.Request, a *core.Actor, form, notice string, write func(id string) error) error {
	id := web.Vars(r)["id"]
	if err := write(id); err != nil {
		d, derr := h.reviewView(r, a, id, language(r))
		if derr != nil {
			return derr
		}
		d.NoteForm, d.NoteBody = form, r.PostForm.Get("body")
		return h.refused(w, r, a, "review", d, err)
	}
	return back(w, r, "/panel/reviews/"+id, notice)
}

// handleReplyCreate serves POST /panel/reviews/<id>/seller-response: body
// (reviews.RespondToReview, as POST /admin/v1/reviews/<id>/seller-response).
func (h *Handler) handleReplyCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.noteWrite(w, r, a, "reply", "reply_published", func(id string) error {
		_, err := h.Reviews.RespondToReview(r.Context(), a, id, reviews.NoteInput{Body: r.PostForm.Get("body")})
		return err
	})
}

// handleReplyDraft serves POST /panel/reviews/<id>/seller-response/draft: the
// review page again with a reply draft in the reply form (reviews.DraftSellerResponse,
// as POST /admin/v1/reviews/<id>/seller-response/draft); nothing is published.
func (h *Handler) handleReplyDraft(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	out, err := h.Reviews.DraftSellerResponse(r.Context(), id, reviews.DraftInput{Tone: r.PostForm.Get("tone")})
	d, derr := h.reviewView(r, a, id, language(r))
	if derr != nil {
		return derr
	}
	if err != nil {
		return h.refused(w, r, a, "review", d, err)
	}
	d.NoteForm, d.NoteBody, d.Drafted = "reply", out.Body, true
	return h.show(w, r, a, "review", d)
}

// handleReplyChange serves POST /panel/reviews/<id>/seller-response/change
// (reviews.ChangeSellerResponse, as PATCH /admin/v1/reviews/<id>/seller-response).
func (h *Handler) handleReplyChange(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.noteWrite(w, r, a, "reply", "reply_changed", func(id string) error {
		_, err := h.Reviews.ChangeSellerResponse(r.Context(), a, id, reviews.NoteInput{Body: r.PostForm.Get("body")})
		return err
	})
}

// handleReplyWithdraw serves POST /panel/reviews/<id>/seller-response/remove
// (reviews.WithdrawSellerResponse, as DELETE /admin/v1/reviews/<id>/seller-response).
func (h *Handler) handleReplyWithdraw(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.noteWrite(w, r, a, "reply", "reply_withdrawn", func(id string) error {
		return h.Reviews.WithdrawSellerResponse(r.Context(), a, id)
	})
}

// handleResolutionSet serves POST /panel/reviews/<id>/resolution: body
// (reviews.SetResolution, as POST /admin/v1/reviews/<id>/resolution).
func (h *Handler) handleResolutionSet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.noteWrite(w, r, a, "resolution", "resolution_saved", func(id string) error {
		_, err := h.Reviews.SetResolution(r.Context(), a, id, reviews.NoteInput{Body: r.PostForm.Get("body")})
		return err
	})
}

// handleResolutionRemove serves POST /panel/reviews/<id>/resolution/remove
// (reviews.RemoveResolution, as DELETE /admin/v1/reviews/<id>/resolution).
func (h *Handler) handleResolutionRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.noteWrite(w, r, a, "resolution", "resolution_removed", func(id string) error {
		return h.Reviews.RemoveResolution(r.Context(), a, id)
	})
}

// handleFeaturedPin serves POST /panel/reviews/<id>/featured (reviews.FeatureReview,
// as PUT /admin/v1/reviews/<id>/featured); a refusal (the limit, an unpublished
// review) is shown in words on the review's page.
func (h *Handler) handleFeaturedPin(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.noteWrite(w, r, a, "featured", "featured_pinned", func(id string) error {
		_, err := h.Reviews.FeatureReview(r.Context(), a, id)
		return err
	})
}

// handleFeaturedUnpin serves POST /panel/reviews/<id>/featured/remove
// (reviews.UnfeatureReview, as DELETE /admin/v1/reviews/<id>/featured).
func (h *Handler) handleFeaturedUnpin(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.noteWrite(w, r, a, "featured", "featured_unpinned", func(id string) error {
		return h.Reviews.UnfeatureReview(r.Context(), a, id)
	})
}

// ---- invitation templates ----

type templatesData struct {
	Items        []sending.InviteTemplate
	Placeholders []string
	Kinds        []string
	// Form is the template in the form (a row being edited, or what was posted).
	Form sending.InviteTemplateInput
	// Preview is the e-mail as a customer would receive it (shown in a sandboxed
	// frame: no script, no same origin, no forms).
	Preview *sending.TemplatePreview
	// SubjectBad: a placeholder_unknown refusal is about the subject (else the HTML).
	SubjectBad bool
}

func templateInput(r *http.Request) sending.InviteTemplateInput {
	f := r.PostForm
	return sending.InviteTemplateInput{ID: f.Get("id"), Type: f.Get("type"), Language: f.Get("language"),
		Market: strings.TrimSpace(f.Get("market")), Channel: strings.TrimSpace(f.Get("channel")), Subject: f.Get("subject"), HTML: f.Get("html"),
		Incentive: f.Get("incentive") == "1"}
}

func (h *Handler) templatesData(r *http.Request, form sending.InviteTemplateInput) (templatesData, error) {
	items, err := h.Sending.InviteTemplates(r.Context())
	if err != nil {
		return templatesData{}, err
	}
	d := templatesData{Items: items, Placeholders: sending.TemplatePlaceholders(), Kinds: sending.TemplateKinds, Form: form,
		SubjectBad: mail.CheckSubject(form.Subject) != ""}
	if d.Form.Type == "" {
		d.Form.Type = sending.MsgInvitation
	}
	return d, nil
}

// handleTemplates serves GET /panel/invite-templates (?edit=<id> fills the form
// with a row): the brand's invitation templates (sending.InviteTemplates, as GET
// /admin/v1/invite-templates).
func (h *Handler) handleTemplates(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.templatesData(r, sending.InviteTemplateInput{})
	if err != nil {
		return err
	}
	if id := r.URL.Query().Get("edit"); id != "" {
		for _, t := range d.Items {
			if t.ID == id {
				d.Form = sending.InviteTemplateInput{ID: t.ID, Type: t.Type, Language: t.Language, Market: t.Market, Channel: t.Channel,
					Subject: t.Subject, HTML: t.HTML, Incentive: t.Incentive}
			}
		}
	}
	return h.show(w, r, a, "invite-templates", d)
}

// handleTemplateSave serves POST /panel/invite-templates: a new template, or the
// row id changed (sending.SaveInviteTemplate, as POST /admin/v1/invite-templates).
func (h *Handler) handleTemplateSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := templateInput(r)
	if _, _, err := h.Sending.SaveInviteTemplate(r.Context(), a, in); err != nil {
		d, derr := h.templatesData(r, in)
		if derr != nil {
			return derr
		}
		return h.refused(w, r, a, "invite-templates", d, err)
	}
	return back(w, r, "/panel/invite-templates", "template_saved")
}

// handleTemplatePreview serves POST /panel/invite-templates/preview: the form's
// template rendered as the e-mail (sending.PreviewInviteTemplate, as POST
// /admin/v1/invite-templates/preview), shown below the form kept as it was.
func (h *Handler) handleTemplatePreview(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := templateInput(r)
	d, err := h.templatesData(r, in)
	if err != nil {
		return err
	}
	p, err := h.Sending.PreviewInviteTemplate(r.Context(), in)
	if err != nil {
		return h.refused(w, r, a, "invite-templates", d, err)
	}
	d.Preview = &p
	// The e-mail's own styles are inline: this answer's policy allows inline
	// styles (the frame is sandboxed: no script, no forms, no same origin, and it
	// inherits this policy, so it loads nothing from elsewhere either).
	hd := w.Header()
	hd.Set("Content-Security-Policy", strings.Replace(hd.Get("Content-Security-Policy"), "style-src 'self'", "style-src 'self' 'unsafe-inline'", 1))
	return h.show(w, r, a, "invite-templates", d)
}

// handleTemplateRemove serves POST /panel/invite-templates/<id>/remove
// (sending.DeleteInviteTemplate, as DELETE /admin/v1/invite-templates/<id>).
func (h *Handler) handleTemplateRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Sending.DeleteInviteTemplate(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return back(w, r, "/panel/invite-templates", "template_removed")
}

// ---- product-review feeds and the brand export ----

type sharingData struct {
	Feeds   []feeds.View
	Exports []brandexport.Export
	// Form is what a refused feed form sent; Channels are the codes it offers.
	Form     feeds.Input
	Channels []string
	// Building is true while an archive is being built: the page then refreshes
	// itself every RefreshSeconds.
	Building       bool
	RefreshSeconds int
}

// exportRefreshSeconds is how often the brand-export page reloads while an
// archive is being built.
const exportRefreshSeconds = 5

// handleFeeds serves GET /panel/review-feeds: the product-review feeds with their
// addresses (feeds.Feeds, as GET /admin/v1/review-feeds).
func (h *Handler) handleFeeds(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.feedsData(r)
	if err != nil {
		return err
	}
	return h.show(w, r, a, "review-feeds", d)
}

func (h *Handler) feedsData(r *http.Request) (sharingData, error) {
	list, err := h.Feeds.Feeds(r.Context())
	if err != nil {
		return sharingData{}, err
	}
	d := sharingData{Feeds: list.Items, Form: feeds.Input{Names: feeds.NamesMasked}}
	if d.Channels, err = h.Channels.Codes(r.Context()); err != nil {
		return d, err
	}
	return d, nil
}

// handleFeedCreate serves POST /panel/review-feeds: name, channel, market, names,
// publisher_name (feeds.CreateFeed, as POST
// /admin/v1/review-feeds).
func (h *Handler) handleFeedCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	in := feeds.Input{Name: f.Get("name"), Channel: f.Get("channel"), Market: strings.TrimSpace(f.Get("market")), Names: f.Get("names"),
		PublisherName: f.Get("publisher_name")}
	ctx := r.Context()
	if _, err := h.Feeds.CreateFeed(ctx, a, in); err != nil {
		d, derr := h.feedsData(r)
		if derr != nil {
			return derr
		}
		d.Form = in
		return h.refused(w, r, a, "review-feeds", d, err)
	}
	return back(w, r, "/panel/review-feeds", "feed_created")
}

// handleFeedRemove serves POST /panel/review-feeds/<id>/remove (feeds.DeleteFeed,
// as DELETE /admin/v1/review-feeds/<id>).
func (h *Handler) handleFeedRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	ctx, id := r.Context(), web.Vars(r)["id"]
	if err := h.Feeds.DeleteFeed(ctx, a, id); err != nil {
		return err
	}
	return back(w, r, "/panel/review-feeds", "feed_removed")
}

// handleExports serves GET /panel/brand-export: the whole-brand archives with
// their state and download links (brandexport.List, as GET /admin/v1/brand-export).
func (h *Handler) handleExports(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	list, err := h.Exports.List(r.Context())
	if err != nil {
		return err
	}
	d := sharingData{Exports: list, RefreshSeconds: exportRefreshSeconds}
	for _, e := range list {
		d.Building = d.Building || e.State == brandexport.StateBuilding
	}
	return h.show(w, r, a, "brand-export", d)
}

// handleExportStart serves POST /panel/brand-export (brandexport.Start, as POST
// /admin/v1/brand-export): the archive is built in the background; the page shows
// its state.
func (h *Handler) handleExportStart(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if _, _, err := h.Exports.Start(r.Context(), a); err != nil {
		return err
	}
	return back(w, r, "/panel/brand-export", "export_started")
}

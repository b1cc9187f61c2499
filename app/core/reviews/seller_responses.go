package reviews

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/checks"
	"reviewd/app/core/readmodel"
	"reviewd/store"
)

// Seller responses and resolution notes (CONTRACT "Management resources";
// docs/decisions.md, "Seller replies and resolution notes"): the brand answers a
// review in public. A seller response is written to a published review, changed
// and withdrawn; a resolution note is set on a published or temporarily hidden
// review and withdrawn. Both are checked as text the brand publishes under its name
// (checks.BrandTextProblem), written to the review history and the activity
// history, shown on the storefront under the review, and move the product's read
// revision so no cached answer shows the old state.

// Limits of the brand's notes.
const (
	MaxSellerResponse = 2000
	MaxResolutionNote = 2000
)

// Review history events of the brand's notes.
const (
	EventResponsePublished = "seller_response_published"
	EventResponseChanged   = "seller_response_changed"
	EventResponseWithdrawn = "seller_response_withdrawn"
	EventResolutionSet     = "resolution_created"
	EventResolutionRemoved = "resolution_withdrawn"
)

// SellerResponseRefused is 409 seller_response_refused / detail.
func SellerResponseRefused(detail string) *core.Error {
	return core.E(core.StatusConflict, "seller_response_refused", detail)
}

// ResolutionRefused is 409 resolution_refused / detail.
func ResolutionRefused(detail string) *core.Error {
	return core.E(core.StatusConflict, "resolution_refused", detail)
}

// NoteInput is the body of the seller-response and resolution writes.
type NoteInput struct {
	Body string `json:"body"`
}

// SellerResponseView is a seller response as the admin API answers it.
type SellerResponseView struct {
	Body        string    `json:"body"`
	PublishedAt time.Time `json:"published_at"`
	// Notice is the outcome of the reviewer's e-mail (sent, failed: <reason>,
	// opted_out, no_address, mail_disabled; "" while none was tried).
	Notice string `json:"notice"`
}

// ResolutionView is a resolution note as the admin API answers it.
type ResolutionView struct {
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

// noteBody checks a note's text (cleaned by core.MultiLine): invalid /
// body_required, body_too_long.
func noteBody(s string, limit int) (string, error) {
	body := core.MultiLine(s)
	switch {
	case body == "":
		return "", core.Invalid("body_required")
	case utf8.RuneCountInString(body) > limit:
		return "", core.Invalid("body_too_long")
	}
	return body, nil
}

// noteTarget loads the review a note is written to in tx.
func noteTarget(ctx context.Context, tx *store.Tx, publicID string) (store.Review, error) {
	if !isReviewID(publicID) {
		return store.Review{}, core.ErrNotFound
	}
	return tx.ReviewByPublicID(ctx, publicID)
}

// noteChanged writes the history and activity entries of a change of a brand note
// and moves the product's read revision (the storefront shows the notes).
func (c *Service) noteChanged(ctx context.Context, tx *store.Tx, a *core.Actor, r store.Review, event, action string, detail map[string]any) error {
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, event, r.State, r.State, "", detail); err != nil {
		return err
	}
	if err := c.Record(ctx, tx, a, action, "review", r.PublicID, detail); err != nil {
		return err
	}
	for _, ref := range readmodel.RefsOf(r.VariantKey, r.GroupKey, r.Market) {
		if err := tx.BumpProductRevision(ctx, ref.Scope, ref.Key, ref.Market); err != nil {
			return err
		}
	}
	return nil
}

// RespondToReview publishes the brand's reply to a published review (POST
// /admin/v1/reviews/<id>/seller-response) and e-mails the reviewer about it after
// the commit. Errors: invalid / body_required, body_too_long, body; 404 not_found;
// 409 seller_response_refused / parent_review_not_published, seller_response_open,
// text_steering, text_personal_data, text_profanity.
func (c *Service) RespondToReview(ctx context.Context, a *core.Actor, publicID string, in NoteInput) (SellerResponseView, error) {
	body, err := noteBody(in.Body, MaxSellerResponse)
	if err != nil {
		return SellerResponseView{}, err
	}
	var out SellerResponseView
	var job *responseMail
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := noteTarget(ctx, tx, publicID)
		if err != nil {
			return err
		}
		if r.State != core.ReviewPublished {
			return SellerResponseRefused("parent_review_not_published")
		}
		if _, err := tx.SellerResponseOf(ctx, r.ID); err == nil {
			return SellerResponseRefused("seller_response_open")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := brandText(body, r.Language, SellerResponseRefused); err != nil {
			return err
		}
		n, err := tx.CreateSellerResponse(ctx, r.ID, body, a.ID)
		if err != nil {
			return err
		}
		if err := c.noteChanged(ctx, tx, a, r, EventResponsePublished, "seller_response.created",
			map[string]any{"note": body}); err != nil {
			return err
		}
		if job, err = c.prepareResponseMail(ctx, tx, r, body); err != nil {
			return err
		}
		n, err = tx.SellerResponseOf(ctx, r.ID)
		out = SellerResponseView{Body: n.Body, PublishedAt: n.At, Notice: n.Notice}
		return err
	})
	if err != nil {
		return SellerResponseView{}, err
	}
	if job != nil {
		out.Notice = c.sendResponseMail(ctx, job)
	}
	return out, nil
}

// ChangeSellerResponse replaces the text of a review's seller response (PATCH);
// published_at stays and no new e-mail is sent. Errors: those of RespondToReview,
// with 404 not_found when the review has no response.
func (c *Service) ChangeSellerResponse(ctx context.Context, a *core.Actor, publicID string, in NoteInput) (SellerResponseView, error) {
	body, err := noteBody(in.Body, MaxSellerResponse)
	if err != nil {
		return SellerResponseView{}, err
	}
	var out SellerResponseView
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := noteTarget(ctx, tx, publicID)
		if err != nil {
			return err
		}
		if r.State != core.ReviewPublished {
			return SellerResponseRefused("parent_review_not_published")
		}
		if _, err := tx.SellerResponseOf(ctx, r.ID); err != nil {
			return err
		}
		if err := brandText(body, r.Language, SellerResponseRefused); err != nil {
			return err
		}
		if err := tx.UpdateSellerResponse(ctx, r.ID, body, a.ID); err != nil {
			return err
		}
		if err := c.noteChanged(ctx, tx, a, r, EventResponseChanged, "seller_response.changed",
			map[string]any{"note": body}); err != nil {
			return err
		}
		n, err := tx.SellerResponseOf(ctx, r.ID)
		out = SellerResponseView{Body: n.Body, PublishedAt: n.At, Notice: n.Notice}
		return err
	})
	return out, err
}

// WithdrawSellerResponse removes a review's seller response (DELETE), whatever
// the review's state. Errors: 404 not_found (no review, or no response).
func (c *Service) WithdrawSellerResponse(ctx context.Context, a *core.Actor, publicID string) error {
	return c.removeNote(ctx, a, publicID, (*store.Tx).DeleteSellerResponse, EventResponseWithdrawn, "seller_response.withdrawn")
}

// DraftInput is the body of POST /admin/v1/reviews/<id>/seller-response/draft.
type DraftInput struct {
	Tone string `json:"tone"`
}

// DraftView is a reply draft (nothing is published).
type DraftView struct {
	Body        string `json:"body"`
	Tone        string `json:"tone"`
	GeneratedBy string `json:"generated_by"`
}

// DraftSellerResponse writes a reply draft of a review (POST
// /admin/v1/reviews/<id>/seller-response/draft) in the review's language and the
// tone asked for (default the setting reply_tone); nothing is stored. A draft that
// fails the seller-reply checks is refused. Errors: invalid / tone; 404
// not_found; 409 seller_response_refused / ai_package_off (ai.provider off),
// ai_draft_unusable.
func (c *Service) DraftSellerResponse(ctx context.Context, publicID string, in DraftInput) (DraftView, error) {
	q := c.DB.Read()
	r, err := AdminReview(ctx, q, publicID)
	if err != nil {
		return DraftView{}, err
	}
	if !c.AI.On() {
		return DraftView{}, SellerResponseRefused("ai_package_off")
	}
	tone := in.Tone
	switch tone {
	case "":
		st, err := c.Brand.LoadSettings(ctx, q)
		if err != nil {
			return DraftView{}, err
		}
		tone = st.ReplyTone
		if tone != ai.ToneWarm {
			tone = ai.ToneFormal
		}
	case ai.ToneFormal, ai.ToneWarm:
	default:
		return DraftView{}, core.Invalid("tone")
	}
	d := ai.DraftInput{Rating: r.Rating, Title: r.Title, Body: r.Body, Language: r.Language, Tone: tone}
	if !r.HideName && r.AnonymizedAt.IsZero() {
		d.AuthorName, _, _ = strings.Cut(strings.TrimSpace(r.AuthorName), " ")
	}
	if ch, err := q.ChannelByID(ctx, r.ChannelID); err == nil {
		d.Brand = ch.BrandName
	} else if !errors.Is(err, store.ErrNotFound) {
		return DraftView{}, err
	}
	body, by, err := c.AI.Draft(ctx, d)
	if err != nil {
		return DraftView{}, err
	}
	body, err = noteBody(body, MaxSellerResponse)
	if err == nil {
		err = brandText(body, r.Language, SellerResponseRefused)
	}
	if err != nil {
		var ce *core.Error
		if errors.As(err, &ce) {
			return DraftView{}, SellerResponseRefused("ai_draft_unusable")
		}
		return DraftView{}, err
	}
	return DraftView{Body: body, Tone: tone, GeneratedBy: by}, nil
}

// SetResolution writes the resolution note of a published or temporarily hidden
// review (POST /admin/v1/reviews/<id>/resolution), replacing an earlier note.
// Errors: invalid / body_required, body_too_long, body; 404 not_found; 409
// resolution_refused / review_not_live, text_steering, text_personal_data,
// text_profanity.
func (c *Service) SetResolution(ctx context.Context, a *core.Actor, publicID string, in NoteInput) (ResolutionView, error) {
	body, err := noteBody(in.Body, MaxResolutionNote)
	if err != nil {
		return ResolutionView{}, err
	}
	var out ResolutionView
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := noteTarget(ctx, tx, publicID)
		if err != nil {
			return err
		}
		if r.State != core.ReviewPublished && r.State != core.ReviewHidden {
			return ResolutionRefused("review_not_live")
		}
		if err := brandText(body, r.Language, ResolutionRefused); err != nil {
			return err
		}
		n, err := tx.SetResolution(ctx, r.ID, body, a.ID)
		if err != nil {
			return err
		}
		out = ResolutionView{Body: n.Body, CreatedAt: n.At}
		return c.noteChanged(ctx, tx, a, r, EventResolutionSet, "resolution.created",
			map[string]any{"note": body})
	})
	return out, err
}

// RemoveResolution withdraws a review's resolution note (DELETE), whatever the
// review's state. Errors: 404 not_found (no review, or no note).
func (c *Service) RemoveResolution(ctx context.Context, a *core.Actor, publicID string) error {
	return c.removeNote(ctx, a, publicID, (*store.Tx).DeleteResolution, EventResolutionRemoved, "resolution.withdrawn")
}

// removeNote deletes one of a review's brand notes with del (404 not_found when
// there is none) and records the change, in one transaction.
func (c *Service) removeNote(ctx context.Context, a *core.Actor, publicID string,
	del func(*store.Tx, context.Context, int64) error, event, action string) error {
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := noteTarget(ctx, tx, publicID)
		if err != nil {
			return err
		}
		if err := del(tx, ctx, r.ID); err != nil {
			return err
		}
		return c.noteChanged(ctx, tx, a, r, event, action, nil)
	})
}

// brandText applies checks.BrandTextProblem (no health-claim rule) and refuses
// with refuse(detail).
func brandText(body, lang string, refuse func(string) *core.Error) error {
	problem, err := checks.BrandTextProblem(body, lang, false)
	if err != nil || problem == "" {
		return err
	}
	return refuse(problem)
}

// ReviewRowID resolves a review's public id to its row id (false when unknown).
func (c *Service) ReviewRowID(ctx context.Context, publicID string) (int64, bool) {
	if !isReviewID(publicID) {
		return 0, false
	}
	r, err := c.DB.Read().ReviewByPublicID(ctx, publicID)
	return r.ID, err == nil
}

package qa

import (
	"context"
	"reviewd/app/core"
	"reviewd/app/core/checks"
	"reviewd/store"
)

// AnswerRefused is 409 answer_refused / detail (a brand answer refused).
func AnswerRefused(detail string) *core.Error {
	return core.E(core.StatusConflict, "answer_refused", detail)
}

// qaBrandAnswerCheck refuses a brand answer that steers the customer, makes a health
// claim, holds personal data or swears (checks.BrandTextProblem, in this order).
func qaBrandAnswerCheck(body, lang string) error {
	problem, err := checks.BrandTextProblem(body, lang, true)
	if err != nil || problem == "" {
		return err
	}
	return AnswerRefused(problem)
}

// BrandAnswerInput is the body of POST /admin/v1/questions/<id>/answer.
type BrandAnswerInput struct {
	Body string `json:"body"`
}

// AnswerAsBrand writes the brand's answer to a live question and publishes it (POST
// /admin/v1/questions/<id>/answer); the author is the brand name of the question's
// channel and the asker gets the answer e-mail. Errors: 404 not_found, invalid /
// body_required, body_too_long, 409 answer_refused / question_not_published,
// text_steering, text_health_claim, text_personal_data, text_profanity.
func (c *Service) AnswerAsBrand(ctx context.Context, a *core.Actor, publicID string, in BrandAnswerInput) (AnswerItem, error) {
	body, err := validateQABody(in.Body, MaxAnswerBody)
	if err != nil {
		return AnswerItem{}, err
	}
	var out AnswerItem
	var job *answerMail
	var id string
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := tx.QuestionByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		if x.State != QAPublished {
			return AnswerRefused("question_not_published")
		}
		if err := qaBrandAnswerCheck(body, x.Language); err != nil {
			return err
		}
		ch, err := tx.ChannelByID(ctx, x.ChannelID)
		if err != nil {
			return err
		}
		ans, err := tx.CreateAnswer(ctx, store.Answer{PublicID: NewAnswerID(), QuestionID: x.ID, Kind: AnswerBrand,
			ChannelID: x.ChannelID, AuthorName: core.BrandOf(ch), Body: body, Language: x.Language, State: QAPublished,
			Findings: "[]", ActorID: a.ID, PublishedAt: tx.Now})
		if err != nil {
			return err
		}
		id = ans.PublicID
		if err := c.addQAEvent(ctx, tx, a, x.ID, ans.ID, "answered", "", QAPublished, ""); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "answer.created", "answer", ans.PublicID,
			map[string]any{"question": x.PublicID, "kind": AnswerBrand, "state": QAPublished}); err != nil {
			return err
		}
		if job, err = c.publishedAnswerMail(ctx, tx, x, ans); err != nil {
			return err
		}
		out, err = c.reloadAnswerItem(ctx, tx, x, ans.ID)
		return err
	})
	if err != nil {
		return AnswerItem{}, err
	}
	c.deliverAnswerMail(ctx, job, id, &out)
	return out, nil
}

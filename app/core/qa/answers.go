package qa

import (
	"context"
	"encoding/json"
	"errors"
	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/store"
	"slices"
	"strings"
)

// AnswerInput is the body of POST /v1/questions/<id>/answers.
type AnswerInput struct {
	Body     string          `json:"body"`
	Name     string          `json:"name"`
	HideName json.RawMessage `json:"hide_name"`
	Language string          `json:"language"`
}

// answerTokenKinds are the tokens a customer answer is accepted with: a product
// review invitation or an order check (both prove the purchase of the order's
// products). Shopping-experience and correction tokens are token_wrong_kind.
var answerTokenKinds = []string{buyer.TokenInvitation, buyer.TokenOrderCheck}

// verifyAnswerToken checks the writing token of a customer answer on channel site.
// Unlike VerifyToken, a token already used for a review is accepted (spec 2).
// Refusals: 401 token_required, token_foreign_tenant, token_unknown,
// token_wrong_kind, token_foreign_market, token_expired.
func (c *Service) verifyAnswerToken(ctx context.Context, q *store.Q, tok string, site store.Channel) (store.Token, error) {
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return store.Token{}, core.ErrTokenRequired
	}
	plain, foreign := c.Buyer.UntagToken(tok)
	if foreign {
		return store.Token{}, buyer.TokenRefused(buyer.TokenForeignTenant).AsRefusal()
	}
	t, err := q.TokenByHash(ctx, core.HashToken(plain))
	if errors.Is(err, store.ErrNotFound) {
		return store.Token{}, buyer.TokenRefused(buyer.TokenUnknown).AsRefusal()
	}
	if err != nil {
		return store.Token{}, err
	}
	switch {
	case !slices.Contains(answerTokenKinds, t.Kind):
		return store.Token{}, buyer.TokenRefused(buyer.TokenWrongKind)
	case t.Market != site.Market:
		return store.Token{}, buyer.TokenRefused(buyer.TokenForeignMarket)
	case !q.Now.Before(t.ExpiresAt):
		return store.Token{}, buyer.TokenRefused(buyer.TokenExpired)
	}
	return t, nil
}

// buyerLine finds the line of order o that proves the purchase of the question's
// product: the same variant (variant questions) or group (group questions), not
// cancelled or returned. None: token_refused / not_a_buyer.
func qaBuyerLine(o store.Order, lines []store.OrderLine, x store.Question) (store.OrderLine, error) {
	if o.Erased() {
		return store.OrderLine{}, buyer.TokenRefused(NotABuyer)
	}
	for _, l := range lines {
		same := (x.Scope == "variant" && x.VariantKey != "" && l.VariantKey == x.VariantKey) ||
			(x.Scope == "group" && x.GroupKey != "" && l.GroupKey == x.GroupKey)
		if same && l.FulfilmentState != core.LineCancelled && l.FulfilmentState != core.LineReturned {
			return l, nil
		}
	}
	return store.OrderLine{}, buyer.TokenRefused(NotABuyer)
}

// liveQuestion loads a published question of the site's market; anything else is
// 404 not_found.
func qaLiveQuestion(ctx context.Context, q *store.Q, publicID string, site store.Channel) (store.Question, error) {
	x, err := q.QuestionByPublicID(ctx, publicID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (x.State != QAPublished || x.Market != site.Market)) {
		return store.Question{}, core.ErrNotFound
	}
	return x, err
}

// AnswerQuestion stores a customer's answer to a live question of site's market
// (POST /v1/questions/<id>/answers) with the writing token of X-Service-Token. The
// token's order must contain the question's product on a line that was not
// cancelled or returned; having written a review with the token does not matter.
// The answer is checked and published like a question; when it goes live the asker
// gets the answer e-mail. Errors: questions_disabled, 401 token_required, invalid /
// body_required, body_too_long, name_too_long, hide_name, 404 not_found,
// token_refused / token_unknown, token_wrong_kind, token_foreign_market,
// token_expired, not_a_buyer.
func (c *Service) AnswerQuestion(ctx context.Context, a *core.Actor, site store.Channel, questionID, token string, in AnswerInput) (QACreated, error) {
	var out QACreated
	if err := c.questionsOn(ctx, c.DB.Read()); err != nil {
		return out, err
	}
	if strings.TrimSpace(token) == "" {
		return out, core.ErrTokenRequired
	}
	body, err := validateQABody(in.Body, MaxAnswerBody)
	if err != nil {
		return out, err
	}
	name, err := validateQAName(in.Name)
	if err != nil {
		return out, err
	}
	hide, _, err := core.ParseHideName(in.HideName)
	if err != nil {
		return out, err
	}
	lang := core.Language(in.Language, site)
	var mailJob *answerMail
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := qaLiveQuestion(ctx, tx.Q, questionID, site)
		if err != nil {
			return err
		}
		t, err := c.verifyAnswerToken(ctx, tx.Q, token, site)
		if err != nil {
			return err
		}
		o, err := tx.OrderByID(ctx, t.OrderID)
		if err != nil {
			return err
		}
		lines, err := tx.LinesOfOrder(ctx, o.ID)
		if err != nil {
			return err
		}
		line, err := qaBuyerLine(o, lines, x)
		if err != nil {
			return err
		}
		st, err := c.Brand.LoadSettings(ctx, tx.Q)
		if err != nil {
			return err
		}
		findings, flagged, err := c.qaChecks(ctx, tx.Q, body, name, lang)
		if err != nil {
			return err
		}
		state := qaPublishDecision(st.PublishingMethod, flagged)
		ans := store.Answer{PublicID: NewAnswerID(), QuestionID: x.ID, Kind: AnswerBuyer, ChannelID: site.ID, TokenID: t.ID,
			OrderID: o.ID, LineID: line.ID, AuthorName: name, HideName: hide, Body: body, Language: lang, State: state,
			FlagOpen: flagged, Findings: findings}
		if state == QAPublished {
			ans.PublishedAt = tx.Now
		}
		if ans, err = tx.CreateAnswer(ctx, ans); err != nil {
			return err
		}
		if err := c.addQAEvent(ctx, tx, a, x.ID, ans.ID, "answered", "", state, ""); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "answer.created", "answer", ans.PublicID,
			map[string]any{"question": x.PublicID, "kind": AnswerBuyer, "state": state, "flagged": flagged}); err != nil {
			return err
		}
		if state == QAPublished {
			if mailJob, err = c.prepareAnswerMail(ctx, tx, x, ans, st); err != nil {
				return err
			}
		}
		out = QACreated{ID: ans.PublicID, State: state}
		return nil
	})
	if err != nil {
		return QACreated{}, err
	}
	c.sendAnswerMail(ctx, mailJob)
	return out, nil
}

// Answer e-mail ----------------------------------------------------------------

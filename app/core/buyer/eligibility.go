package buyer

import (
	"context"
	"crypto/hmac"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// ErrNotEligible is the one general refusal of the order check: the same for an
// unknown order, a wrong address, an unpaid or undelivered order, an order of
// another market or one already reviewed.
var ErrNotEligible = core.E(core.StatusForbidden, "token_refused", "not_eligible")

// OrderCheckLifetime caps how long an order-check token stays valid (it also ends
// with the review window of its lines). See docs/decisions.md.
const OrderCheckLifetime = 24 * time.Hour

// EligibilityInput is the body of POST /v1/eligibility.
type EligibilityInput struct {
	Order    string `json:"order"`
	Email    string `json:"email"`
	Language string `json:"language"`
}

// Normalize trims the input and checks its form: invalid / order (missing),
// order_too_long, email_invalid (missing or without @), email_too_long. A malformed
// request is not an attempt (the failure limit counts only well-formed ones).
func (in *EligibilityInput) Normalize() error {
	in.Order = strings.TrimSpace(in.Order)
	in.Email = strings.ToLower(strings.TrimSpace(in.Email))
	switch {
	case in.Order == "" || !core.StorableText(in.Order):
		return core.Invalid("order")
	case utf8.RuneCountInString(in.Order) > core.MaxOrderReference:
		return core.Invalid("order_too_long")
	case utf8.RuneCountInString(in.Email) > core.MaxEmailLength:
		return core.Invalid("email_too_long")
	case !strings.Contains(in.Email, "@") || !core.StorableText(in.Email):
		return core.Invalid("email_invalid")
	}
	return nil
}

// Eligibility is the answer of a successful order check.
type Eligibility struct {
	Token     string    `json:"token"`
	Mode      string    `json:"mode"`
	ExpiresAt time.Time `json:"expires_at"`
}

// dummyAddress is compared when there are no orders at all.
const dummyAddress = "unknown-order@invalid.invalid"

// CheckEligibility is the order check (POST /v1/eligibility) on channel site: the
// order number and address of a customer. When the order belongs to the site's
// market, its address matches (ASCII case ignored), and at least one line is
// reviewable (LineReviewable) and not yet reviewed, it issues a single-use
// order_check token for those lines, valid until their review window ends but at
// most OrderCheckLifetime. Every other outcome is ErrNotEligible. An unknown order
// and a wrong address do the same work: one order look-up by number and one
// keyed-hash comparison (hmac.Equal) against the stored address, the unknown number
// reading a decoy order instead (store.OrderForCheck). The
// failure limit (10 per hour per address and per order number) is the caller's.
func (c *Service) CheckEligibility(ctx context.Context, a *core.Actor, site store.Channel, in EligibilityInput) (Eligibility, error) {
	if err := in.Normalize(); err != nil {
		return Eligibility{}, err
	}
	var out Eligibility
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		o, found, err := tx.OrderForCheck(ctx, in.Order)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		stored := dummyAddress
		if err == nil {
			// The real order's address, or the decoy's when the number is unknown:
			// the same work either way.
			stored = strings.ToLower(o.CustomerEmail)
		}
		want := c.Keys.Pseudonym("eligibility", stored)
		got := c.Keys.Pseudonym("eligibility", in.Email)
		match := hmac.Equal([]byte(want), []byte(got))
		if !found || !match || o.Erased() || o.CustomerEmail == "" || o.Market != site.Market {
			return ErrNotEligible
		}
		lines, err := tx.LinesOfOrder(ctx, o.ID)
		if err != nil {
			return err
		}
		reviewed, err := tx.ReviewedLines(ctx, o.ID)
		if err != nil {
			return err
		}
		revs, err := c.OrderReviewability(ctx, tx.Q, o, lines, tx.Now)
		if err != nil {
			return err
		}
		var ids []int64
		var windowEnds time.Time
		for i, r := range revs {
			if !r.Reviewable || reviewed[lines[i].ID] {
				continue
			}
			ids = append(ids, lines[i].ID)
			if r.WindowEnds.After(windowEnds) {
				windowEnds = r.WindowEnds
			}
		}
		if len(ids) == 0 {
			return ErrNotEligible
		}
		expires := tx.Now.Add(OrderCheckLifetime)
		if windowEnds.Before(expires) {
			expires = windowEnds
		}
		plain, _, err := IssueToken(ctx, tx, TokenOrderCheck, o, ids, expires, 0)
		if err != nil {
			return err
		}
		out = Eligibility{Token: c.TagToken(plain), Mode: ModeWrite, ExpiresAt: expires}
		return c.Record(ctx, tx, a, "order_check.passed", "order", core.OrderPublicID(o.ID), map[string]any{"lines": len(ids)})
	})
	return out, err
}

// TokenProduct is one product of the token check answer.
type TokenProduct struct {
	LineReference string             `json:"line_reference"`
	VariantKey    string             `json:"variant_key"`
	GroupKey      string             `json:"group_key"`
	Title         string             `json:"title"`
	Aspects       []brand.AspectView `json:"aspects"`
}

// TokenReview is the review a correction link corrects (mode revise).
type TokenReview struct {
	ID            string         `json:"id"`
	LineReference string         `json:"line_reference"`
	Rating        int            `json:"rating"`
	Title         string         `json:"title"`
	Body          string         `json:"body"`
	AuthorName    string         `json:"author_name"`
	HideName      bool           `json:"hide_name"`
	Aspects       map[string]int `json:"aspects"`
	Media         []TokenMedia   `json:"media"`
}

// TokenMedia is a file of the review being corrected.
type TokenMedia struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
}

// TokenView is the answer of POST /v1/eligibility/token.
type TokenView struct {
	Mode           string          `json:"mode"`
	OrderReference string          `json:"order_reference"`
	Channel        string          `json:"channel"`
	Language       string          `json:"language"`
	ExpiresAt      time.Time       `json:"expires_at"`
	Products       []TokenProduct  `json:"products"`
	Review         *TokenReview    `json:"review,omitempty"`
	Limits         core.FormLimits `json:"limits"`
}

// OpenToken is the token check (POST /v1/eligibility/token) on channel site. Mode
// write (product invitation, order check) lists the lines a review may still be
// written for with their rating topics; feedback (shopping experience) the same
// lines without topics; revise (correction link) the review to correct. A token
// with nothing left to write is token_spent when a line was reviewed, else
// token_expired; a correction of a review that is no longer rejected is
// invalid / review_not_revisable.
func (c *Service) OpenToken(ctx context.Context, site store.Channel, tok, lang string) (TokenView, error) {
	q := c.DB.Read()
	v, err := c.VerifyToken(ctx, q, tok, site, AllTokenKinds...)
	if err != nil {
		return TokenView{}, err
	}
	lang = core.Language(lang, site)
	out := TokenView{Mode: v.Mode(), OrderReference: v.Order.ExternalID, Channel: v.Channel.Code, Language: lang,
		ExpiresAt: v.Token.ExpiresAt, Products: []TokenProduct{}, Limits: core.ReviewFormLimits()}
	if v.Mode() == ModeRevise {
		r := v.Review
		if !core.Revisable(r) {
			return TokenView{}, core.ErrNotRevisable
		}
		l, ok := v.Line(lineRefOf(v, r.LineID))
		if !ok {
			return TokenView{}, TokenRefused(LineOutOfScope)
		}
		p, err := c.tokenProduct(ctx, q, l.Line, r.Experience == core.ExperienceProcess, r.AspectTemplate, lang)
		if err != nil {
			return TokenView{}, err
		}
		out.Products = append(out.Products, p)
		tr := &TokenReview{ID: r.PublicID, LineReference: l.Line.LineReference, Rating: r.Rating, Title: r.Title, Body: r.Body,
			AuthorName: r.AuthorName, HideName: r.HideName, Aspects: brand.StoredAspects(r.Aspects), Media: []TokenMedia{}}
		ms, err := q.MediaOfReview(ctx, r.ID)
		if err != nil {
			return TokenView{}, err
		}
		for _, m := range ms {
			if m.State != store.MediaRemoved && m.State != store.MediaFailed {
				tr.Media = append(tr.Media, TokenMedia{ID: m.PublicID, Kind: m.Kind})
			}
		}
		out.Review = tr
		return out, nil
	}
	anyReviewed := false
	for _, l := range v.Lines {
		anyReviewed = anyReviewed || l.Reviewed
		if !l.Writable {
			continue
		}
		p, err := c.tokenProduct(ctx, q, l.Line, v.Mode() == ModeFeedback, "", lang)
		if err != nil {
			return TokenView{}, err
		}
		out.Products = append(out.Products, p)
	}
	if len(out.Products) == 0 {
		if anyReviewed {
			return TokenView{}, TokenRefused(TokenSpent)
		}
		return TokenView{}, TokenRefused(TokenExpired)
	}
	return out, nil
}

func lineRefOf(v VerifiedToken, lineID int64) string {
	for _, l := range v.Lines {
		if l.Line.ID == lineID {
			return l.Line.LineReference
		}
	}
	return ""
}

// tokenProduct describes a line for the writing form. Feedback lines carry no
// rating topics; a correction uses the list its review was written with.
func (c *Service) tokenProduct(ctx context.Context, q *store.Q, l store.OrderLine, feedback bool, templateKey, lang string) (TokenProduct, error) {
	p := TokenProduct{LineReference: l.LineReference, VariantKey: l.VariantKey, GroupKey: l.GroupKey, Title: l.Title,
		Aspects: []brand.AspectView{}}
	if feedback {
		return p, nil
	}
	t, ok, err := c.lineTemplate(ctx, q, l, templateKey)
	if err != nil || !ok {
		return p, err
	}
	p.Aspects = t.Views(lang)
	return p, nil
}

// lineTemplate is the list a line's review is rated on: templateKey when given (a
// stored review's), else the product's.
func (c *Service) lineTemplate(ctx context.Context, q *store.Q, l store.OrderLine, templateKey string) (brand.AspectTemplate, bool, error) {
	if templateKey != "" {
		return c.Brand.AspectTemplateByKey(ctx, q, templateKey)
	}
	return c.Brand.TemplateForProduct(ctx, q, l.VariantKey, l.GroupKey)
}

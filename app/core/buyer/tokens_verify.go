package buyer

import (
	"context"
	"errors"
	"strings"

	"reviewd/app/core"
	"reviewd/store"
)

// Token refusal details (spec 2, "Review writing"), all 403 token_refused.
const (
	TokenUnknown       = "token_unknown"
	TokenExpired       = "token_expired"
	TokenSpent         = "token_spent"
	TokenWrongKind     = "token_wrong_kind"
	TokenForeignTenant = "token_foreign_tenant"
	TokenForeignMarket = "token_foreign_market"
	LineAlreadyWritten = "line_already_written"
	LineOutOfScope     = "line_out_of_scope"
)

// TokenRefused is 403 token_refused / detail.
func TokenRefused(detail string) *core.Error {
	return core.E(core.StatusForbidden, "token_refused", detail)
}

// tenantTagLen is the length of the installation tag a tagged token starts with.
const tenantTagLen = 8

// TenantTag is this installation's (this brand's) token tag: 8 hex characters
// derived from the master key, so another installation has another tag.
func (c *Service) TenantTag() string { return c.Keys.Pseudonym("token-tenant", "")[:tenantTagLen] }

// TagToken returns the form of a plain token (from IssueToken) that goes into links:
// "<tenant tag>.<token>". A tagged token presented to another brand's installation
// answers token_foreign_tenant instead of token_unknown. Untagged tokens stay valid.
func (c *Service) TagToken(plain string) string { return c.TenantTag() + "." + plain }

// untagToken strips this installation's tag. foreign is true when the token carries
// another installation's tag.
func (c *Service) UntagToken(tok string) (plain string, foreign bool) {
	tag, rest, ok := strings.Cut(tok, ".")
	if !ok || len(tag) != tenantTagLen || !isLowerHex(tag) {
		return tok, false
	}
	if !core.Equal(tag, c.TenantTag()) {
		return "", true
	}
	return rest, false
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// TokenLine is one line a token covers, with what may be done with it now.
type TokenLine struct {
	Line store.OrderLine
	// Reviewed is true when the line has a review (any state).
	Reviewed bool
	// Writable is true when a review may be written for the line with this token
	// now (product tokens: LineReviewable and not reviewed; shopping-experience
	// tokens: cancelled or returned and not reviewed; correction tokens: never, the
	// review exists).
	Writable bool
}

// VerifiedToken is a token that passed VerifyToken, with its order and lines.
type VerifiedToken struct {
	Token   store.Token
	Order   store.Order
	Channel store.Channel // the order's channel
	Lines   []TokenLine
	// Review is the review a correction token belongs to.
	Review store.Review
}

// Line returns the covered line with reference ref.
func (v VerifiedToken) Line(ref string) (TokenLine, bool) {
	for _, l := range v.Lines {
		if l.Line.LineReference == ref {
			return l, true
		}
	}
	return TokenLine{}, false
}

// Mode is the writing mode of the token: write (product invitation, order check),
// feedback (shopping experience) or revise (correction).
func (v VerifiedToken) Mode() string { return TokenMode(v.Token.Kind) }

// TokenMode maps a token kind to its writing mode.
func TokenMode(kind string) string {
	switch kind {
	case TokenExperience:
		return ModeFeedback
	case TokenCorrection:
		return ModeRevise
	default:
		return ModeWrite
	}
}

// Writing modes of POST /v1/eligibility/token.
const (
	ModeWrite    = "write"
	ModeFeedback = "feedback"
	ModeRevise   = "revise"
)

// WritingKinds are the token kinds POST /v1/reviews accepts.
var WritingKinds = []string{TokenInvitation, TokenOrderCheck, TokenExperience}

// AllTokenKinds are every kind; the token check and uploads accept them all.
var AllTokenKinds = []string{TokenInvitation, TokenOrderCheck, TokenExperience, TokenCorrection}

// VerifyToken checks a writing token presented on a channel (site) for one of the
// given kinds and loads its order and lines over q. Refusals, in this order:
// 401 token_required (empty), token_foreign_tenant (another installation's tag),
// token_unknown, token_wrong_kind, token_foreign_market (the site's market is not
// the token's), token_spent, token_expired. Unknown and foreign tokens count toward
// the per-IP refusal limit. Per-line rules (line_already_written,
// line_out_of_scope) are the caller's, from Lines.
func (c *Service) VerifyToken(ctx context.Context, q *store.Q, tok string, site store.Channel, kinds ...string) (VerifiedToken, error) {
	var v VerifiedToken
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return v, core.ErrTokenRequired
	}
	plain, foreign := c.UntagToken(tok)
	if foreign {
		return v, TokenRefused(TokenForeignTenant).AsRefusal()
	}
	t, err := q.TokenByHash(ctx, core.HashToken(plain))
	if errors.Is(err, store.ErrNotFound) {
		return v, TokenRefused(TokenUnknown).AsRefusal()
	}
	if err != nil {
		return v, err
	}
	kindOK := false
	for _, k := range kinds {
		kindOK = kindOK || k == t.Kind
	}
	switch {
	case !kindOK:
		return v, TokenRefused(TokenWrongKind)
	case t.Market != site.Market:
		return v, TokenRefused(TokenForeignMarket)
	case !t.SpentAt.IsZero():
		return v, TokenRefused(TokenSpent)
	case !q.Now.Before(t.ExpiresAt):
		return v, TokenRefused(TokenExpired)
	}
	v.Token = t
	if v.Order, err = q.OrderByID(ctx, t.OrderID); err != nil {
		return v, err
	}
	if v.Channel, err = q.ChannelByID(ctx, v.Order.ChannelID); err != nil {
		return v, err
	}
	lines, err := q.TokenLines(ctx, t.ID)
	if err != nil {
		return v, err
	}
	reviewed, err := q.ReviewedLines(ctx, v.Order.ID)
	if err != nil {
		return v, err
	}
	revs, err := c.OrderReviewability(ctx, q, v.Order, lines, q.Now)
	if err != nil {
		return v, err
	}
	for i, l := range lines {
		tl := TokenLine{Line: l, Reviewed: reviewed[l.ID]}
		switch t.Kind {
		case TokenInvitation, TokenOrderCheck:
			tl.Writable = !tl.Reviewed && revs[i].Reviewable
		case TokenExperience:
			tl.Writable = !tl.Reviewed && !v.Order.Erased() &&
				(l.FulfilmentState == core.LineCancelled || l.FulfilmentState == core.LineReturned)
		}
		v.Lines = append(v.Lines, tl)
	}
	if t.Kind == TokenCorrection {
		if t.ReviewID == 0 {
			return v, TokenRefused(TokenUnknown)
		}
		if v.Review, err = q.ReviewByID(ctx, t.ReviewID); err != nil {
			return v, err
		}
	}
	return v, nil
}

// lineFor applies the per-line rules of a writing token: a line the token does not
// cover, or one that can no longer be reviewed, is line_out_of_scope; a line with a
// review is line_already_written.
func (v VerifiedToken) LineFor(ref string) (store.OrderLine, error) {
	l, ok := v.Line(ref)
	switch {
	case !ok:
		return store.OrderLine{}, TokenRefused(LineOutOfScope)
	case l.Reviewed:
		return store.OrderLine{}, TokenRefused(LineAlreadyWritten)
	case !l.Writable:
		return store.OrderLine{}, TokenRefused(LineOutOfScope)
	}
	return l.Line, nil
}

// uploadLine is the line an upload with this token is for: the correction's own
// line for a correction token, else a line the token may still write.
func (v VerifiedToken) UploadLine(ref string) (store.OrderLine, error) {
	if v.Token.Kind != TokenCorrection {
		return v.LineFor(ref)
	}
	l, ok := v.Line(ref)
	if !ok || l.Line.ID != v.Review.LineID {
		return store.OrderLine{}, TokenRefused(LineOutOfScope)
	}
	return l.Line, nil
}

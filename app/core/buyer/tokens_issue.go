package buyer

import (
	"context"
	"fmt"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Token kinds (tokens.kind).
const (
	TokenInvitation = "invitation"  // product review invitation (and its reminder)
	TokenExperience = "experience"  // shopping-experience invitation
	TokenCorrection = "correction"  // correcting a rejected review
	TokenOrderCheck = "order_check" // issued by the order check (POST /v1/eligibility)
)

// TokenBytes is the entropy of a plain token (256 bits, 43 base64url characters).
const TokenBytes = 32

// IssueToken creates a token of kind for the given lines of order o, valid until
// expiresAt, inside tx, and returns the plain token (shown once: only its SHA-256
// is stored) and the token's id. reviewID is set for correction tokens (0
// otherwise). Verifying tokens is the job of the review endpoints.
func IssueToken(ctx context.Context, tx *store.Tx, kind string, o store.Order, lineIDs []int64, expiresAt time.Time, reviewID int64) (string, int64, error) {
	switch kind {
	case TokenInvitation, TokenExperience, TokenCorrection, TokenOrderCheck:
	default:
		return "", 0, fmt.Errorf("core: issue token: unknown kind %q", kind)
	}
	if o.ID == 0 {
		return "", 0, fmt.Errorf("core: issue token: order without id")
	}
	plain := core.RandomToken(TokenBytes)
	t, err := tx.CreateToken(ctx, store.Token{Hash: core.HashToken(plain), Kind: kind, OrderID: o.ID, ChannelID: o.ChannelID,
		Market: o.Market, ReviewID: reviewID, ExpiresAt: expiresAt}, lineIDs)
	if err != nil {
		return "", 0, err
	}
	return plain, t.ID, nil
}

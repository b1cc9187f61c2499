// Package votes owns the helpful votes on published reviews: one vote per visitor
// per review, one counted new vote per address and day.
package votes

import (
	"context"
	"net/netip"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/store"
)

// Helpful votes (POST /v1/reviews/<id>/helpful): one vote per visitor per review.
// The visitor is the visitor_key the script keeps (else the IP address), stored
// only as a keyed hash; it removes duplicates, the rate limit is per IP address.

// Service records helpful votes.
type Service struct {
	DB *store.DB
	// Keys pseudonymises the voters' addresses.
	Keys *core.Keyring
	// Reviews finds the review a channel shows.
	Reviews *reviews.Service
}

// Vote values.
const (
	VoteUp   = "up"
	VoteDown = "down"
	VoteNone = "none"
)

// VoteInput is the body of POST /v1/reviews/<id>/helpful.
type VoteInput struct {
	Vote       string `json:"vote"`
	VisitorKey string `json:"visitor_key"`
}

// VoteResult is its answer. Vote is null when the visitor has no vote (after
// none). Counted is true when this request recorded a vote in its direction (a new
// vote or a moved one), false for a repeat and for none.
type VoteResult struct {
	Vote           *string `json:"vote"`
	Counted        bool    `json:"counted"`
	HelpfulCount   int     `json:"helpful_count"`
	UnhelpfulCount int     `json:"unhelpful_count"`
}

// VoteHelpful records a visitor's helpful vote on a review shown on channel ch.
// Repeating the direction changes nothing (counted false); the other direction
// moves the vote; none withdraws it. Errors: invalid / vote, 404 not_found.
func (c *Service) VoteHelpful(ctx context.Context, a *core.Actor, ch store.Channel, reviewID string, in VoteInput) (VoteResult, error) {
	if in.Vote != VoteUp && in.Vote != VoteDown && in.Vote != VoteNone {
		return VoteResult{}, core.Invalid("vote")
	}
	visitor := c.Reviews.Visitor(in.VisitorKey, a.IP)
	var out VoteResult
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := c.Reviews.VisibleReview(ctx, tx, ch, reviewID)
		if err != nil {
			return err
		}
		prev, err := tx.VoteOf(ctx, r.ID, visitor)
		if err != nil {
			return err
		}
		out.HelpfulCount, out.UnhelpfulCount = r.HelpfulCount, r.UnhelpfulCount
		next := in.Vote
		if next == VoteNone {
			next = ""
		}
		if next != "" {
			v := next
			out.Vote = &v
		}
		if prev == next {
			return nil
		}
		if prev == "" && next != "" {
			if ok, err := c.claimVoteIP(ctx, tx, r.ID, a.IP, visitor); err != nil || !ok {
				out.Vote = nil // this address's vote on the review is counted today already
				return err
			}
		}
		up, down := 0, 0
		switch prev {
		case VoteUp:
			up--
		case VoteDown:
			down--
		}
		switch next {
		case VoteUp:
			up++
		case VoteDown:
			down++
		}
		if next == "" {
			err = tx.DeleteVote(ctx, r.ID, visitor)
		} else {
			err = tx.SetVote(ctx, r.ID, visitor, next)
			out.Counted = true
		}
		if err != nil {
			return err
		}
		if out.HelpfulCount, out.UnhelpfulCount, err = tx.AddHelpfulCounts(ctx, r.ID, up, down); err != nil {
			return err
		}
		if err := tx.SetListingHelpful(ctx, r.ID, out.HelpfulCount); err != nil {
			return err
		}
		for _, ref := range readmodel.RefsOf(r.VariantKey, r.GroupKey, r.Market) {
			if err := tx.BumpProductRevision(ctx, ref.Scope, ref.Key, ref.Market); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// claimVoteIP allows one counted new vote per review per visitor address and UTC
// day, whatever visitor_key is sent: visitor_key only removes duplicates, so
// without this one address could reorder the helpful sort by sending new keys.
// IPv6 addresses count by their /64. It reports false when another visitor from
// the address has voted on the review today already (the same visitor may
// withdraw and vote again).
func (c *Service) claimVoteIP(ctx context.Context, tx *store.Tx, reviewID int64, ip, visitor string) (bool, error) {
	addr := ip
	if a, err := netip.ParseAddr(ip); err == nil {
		a = a.Unmap()
		if a.Is6() {
			p, _ := a.Prefix(64)
			addr = p.String()
		} else {
			addr = a.String()
		}
	}
	day := tx.Now.UTC().Format("2006-01-02")
	return tx.ClaimVoteIP(ctx, reviewID, c.Keys.Pseudonym("vote-ip", addr+"|"+day), visitor)
}

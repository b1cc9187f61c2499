package reviews

import (
	"context"
	"errors"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/store"
)

// Helpful votes (POST /v1/reviews/<id>/helpful): one vote per visitor per review.
// The visitor is the visitor_key the script keeps (else the IP address), stored
// only as a keyed hash; it removes duplicates, the rate limit is per IP address.

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

// visitorOf is the stored identity of a visitor: a keyed hash of the visitor key,
// else of the IP address.
func (c *Service) visitorOf(key, ip string) string {
	if key = strings.TrimSpace(key); key != "" {
		return c.Keys.Pseudonym("visitor", "key:"+key)
	}
	return c.Keys.Pseudonym("visitor", "ip:"+ip)
}

// visibleReview finds a review that the channel's list shows: published, of the
// channel's market, or syndicable from another market while syndication is on.
// Anything else is 404 not_found.
func (c *Service) visibleReview(ctx context.Context, tx *store.Tx, ch store.Channel, publicID string) (store.Review, error) {
	r, err := tx.ReviewByPublicID(ctx, publicID)
	if errors.Is(err, store.ErrNotFound) {
		return r, core.ErrNotFound
	}
	if err != nil {
		return r, err
	}
	if r.State != core.ReviewPublished {
		return r, core.ErrNotFound
	}
	if r.Market != ch.Market {
		st, err := c.Brand.LoadSettings(ctx, tx.Q)
		if err != nil {
			return r, err
		}
		if !st.SyndicationEnabled || !readmodel.Syndicable(r) {
			return r, core.ErrNotFound
		}
	}
	return r, nil
}

// VoteHelpful records a visitor's helpful vote on a review shown on channel ch.
// Repeating the direction changes nothing (counted false); the other direction
// moves the vote; none withdraws it. Errors: invalid / vote, 404 not_found.
func (c *Service) VoteHelpful(ctx context.Context, a *core.Actor, ch store.Channel, reviewID string, in VoteInput) (VoteResult, error) {
	if in.Vote != VoteUp && in.Vote != VoteDown && in.Vote != VoteNone {
		return VoteResult{}, core.Invalid("vote")
	}
	visitor := c.visitorOf(in.VisitorKey, a.IP)
	var out VoteResult
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := c.visibleReview(ctx, tx, ch, reviewID)
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

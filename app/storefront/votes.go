package storefront

import (
	"net/http"

	"reviewd/app/core/votes"
	"reviewd/app/web"
)

// maxSmallBody bounds the bodies of votes, reports and views.
const maxSmallBody = 8 << 10

// handleHelpfulVote serves POST /v1/reviews/{id}/helpful: up, down or none (site
// key, per-IP limit); 200 with vote, counted and the review's counts.
func (h *Handler) handleHelpfulVote(w http.ResponseWriter, r *http.Request) error {
	a, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	if err := h.perIP(r); err != nil {
		return err
	}
	var in votes.VoteInput
	if err := web.DecodeJSON(r, maxSmallBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Votes.VoteHelpful(r.Context(), a, acc.Channel, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

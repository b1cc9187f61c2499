package storefront

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orderhint"
	"reviewd/app/web"
)

// maxWriteBody is the largest JSON body of the eligibility and token endpoints.
const maxWriteBody = 16 << 10

// handleEligibility serves POST /v1/eligibility: the order check. Every failure is
// the one general refusal 403 token_refused / not_eligible and counts against the
// address and the order number; after 10 failures in an hour either answers 429
// rate_limited before any look-up. A refused check of an order that has a review
// its author may still correct sends that order's address the correction link
// (orderhint.HintReviewedOrder); the answer is the same refusal either way.
func (h *Handler) handleEligibility(w http.ResponseWriter, r *http.Request) error {
	a, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	var in buyer.EligibilityInput
	if err := web.DecodeJSON(r, maxWriteBody, web.ModeAPI, &in); err != nil {
		return err
	}
	if err := in.Normalize(); err != nil {
		return err
	}
	emailKey, orderKey := "e:"+in.Email, "o:"+in.Order
	if h.EligibilityEmail.Exhausted(emailKey) || h.EligibilityOrder.Exhausted(orderKey) {
		return core.ErrRateLimited
	}
	res, err := h.Buyer.CheckEligibility(r.Context(), a, acc.Channel, in)
	if err == buyer.ErrNotEligible {
		h.EligibilityEmail.Allow(emailKey)
		h.EligibilityOrder.Allow(orderKey)
		if _, err := orderhint.HintReviewedOrder(r.Context(), h.Reviews, acc.Channel, in); err != nil {
			return err
		}
		return buyer.ErrNotEligible.AsRefusal()
	}
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, res)
}

// handleTokenCheck serves POST /v1/eligibility/token: what a writing token allows
// (mode write, feedback or revise) with its products and, for revise, the review.
func (h *Handler) handleTokenCheck(w http.ResponseWriter, r *http.Request) error {
	_, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	var in struct {
		Token    string `json:"token"`
		Language string `json:"language"`
	}
	if err := web.DecodeJSON(r, maxWriteBody, web.ModeAPI, &in); err != nil {
		return err
	}
	lang := in.Language
	if lang == "" {
		lang = r.URL.Query().Get("lang")
	}
	out, err := h.Buyer.OpenToken(r.Context(), acc.Channel, in.Token, lang)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/web"
)

// handlePolicyList serves GET /admin/v1/policies: the service's market rules and
// the brand versions with in_force, scheduled and limits; channel filters.
func (h *Handler) handlePolicyList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Brand.Policies(r.Context(), r.URL.Query().Get("channel"))
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handlePolicyCreate serves POST /admin/v1/policies: a brand version of a market
// rule, only in a panel session with the manage-market-rules permission (checked
// by core); 201 with the rule row.
func (h *Handler) handlePolicyCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in brand.PolicyInput
	if err := web.DecodeJSON(r, maxQABody, web.ModeAPI, &in); err != nil {
		return err
	}
	if in == nil {
		return core.ErrInvalidJSON
	}
	out, err := h.Brand.CreatePolicy(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

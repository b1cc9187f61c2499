package admin

import (
	"encoding/json"
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/checks"
	"reviewd/app/web"
)

const termsBodyLimit = 64 << 10

// handleTermList serves GET /admin/v1/terms: the brand's check expressions.
func (h *Handler) handleTermList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Checks.Terms(r.Context())
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleTermsSave serves POST /admin/v1/terms. {"pattern", "label"?} adds one
// expression; {"terms": [...]} (strings or {pattern, label} objects) replaces the
// whole list. More than 50 in all: 400 invalid / regex_limit: 50.
func (h *Handler) handleTermsSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Pattern *string           `json:"pattern"`
		Label   string            `json:"label"`
		Terms   []json.RawMessage `json:"terms"`
	}
	raw, err := web.ReadBody(r, termsBodyLimit)
	if err != nil {
		return err
	}
	if err := web.ParseJSON(raw, web.ModeAPI, &in); err != nil {
		return err
	}
	if in.Pattern != nil {
		out, err := h.Checks.AddTerms(r.Context(), a, []checks.TermInput{{Pattern: *in.Pattern, Label: in.Label}})
		if err != nil {
			return err
		}
		return web.JSON(w, http.StatusCreated, out)
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	if _, ok := fields["terms"]; !ok {
		return core.Invalid("pattern_required")
	}
	list := make([]checks.TermInput, 0, len(in.Terms))
	for _, t := range in.Terms {
		var ti checks.TermInput
		if err := json.Unmarshal(t, &ti.Pattern); err != nil {
			if err := json.Unmarshal(t, &ti); err != nil {
				return core.Invalid("terms")
			}
		}
		list = append(list, ti)
	}
	out, err := h.Checks.ReplaceTerms(r.Context(), a, list)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleTermDelete serves DELETE /admin/v1/terms/{id}.
func (h *Handler) handleTermDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Checks.DeleteTerm(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/app/web"
)

// handleStatementList serves GET /admin/v1/method-statement: every channel's
// statement rows (tr and en) and the verified domains; channel plus lang gives one.
func (h *Handler) handleStatementList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v := r.URL.Query()
	out, err := h.Read.MethodStatements(r.Context(), v.Get("channel"), v.Get("lang"))
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleStatementSave serves POST /admin/v1/method-statement: channel, language,
// external_url (empty returns to the hosted page); answers the row.
func (h *Handler) handleStatementSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in readmodel.StatementInput
	if err := web.DecodeJSON(r, maxQABody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Read.SaveMethodStatement(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleStatementConfirm serves POST /admin/v1/method-statement/confirm: channel,
// language, fingerprint equal to current_fingerprint (else 409 statement_changed);
// answers the row.
func (h *Handler) handleStatementConfirm(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in readmodel.StatementInput
	if err := web.DecodeJSON(r, maxQABody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Read.ConfirmMethodStatement(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/web"
)

// handleAIStatus serves GET /admin/v1/ai: provider, model, features, usage, queue
// and the last model error.
func (h *Handler) handleAIStatus(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.AI.Status(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleAIRequestCreate serves POST /admin/v1/ai/requests: 202 {"id", "kind", "state"}.
func (h *Handler) handleAIRequestCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in ai.RequestInput
	if err := web.DecodeJSON(r, 4096, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.AI.Queue(r.Context(), in, h.Reviews.ReviewRowID)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusAccepted, out)
}

// handleAIRequestGet serves GET /admin/v1/ai/requests/<id>: state and error.
func (h *Handler) handleAIRequestGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.AI.Request(r.Context(), web.Vars(r)["id"])
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

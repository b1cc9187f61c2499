package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/web"
)

// maxNoteBody bounds the body of the seller-response and resolution writes.
const maxNoteBody = 32 << 10

// handleSellerResponseCreate serves POST /admin/v1/reviews/<id>/seller-response:
// 201 with body, published_at (and the reviewer e-mail's notice).
func (h *Handler) handleSellerResponseCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in reviews.NoteInput
	if err := web.DecodeJSON(r, maxNoteBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Reviews.RespondToReview(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleSellerResponseUpdate serves PATCH /admin/v1/reviews/<id>/seller-response.
func (h *Handler) handleSellerResponseUpdate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in reviews.NoteInput
	if err := web.DecodeJSON(r, maxNoteBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Reviews.ChangeSellerResponse(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleSellerResponseDelete serves DELETE /admin/v1/reviews/<id>/seller-response: 204.
func (h *Handler) handleSellerResponseDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Reviews.WithdrawSellerResponse(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

// handleSellerResponseDraft serves POST /admin/v1/reviews/<id>/seller-response/draft:
// 200 {"body", "tone", "generated_by"}; 409 seller_response_refused / ai_package_off
// while ai.provider is off.
func (h *Handler) handleSellerResponseDraft(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in reviews.DraftInput
	// While the package is off the answer is v1's, whatever the body.
	if r.ContentLength != 0 && h.Reviews.AI.On() {
		if err := web.DecodeJSON(r, maxNoteBody, web.ModeAPI, &in); err != nil {
			return err
		}
	}
	out, err := h.Reviews.DraftSellerResponse(r.Context(), web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleResolutionSet serves POST /admin/v1/reviews/<id>/resolution: 201 with
// body, created_at.
func (h *Handler) handleResolutionSet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in reviews.NoteInput
	if err := web.DecodeJSON(r, maxNoteBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Reviews.SetResolution(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleResolutionDelete serves DELETE /admin/v1/reviews/<id>/resolution: 204.
func (h *Handler) handleResolutionDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Reviews.RemoveResolution(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

// handleFeaturedPut serves PUT /admin/v1/reviews/<id>/featured: the review pinned
// to the top of its product's list, 200 {"id", "featured": true}; 409 pin_limit,
// 409 refused / parent_review_not_published.
func (h *Handler) handleFeaturedPut(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Reviews.FeatureReview(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleFeaturedDelete serves DELETE /admin/v1/reviews/<id>/featured: 204; 404
// not_found when the review is not pinned.
func (h *Handler) handleFeaturedDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Reviews.UnfeatureReview(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

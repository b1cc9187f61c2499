package storefront

import (
	"net/http"

	"reviewd/app/core/reviews"
	"reviewd/app/web"
)

// maxReviewsBody is the largest body of POST /v1/reviews: 20 reviews of 5000
// characters with room for JSON escapes.
const maxReviewsBody = 2 << 20

// handleReviewsCreate serves POST /v1/reviews: up to 20 reviews with one writing
// token; 201 with each review's id, line_reference and state.
func (h *Handler) handleReviewsCreate(w http.ResponseWriter, r *http.Request) error {
	a, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	var in reviews.WriteInput
	if err := web.DecodeJSON(r, maxReviewsBody, web.ModeAPI, &in); err != nil {
		return err
	}
	if in.Language == "" {
		in.Language = r.URL.Query().Get("lang")
	}
	out, err := h.Reviews.WriteReviews(r.Context(), a, acc.Channel, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, map[string]any{"reviews": out})
}

// handleReviewRevise serves POST /v1/reviews/revise: a rejected review corrected
// with its correction link; 200 with id and state.
func (h *Handler) handleReviewRevise(w http.ResponseWriter, r *http.Request) error {
	a, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	var in reviews.ReviseInput
	if err := web.DecodeJSON(r, maxReviewsBody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Reviews.ReviseReview(r.Context(), a, acc.Channel, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

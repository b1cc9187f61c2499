package storefront

// routes is the audit table of the storefront surface: method, path, handler. Each
// handler authenticates its caller (site key with verified domain, or server key).
func (h *Handler) routes() []route {
	return []route{
		// Writing flow (write_*.go): site key in X-Service-Site-Key, verified domain.
		{"POST", "/v1/eligibility", h.handleEligibility},
		{"POST", "/v1/eligibility/token", h.handleTokenCheck},
		{"POST", "/v1/media", h.handleMediaUpload},
		{"POST", "/v1/reviews", h.handleReviewsCreate},
		{"POST", "/v1/reviews/revise", h.handleReviewRevise},
		// Review media, public only while the review is published (media_public.go).
		{"GET", "/media/{id:m_[a-z2-7]{20}}/{file:[a-z0-9-]{1,40}\\.(?:jpg|mp4)}", h.handleMediaFile},
		{"HEAD", "/media/{id:m_[a-z2-7]{20}}/{file:[a-z0-9-]{1,40}\\.(?:jpg|mp4)}", h.handleMediaFile},
	}
}

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
		// Signed-in customer lookups, server key only (viewer.go).
		{"GET", "/v1/viewer", h.handleViewer},
		{"GET", "/v1/viewer/order", h.handleViewerOrder},
		// Questions and answers (questions.go).
		{"GET", "/v1/questions", h.handleQuestionList},
		{"POST", "/v1/questions", h.handleQuestionCreate},
		{"POST", "/v1/questions/{id:q_[a-z2-7]{20}}/answers", h.handleAnswerCreate},
		// Public method statement page, no domain check (method_statement.go).
		{"GET", "/v1/method-statement", h.handleMethodStatement},
		{"GET", "/v1/method-statement.css", h.handleMethodStatementCSS},
		// Reading (read_list.go, read_ssr.go): site key (key=) from a verified domain,
		// or server key plus channel=.
		{"GET", "/v1/reviews/list", h.handleReviewList},
		{"GET", "/v1/ssr", h.handleSSR},
		// Helpful votes, reports and component views (votes.go, reports.go, views.go):
		// site key, per-IP limit.
		{"POST", "/v1/reviews/{id:r_[a-z2-7]{20}}/helpful", h.handleHelpfulVote},
		{"POST", "/v1/reviews/{id:r_[a-z2-7]{20}}/report", h.handleReviewReport},
		{"POST", "/v1/views", h.handleViewCount},
		// Theme style sheet of the review component (read_ssr.go).
		{"GET", "/static/reviews.css", h.handleReviewsCSS},
		// Page script: the loader stores embed and the content-hash files (assets.go).
		{"GET", "/v1/widget.js", h.handleWidgetLoader},
		{"GET", "/assets/{hash:[0-9a-f]{16}}/{file:reviews\\.(?:js|css)}", h.handleWidgetAsset},
		{"HEAD", "/v1/widget.js", h.handleWidgetLoader},
		{"HEAD", "/assets/{hash:[0-9a-f]{16}}/{file:reviews\\.(?:js|css)}", h.handleWidgetAsset},
	}
}

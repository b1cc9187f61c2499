package storefront

// routes is the audit table of the storefront surface: method, path, callers (see
// access), handler. Each handler authenticates its caller as its access says. The
// router tries routes in this order: the reads, most of the traffic, come first.
func (h *Handler) routes() []route {
	return []route{
		// Reading (read_list.go, read_ssr.go): site key (key=) from a verified domain,
		// or server key plus channel=.
		{"GET", "/v1/reviews/list", siteOrServerKey, h.handleReviewList},
		{"GET", "/v1/ssr", siteOrServerKey, h.handleSSR},
		// Star badges of listing pages, up to 50 products (read_badges.go).
		{"GET", "/v1/reviews/badges", siteOrServerKey, h.handleBadges},
		{"GET", "/v1/ssr/badges", siteOrServerKey, h.handleSSRBadges},
		// The channel's reviews across products: the home page carousel and the
		// store-wide review page (read_channel.go).
		{"GET", "/v1/reviews/carousel", siteOrServerKey, h.handleCarousel},
		{"GET", "/v1/ssr/carousel", siteOrServerKey, h.handleSSRCarousel},
		{"GET", "/v1/reviews/all", siteOrServerKey, h.handleAllReviews},
		{"GET", "/v1/ssr/all", siteOrServerKey, h.handleSSRAll},
		// Writing flow (write_*.go): site key in X-Service-Site-Key, verified domain.
		{"POST", "/v1/eligibility", siteKey, h.handleEligibility},
		{"POST", "/v1/eligibility/token", siteKey, h.handleTokenCheck},
		{"POST", "/v1/media", siteKey, h.handleMediaUpload},
		{"POST", "/v1/reviews", siteKey, h.handleReviewsCreate},
		{"POST", "/v1/reviews/revise", siteKey, h.handleReviewRevise},
		// Review media, public only while the review is published (media_public.go).
		{"GET", "/media/{id:m_[a-z2-7]{20}}/{file:[a-z0-9-]{1,40}\\.(?:jpg|mp4)}", public, h.handleMediaFile},
		{"HEAD", "/media/{id:m_[a-z2-7]{20}}/{file:[a-z0-9-]{1,40}\\.(?:jpg|mp4)}", public, h.handleMediaFile},
		// Signed-in customer lookups, server key only (viewer.go).
		{"GET", "/v1/viewer", serverKey, h.handleViewer},
		{"GET", "/v1/viewer/order", serverKey, h.handleViewerOrder},
		// Questions and answers (questions.go).
		{"GET", "/v1/questions", siteOrServerKey, h.handleQuestionList},
		{"POST", "/v1/questions", siteOrServerKey, h.handleQuestionCreate},
		{"POST", "/v1/questions/{id:q_[a-z2-7]{20}}/answers", siteOrServerKey, h.handleAnswerCreate},
		// Public method statement page, no domain check (method_statement.go).
		{"GET", "/v1/method-statement", channelCode, h.handleMethodStatement},
		{"GET", "/v1/method-statement.css", public, h.handleMethodStatementCSS},
		// Helpful votes, reports and component views (votes.go, reports.go, views.go):
		// site key, per-IP limit.
		{"POST", "/v1/reviews/{id:r_[a-z2-7]{20}}/helpful", siteKey, h.handleHelpfulVote},
		{"POST", "/v1/reviews/{id:r_[a-z2-7]{20}}/report", siteKey, h.handleReviewReport},
		{"POST", "/v1/views", siteKey, h.handleViewCount},
		// The public transparency log, no credentials, per-IP limit (transparency.go).
		{"GET", "/v1/transparency/checkpoint", public, h.handleTransparencyCheckpoint},
		{"GET", "/v1/transparency/key", public, h.handleTransparencyKey},
		{"GET", "/v1/transparency/entries", public, h.handleTransparencyEntries},
		{"GET", "/v1/transparency/proof/inclusion", public, h.handleTransparencyInclusion},
		{"GET", "/v1/transparency/proof/consistency", public, h.handleTransparencyConsistency},
		{"GET", "/v1/transparency/tile/{path:.+}", public, h.handleTransparencyTile},
		{"GET", "/v1/transparency/report", public, h.handleTransparencyReport},
		{"GET", "/v1/transparency/receipt/{id:r_[a-z2-7]{20}}", public, h.handleTransparencyReceipt},
		// Theme style sheet of the review component (read_ssr.go).
		{"GET", "/static/reviews.css", public, h.handleReviewsCSS},
		// Page script: the loader stores embed and the content-hash files (assets.go).
		{"GET", "/v1/widget.js", public, h.handleWidgetLoader},
		{"GET", "/assets/{hash:[0-9a-f]{16}}/{file:reviews\\.(?:js|css)}", public, h.handleWidgetAsset},
		{"HEAD", "/v1/widget.js", public, h.handleWidgetLoader},
		{"HEAD", "/assets/{hash:[0-9a-f]{16}}/{file:reviews\\.(?:js|css)}", public, h.handleWidgetAsset},
	}
}

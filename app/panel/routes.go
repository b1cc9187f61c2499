package panel

import "reviewd/app/core"

// routes is the audit table of the panel: method, path, the permission it needs
// ("" = no session), the /admin/v1/ route whose service call and permission it
// shares, and the handler. A test holds the permission column equal to the admin
// route table's (docs/panel.md lists the pages).
func (h *Handler) routes() []route {
	const r, m, w, x = core.PermRead, core.PermModerate, core.PermWrite, core.PermExport
	_ = x
	return []route{
		{"GET", "/panel/assets/{name:panel\\.(?:js|css)}", "", "", h.handleAsset},
		{"GET", "/panel/sign-in", "", "", h.handleSignInPage},
		{"POST", "/panel/sign-in", "", "POST /admin/v1/session", h.handleSignIn},
		{"POST", "/panel/sign-in/passcode", "", "POST /admin/v1/session/passcode", h.handlePasscode},
		{"GET", "/panel/password", "", "", h.handlePasswordPage},
		{"POST", "/panel/password", "", "POST /admin/v1/session/password", h.handlePasswordSet},
		{"GET", "/panel/password-reset", "", "", h.handlePasswordResetPage},
		{"POST", "/panel/password-reset", "", "POST /admin/v1/session/password-reset", h.handlePasswordReset},
		{"POST", "/panel/language", "", "", h.handleLanguage},
		{"POST", "/panel/sign-out", r, "DELETE /admin/v1/session", h.handleSignOut},
		{"GET", "/panel/", r, "GET /admin/v1/moderation/queue, /questions, /invites, /reviews", h.handleOverview},
		{"GET", "/panel/queue", m, "GET /admin/v1/moderation/queue", h.handleQueue},
		{"GET", "/panel/queue/item/{id}", m, "GET /admin/v1/reviews/{id}", h.handleQueueItem},
		{"POST", "/panel/queue/bulk", m, "POST /admin/v1/moderation/bulk", h.handleBulk},
		{"GET", "/panel/reviews", r, "GET /admin/v1/reviews", h.handleReviews},
		{"GET", "/panel/reviews/{id}", r, "GET /admin/v1/reviews/{id}", h.handleReview},
		{"POST", "/panel/reviews/{id}/transition", m, "POST /admin/v1/reviews/{id}/transition", h.handleReviewTransition},
		{"POST", "/panel/reviews/{id}/media/{file_id}/remove", m, "DELETE /admin/v1/reviews/{id}/media/{file_id}", h.handleMediaRemove},
		{"POST", "/panel/reviews/{id}/reports/resolve", m, "POST /admin/v1/reviews/{id}/reports/resolve", h.handleReportsResolve},
		{"GET", "/admin/reviews/{id}", r, "GET /admin/v1/reviews/{id}", h.handleOpenInPanel},
		{"GET", "/panel/questions", r, "GET /admin/v1/questions", h.handleQuestions},
		{"GET", "/panel/questions/{id}", r, "GET /admin/v1/questions/{id}", h.handleQuestion},
		{"POST", "/panel/questions/{id}/answer", m, "POST /admin/v1/questions/{id}/answer", h.handleAnswer},
		{"POST", "/panel/questions/{id}/transition", m, "POST /admin/v1/questions/{id}/transition", h.handleQuestionTransition},
		{"GET", "/panel/invitations", r, "GET /admin/v1/invites, GET /admin/v1/send-logs", h.handleInvitations},
		{"GET", "/panel/settings", w, "GET /admin/v1/settings", h.handleSettings},
		{"POST", "/panel/settings", w, "POST /admin/v1/settings", h.handleSettingsSave},
	}
}

package panel

import "reviewd/app/core"

// routes is the audit table of the panel: method, path, the permission it needs
// ("" = no session), the /admin/v1/ route whose service call and permission it
// shares, and the handler. A test holds the permission column equal to the admin
// route table's (docs/panel.md lists the pages).
func (h *Handler) routes() []route {
	const r, m, w, x = core.PermRead, core.PermModerate, core.PermWrite, core.PermExport
	const u, pd, mr = core.PermUsers, core.PermPersonalData, core.PermMarketRules
	const code = "{code:[A-Za-z0-9][A-Za-z0-9_.-]{0,31}}"
	const domain = "{domain:[A-Za-z0-9][A-Za-z0-9.-]{0,252}}"
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
		{"POST", "/panel/reviews/{id}/seller-response", m, "POST /admin/v1/reviews/{id}/seller-response", h.handleReplyCreate},
		{"POST", "/panel/reviews/{id}/seller-response/change", m, "PATCH /admin/v1/reviews/{id}/seller-response", h.handleReplyChange},
		{"POST", "/panel/reviews/{id}/seller-response/remove", m, "DELETE /admin/v1/reviews/{id}/seller-response", h.handleReplyWithdraw},
		{"POST", "/panel/reviews/{id}/resolution", m, "POST /admin/v1/reviews/{id}/resolution", h.handleResolutionSet},
		{"POST", "/panel/reviews/{id}/resolution/remove", m, "DELETE /admin/v1/reviews/{id}/resolution", h.handleResolutionRemove},
		{"POST", "/panel/reviews/{id}/reports/resolve", m, "POST /admin/v1/reviews/{id}/reports/resolve", h.handleReportsResolve},
		{"GET", "/admin/reviews/{id}", r, "GET /admin/v1/reviews/{id}", h.handleOpenInPanel},
		{"GET", "/panel/questions", r, "GET /admin/v1/questions", h.handleQuestions},
		{"GET", "/panel/questions/{id}", r, "GET /admin/v1/questions/{id}", h.handleQuestion},
		{"POST", "/panel/questions/{id}/answer", m, "POST /admin/v1/questions/{id}/answer", h.handleAnswer},
		{"POST", "/panel/questions/{id}/transition", m, "POST /admin/v1/questions/{id}/transition", h.handleQuestionTransition},
		{"GET", "/panel/invitations", r, "GET /admin/v1/invites, GET /admin/v1/send-logs", h.handleInvitations},
		{"GET", "/panel/settings", w, "GET /admin/v1/settings", h.handleSettings},
		{"POST", "/panel/settings", w, "POST /admin/v1/settings", h.handleSettingsSave},
		{"POST", "/panel/settings/whatsapp-test", w, "POST /admin/v1/settings/whatsapp-test", h.handleWhatsAppTest},
		{"POST", "/panel/invitations/retry", w, "POST /admin/v1/invites/retry", h.handleInviteRetry},
		{"POST", "/panel/opt-outs/check", r, "POST /admin/v1/opt-outs/check", h.handleOptOutCheck},
		// Own account (team.go).
		{"GET", "/panel/account", r, "GET /admin/v1/session/second-step", h.handleAccount},
		{"POST", "/panel/account/second-step", r, "POST /admin/v1/session/second-step", h.handleSecondStepStart},
		{"POST", "/panel/account/second-step/confirm", r, "POST /admin/v1/session/second-step/confirm", h.handleSecondStepConfirm},
		{"POST", "/panel/account/second-step/off", r, "POST /admin/v1/session/second-step/off", h.handleSecondStepOff},
		{"POST", "/panel/account/email", r, "POST /admin/v1/session/email-change", h.handleEmailChange},
		{"POST", "/panel/account/password", r, "POST /admin/v1/session/password-change", h.handlePasswordChange},
		// Users and roles, keys and secrets, channels and domains (team.go).
		{"GET", "/panel/users", u, "GET /admin/v1/users", h.handleUsers},
		{"POST", "/panel/users", u, "POST /admin/v1/users", h.handleUserAdd},
		{"POST", "/panel/users/{id:[0-9]+}/role", r, "PATCH /admin/v1/users/{id}", h.handleUserRole},
		{"POST", "/panel/users/{id:[0-9]+}/remove", u, "DELETE /admin/v1/users/{id}", h.handleUserRemove},
		{"POST", "/panel/users/{id:[0-9]+}/password-link", u, "POST /admin/v1/users/{id}/password-link", h.handleUserLink},
		{"GET", "/panel/keys", w, "GET /admin/v1/keys", h.handleKeys},
		{"POST", "/panel/keys", w, "POST /admin/v1/keys", h.handleKeyCreate},
		{"POST", "/panel/keys/api", w, "POST /admin/v1/channels", h.handleAPIKeyCreate},
		{"GET", "/panel/keys/{id:key_[0-9a-f]{16}}/revoke", w, "GET /admin/v1/keys", h.handleKeyRevokeConfirm},
		{"POST", "/panel/keys/{id:key_[0-9a-f]{16}}/revoke", w, "DELETE /admin/v1/keys/{id}", h.handleKeyRevoke},
		{"POST", "/panel/keys/webhook-secret", w, "POST /admin/v1/settings/webhook-secret", h.handleWebhookSecret},
		{"GET", "/panel/channels", r, "GET /admin/v1/channels", h.handleChannels},
		{"POST", "/panel/channels", w, "POST /admin/v1/channels", h.handleChannelCreate},
		{"POST", "/panel/channels/" + code + "/active", w, "PATCH /admin/v1/channels/{code}", h.handleChannelActive},
		{"POST", "/panel/channels/" + code + "/domains", w, "POST /admin/v1/channels/{code}/domains", h.handleDomainAdd},
		{"POST", "/panel/channels/" + code + "/domains/" + domain + "/verify", w, "POST /admin/v1/channels/{code}/domains/{domain}/verify", h.handleDomainVerify},
		{"POST", "/panel/channels/" + code + "/domains/" + domain + "/remove", w, "DELETE /admin/v1/channels/{code}/domains/{domain}", h.handleDomainRemove},
		// Personal-data requests, access log, audit log and audit file (records.go).
		{"GET", "/panel/privacy", pd, "GET /admin/v1/subject-requests", h.handlePrivacy},
		{"POST", "/panel/privacy", pd, "POST /admin/v1/subject-requests", h.handlePrivacyOpen},
		{"GET", "/panel/privacy/{id:dsr_[0-9]+}", pd, "GET /admin/v1/subject-requests/{id}", h.handlePrivacyRequest},
		{"POST", "/panel/privacy/{id:dsr_[0-9]+}/complete", pd, "POST /admin/v1/subject-requests/{id}/complete", h.handlePrivacyComplete},
		{"POST", "/panel/privacy/{id:dsr_[0-9]+}/refuse", pd, "POST /admin/v1/subject-requests/{id}/refuse", h.handlePrivacyRefuse},
		{"POST", "/panel/privacy/{id:dsr_[0-9]+}/copy", pd, "POST /admin/v1/subject-requests/{id}/copy", h.handlePrivacyCopy},
		{"GET", "/panel/access-log", x, "GET /admin/v1/access-log", h.handleAccessLog},
		{"GET", "/panel/audit-log", x, "GET /admin/v1/audit-log", h.handleAuditLog},
		{"POST", "/panel/audit-log/export", x, "POST /admin/v1/audit-log/export", h.handleAuditExport},
		{"POST", "/panel/audit-file", x, "POST /admin/v1/audit-file", h.handleAuditFile},
		// Order connections, diagnostics, marketplace sources (connections.go).
		{"GET", "/panel/connections", w, "GET /admin/v1/order-sources", h.handleConnections},
		{"POST", "/panel/connections", w, "POST /admin/v1/order-sources", h.handleConnectionCreate},
		{"POST", "/panel/connections/check", w, "POST /admin/v1/order-sources/check", h.handleConnectionTry},
		{"POST", "/panel/connections/{id:conn_[0-9]+}/check", w, "POST /admin/v1/order-sources/{id}/check", h.handleConnectionCheck},
		{"POST", "/panel/connections/{id:conn_[0-9]+}/run", w, "POST /admin/v1/order-sources/{id}/run", h.handleConnectionRun},
		{"POST", "/panel/connections/{id:conn_[0-9]+}/pause", w, "PATCH /admin/v1/order-sources/{id}", h.handleConnectionPause},
		{"POST", "/panel/connections/{id:conn_[0-9]+}/remove", w, "DELETE /admin/v1/order-sources/{id}", h.handleConnectionRemove},
		{"GET", "/panel/diagnostics", r, "GET /admin/v1/diagnostics", h.handleDiagnostics},
		{"GET", "/panel/marketplace", w, "GET /admin/v1/marketplace/sources", h.handleMarketplace},
		{"POST", "/panel/marketplace", w, "POST /admin/v1/marketplace/sources", h.handleMarketCreate},
		{"GET", "/panel/marketplace/reviews", pd, "GET /admin/v1/marketplace/imported-reviews", h.handleImported},
		{"POST", "/panel/marketplace/removals", pd, "POST /admin/v1/marketplace/removals", h.handleMarketRemoval},
		{"GET", "/panel/marketplace/{id:mks_[0-9]+}", w, "GET /admin/v1/marketplace/sources/{id}/runs", h.handleMarketSource},
		{"POST", "/panel/marketplace/{id:mks_[0-9]+}/runs", w, "POST /admin/v1/marketplace/sources/{id}/runs", h.handleMarketRun},
		{"POST", "/panel/marketplace/{id:mks_[0-9]+}/check", w, "POST /admin/v1/marketplace/sources/{id}/check", h.handleMarketCheck},
		// Market rules, method statements, terms, rating topics (rules.go).
		{"GET", "/panel/rules", r, "GET /admin/v1/policies, GET /admin/v1/method-statement", h.handleRules},
		{"POST", "/panel/rules/policies", mr, "POST /admin/v1/policies", h.handlePolicyCreate},
		{"POST", "/panel/rules/method-statement", w, "POST /admin/v1/method-statement", h.handleStatementSave},
		{"POST", "/panel/rules/method-statement/confirm", w, "POST /admin/v1/method-statement/confirm", h.handleStatementConfirm},
		{"GET", "/panel/terms", r, "GET /admin/v1/terms", h.handleTerms},
		{"POST", "/panel/terms", w, "POST /admin/v1/terms", h.handleTermAdd},
		{"POST", "/panel/terms/{id:term_[0-9]+}/remove", w, "DELETE /admin/v1/terms/{id}", h.handleTermRemove},
		{"GET", "/panel/rating-topics", r, "GET /admin/v1/aspect-templates", h.handleTopics},
		{"POST", "/panel/rating-topics", w, "POST /admin/v1/aspect-templates", h.handleTopicSave},
		{"POST", "/panel/rating-topics/retire", w, "POST /admin/v1/aspect-templates/retire", h.handleTopicRetire},
		// Invitation templates, product-review feeds, brand export (sharing.go).
		{"GET", "/panel/invite-templates", w, "GET /admin/v1/invite-templates", h.handleTemplates},
		{"POST", "/panel/invite-templates", w, "POST /admin/v1/invite-templates", h.handleTemplateSave},
		{"POST", "/panel/invite-templates/preview", w, "POST /admin/v1/invite-templates/preview", h.handleTemplatePreview},
		{"POST", "/panel/invite-templates/{id:tpl_[0-9]+}/remove", w, "DELETE /admin/v1/invite-templates/{id}", h.handleTemplateRemove},
		{"GET", "/panel/review-feeds", w, "GET /admin/v1/review-feeds", h.handleFeeds},
		{"POST", "/panel/review-feeds", w, "POST /admin/v1/review-feeds", h.handleFeedCreate},
		{"POST", "/panel/review-feeds/{id:rf_[0-9]+}/remove", w, "DELETE /admin/v1/review-feeds/{id}", h.handleFeedRemove},
		{"GET", "/panel/brand-export", x, "GET /admin/v1/brand-export", h.handleExports},
		{"POST", "/panel/brand-export", x, "POST /admin/v1/brand-export", h.handleExportStart},
		// The page component's themes (themes.go): the component as GET /v1/ssr
		// renders it; no admin route (a read of the published reviews). Saving a
		// layout and theme on a channel is the channel change.
		{"GET", "/panel/themes", r, "", h.handleThemes},
		{"POST", "/panel/themes", w, "PATCH /admin/v1/channels/{code}", h.handleThemeSave},
	}
}

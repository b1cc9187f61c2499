package admin

import "reviewd/app/core"

// Path patterns of a channel code and a domain name.
const (
	channelCode = `[A-Za-z0-9][A-Za-z0-9_.-]{0,31}`
	domainName  = `[A-Za-z0-9][A-Za-z0-9.-]{0,252}`
)

// routes is the audit table of the admin surface: method, path, callers (open,
// keyOrPanel, panel, panelNotKey, panelRefusesKey: see access), permission, handler. guard enforces
// both columns before a handler runs.
func (h *Handler) routes() []route {
	return []route{
		{"GET", "/admin/v1/whoami", keyOrPanel, core.PermRead, h.handleWhoami},
		{"POST", "/admin/v1/session", open, "", h.handleSessionCreate},
		{"POST", "/admin/v1/session/passcode", open, "", h.handleSessionPasscode},
		{"GET", "/admin/v1/session", panel, core.PermRead, h.handleSessionGet},
		{"DELETE", "/admin/v1/session", panel, core.PermRead, h.handleSessionDelete},
		{"GET", "/admin/v1/session/second-step", panel, core.PermRead, h.handleSecondStepGet},
		{"POST", "/admin/v1/session/second-step", panel, core.PermRead, h.handleSecondStepStart},
		{"POST", "/admin/v1/session/second-step/confirm", panel, core.PermRead, h.handleSecondStepConfirm},
		{"POST", "/admin/v1/session/second-step/off", panel, core.PermRead, h.handleSecondStepOff},
		{"POST", "/admin/v1/session/email-change", panel, core.PermRead, h.handleEmailChange},
		{"POST", "/admin/v1/session/password-change", panel, core.PermRead, h.handlePasswordChange},
		{"POST", "/admin/v1/session/password-reset", open, "", h.handlePasswordReset},
		{"POST", "/admin/v1/session/password", open, "", h.handlePasswordSet},
		// Panel members (users.go). A key gets 403 forbidden / scope_missing. PATCH
		// takes any member: a role change needs the users permission (checked by
		// access.ChangeMember), an e-mail change only the member's own row.
		{"GET", "/admin/v1/users", panel, core.PermUsers, h.handleUserList},
		{"POST", "/admin/v1/users", panel, core.PermUsers, h.handleUserCreate},
		{"PATCH", "/admin/v1/users/{id:[0-9]+}", panel, core.PermRead, h.handleUserUpdate},
		{"DELETE", "/admin/v1/users/{id:[0-9]+}", panel, core.PermUsers, h.handleUserDelete},
		{"POST", "/admin/v1/users/{id:[0-9]+}/password-link", panel, core.PermUsers, h.handleUserPasswordLink},
		// Keys (keys.go): panel session with change-settings; a key gets 403
		// forbidden / scope_missing. POST /admin/v1/channels with kind api_key makes
		// server and admin API keys (spec 3, rule 1).
		{"GET", "/admin/v1/keys", panel, core.PermWrite, h.handleKeyList},
		{"POST", "/admin/v1/keys", panel, core.PermWrite, h.handleKeyCreate},
		{"DELETE", "/admin/v1/keys/{id:key_[0-9a-f]{16}}", panel, core.PermWrite, h.handleKeyDelete},
		// Signing and mail-event passwords (secrets.go): as keys.
		{"GET", "/admin/v1/secrets", panel, core.PermWrite, h.handleSecretList},
		{"POST", "/admin/v1/secrets", panel, core.PermWrite, h.handleSecretCreate},
		{"DELETE", "/admin/v1/secrets/{id:pw_[0-9a-f]{16}}", panel, core.PermWrite, h.handleSecretDelete},
		{"GET", "/admin/v1/settings", keyOrPanel, core.PermWrite, h.handleSettingsGet},
		{"POST", "/admin/v1/settings", keyOrPanel, core.PermWrite, h.handleSettingsUpdate},
		{"POST", "/admin/v1/settings/webhook-secret", panelRefusesKey, core.PermWrite, h.handleWebhookSecretCreate},
		{"POST", "/admin/v1/settings/whatsapp-test", panelRefusesKey, core.PermWrite, h.handleWhatsAppTest},
		{"GET", "/admin/v1/invites", keyOrPanel, core.PermRead, h.handleInviteList},
		{"POST", "/admin/v1/invites/retry", keyOrPanel, core.PermWrite, h.handleInviteRetry},
		{"GET", "/admin/v1/send-logs", keyOrPanel, core.PermRead, h.handleSendLogList},
		{"POST", "/admin/v1/opt-outs/check", keyOrPanel, core.PermRead, h.handleOptOutCheck},
		{"GET", "/admin/v1/opt-outs/export", keyOrPanel, core.PermExport, h.handleOptOutExport},
		{"GET", "/admin/v1/terms", keyOrPanel, core.PermRead, h.handleTermList},
		{"POST", "/admin/v1/terms", keyOrPanel, core.PermWrite, h.handleTermsSave},
		{"DELETE", "/admin/v1/terms/{id:term_[0-9]+}", keyOrPanel, core.PermWrite, h.handleTermDelete},
		// Invitation templates (invite_templates.go).
		{"GET", "/admin/v1/invite-templates", keyOrPanel, core.PermWrite, h.handleInviteTemplateList},
		{"POST", "/admin/v1/invite-templates", keyOrPanel, core.PermWrite, h.handleInviteTemplateSave},
		{"POST", "/admin/v1/invite-templates/preview", keyOrPanel, core.PermWrite, h.handleInviteTemplatePreview},
		{"DELETE", "/admin/v1/invite-templates/{id:tpl_[0-9]+}", keyOrPanel, core.PermWrite, h.handleInviteTemplateDelete},
		{"GET", "/admin/v1/aspect-templates", keyOrPanel, core.PermRead, h.handleAspectTemplateList},
		{"POST", "/admin/v1/aspect-templates", keyOrPanel, core.PermWrite, h.handleAspectTemplateSave},
		{"POST", "/admin/v1/aspect-templates/retire", keyOrPanel, core.PermWrite, h.handleAspectTemplateRetire},
		// Questions and answers (questions.go).
		{"GET", "/admin/v1/questions", keyOrPanel, core.PermRead, h.handleQuestionList},
		{"GET", "/admin/v1/questions/{id:q_[a-z2-7]{20}}", keyOrPanel, core.PermRead, h.handleQuestionGet},
		{"POST", "/admin/v1/questions/{id:q_[a-z2-7]{20}}/transition", keyOrPanel, core.PermModerate, h.handleQuestionTransition},
		{"POST", "/admin/v1/questions/{id:q_[a-z2-7]{20}}/answer", keyOrPanel, core.PermModerate, h.handleBrandAnswer},
		{"POST", "/admin/v1/answers/{id:a_[a-z2-7]{20}}/transition", keyOrPanel, core.PermModerate, h.handleAnswerTransition},
		// Market rules (policies.go); a new version needs a panel session with manage-market-rules.
		{"GET", "/admin/v1/policies", keyOrPanel, core.PermRead, h.handlePolicyList},
		{"POST", "/admin/v1/policies", panelNotKey, core.PermMarketRules, h.handlePolicyCreate},
		// Method statements (method_statement.go).
		{"GET", "/admin/v1/method-statement", keyOrPanel, core.PermRead, h.handleStatementList},
		{"POST", "/admin/v1/method-statement", keyOrPanel, core.PermWrite, h.handleStatementSave},
		{"POST", "/admin/v1/method-statement/confirm", keyOrPanel, core.PermWrite, h.handleStatementConfirm},
		// Platform order connections (order_sources.go): panel session with
		// change-settings only.
		{"GET", "/admin/v1/order-sources", panelNotKey, core.PermWrite, h.handleOrderSourceList},
		{"POST", "/admin/v1/order-sources", panelNotKey, core.PermWrite, h.handleOrderSourceCreate},
		{"POST", "/admin/v1/order-sources/check", panelNotKey, core.PermWrite, h.handleOrderSourceCheck},
		{"GET", "/admin/v1/order-sources/{id:conn_[0-9]+}", panelNotKey, core.PermWrite, h.handleOrderSourceGet},
		{"PATCH", "/admin/v1/order-sources/{id:conn_[0-9]+}", panelNotKey, core.PermWrite, h.handleOrderSourceUpdate},
		{"DELETE", "/admin/v1/order-sources/{id:conn_[0-9]+}", panelNotKey, core.PermWrite, h.handleOrderSourceDelete},
		{"POST", "/admin/v1/order-sources/{id:conn_[0-9]+}/check", panelNotKey, core.PermWrite, h.handleOrderSourceCheckSaved},
		{"POST", "/admin/v1/order-sources/{id:conn_[0-9]+}/run", panelNotKey, core.PermWrite, h.handleOrderSourceRun},
		// Channels, their domains and keys made from the panel (channels.go): panel
		// session only; a key gets 403 forbidden / scope_missing.
		{"GET", "/admin/v1/channels", panel, core.PermRead, h.handleChannelList},
		{"POST", "/admin/v1/channels", panel, core.PermWrite, h.handleChannelCreate},
		{"PATCH", "/admin/v1/channels/{code:" + channelCode + "}", panel, core.PermWrite, h.handleChannelUpdate},
		{"DELETE", "/admin/v1/channels/{code:" + channelCode + "}", panel, core.PermWrite, h.handleChannelDelete},
		{"POST", "/admin/v1/channels/{code:" + channelCode + "}/domains", panel, core.PermWrite, h.handleDomainAdd},
		{"POST", "/admin/v1/channels/{code:" + channelCode + "}/domains/{domain:" + domainName + "}/verify", panel, core.PermWrite, h.handleDomainVerify},
		{"DELETE", "/admin/v1/channels/{code:" + channelCode + "}/domains/{domain:" + domainName + "}", panel, core.PermWrite, h.handleDomainDelete},
		{"POST", "/admin/v1/channel-requests", panel, core.PermWrite, h.handleChannelRequest},
		// Connection log (diagnostics.go).
		{"GET", "/admin/v1/diagnostics", keyOrPanel, core.PermRead, h.handleDiagnostics},
		// Reviews and moderation (reviews.go, moderation.go, trace.go, reasons.go).
		{"GET", "/admin/v1/reviews", keyOrPanel, core.PermRead, h.handleReviewList},
		{"GET", "/admin/v1/reviews/{id}", keyOrPanel, core.PermRead, h.handleReviewGet},
		{"GET", "/admin/v1/reviews/{id}/media/{file_id}/{file_name}", keyOrPanel, core.PermRead, h.handleReviewMediaFile},
		{"DELETE", "/admin/v1/reviews/{id}/media/{file_id}", keyOrPanel, core.PermModerate, h.handleReviewMediaDelete},
		{"POST", "/admin/v1/reviews/{id}/transition", keyOrPanel, core.PermModerate, h.handleReviewTransition},
		{"GET", "/admin/v1/reviews/{id}/trace", keyOrPanel, core.PermExport, h.handleReviewTrace},
		{"POST", "/admin/v1/reviews/{id}/reports/resolve", keyOrPanel, core.PermModerate, h.handleReportsResolve},
		// Seller responses and resolution notes (seller_responses.go); the reply
		// draft is a v2 feature (409 seller_response_refused / ai_package_off).
		{"POST", "/admin/v1/reviews/{id}/seller-response", keyOrPanel, core.PermModerate, h.handleSellerResponseCreate},
		{"PATCH", "/admin/v1/reviews/{id}/seller-response", keyOrPanel, core.PermModerate, h.handleSellerResponseUpdate},
		{"DELETE", "/admin/v1/reviews/{id}/seller-response", keyOrPanel, core.PermModerate, h.handleSellerResponseDelete},
		{"POST", "/admin/v1/reviews/{id}/seller-response/draft", keyOrPanel, core.PermModerate, h.handleSellerResponseDraft},
		{"PUT", "/admin/v1/reviews/{id}/featured", keyOrPanel, core.PermModerate, h.handleFeaturedPut},
		{"DELETE", "/admin/v1/reviews/{id}/featured", keyOrPanel, core.PermModerate, h.handleFeaturedDelete},
		{"POST", "/admin/v1/reviews/{id}/resolution", keyOrPanel, core.PermModerate, h.handleResolutionSet},
		{"DELETE", "/admin/v1/reviews/{id}/resolution", keyOrPanel, core.PermModerate, h.handleResolutionDelete},
		{"GET", "/admin/v1/moderation/queue", keyOrPanel, core.PermModerate, h.handleModerationQueue},
		{"POST", "/admin/v1/moderation/bulk", keyOrPanel, core.PermModerate, h.handleModerationBulk},
		{"GET", "/admin/v1/reasons", keyOrPanel, core.PermRead, h.handleReasonList},
		// Access log, audit log and audit file (audit.go).
		{"GET", "/admin/v1/access-log", keyOrPanel, core.PermExport, h.handleAccessLog},
		{"GET", "/admin/v1/audit-log", keyOrPanel, core.PermExport, h.handleAuditLog},
		{"POST", "/admin/v1/audit-log/export", keyOrPanel, core.PermExport, h.handleAuditLogExport},
		{"POST", "/admin/v1/audit-file", keyOrPanel, core.PermExport, h.handleAuditFileCreate},
		{"GET", "/admin/v1/audit-file/{id:af_[0-9]+}", keyOrPanel, core.PermExport, h.handleAuditFileGet},
		// Personal-data requests (subject_requests.go): panel session with
		// handle-personal-data-requests only.
		{"GET", "/admin/v1/subject-requests", panel, core.PermPersonalData, h.handleSubjectRequestList},
		{"POST", "/admin/v1/subject-requests", panel, core.PermPersonalData, h.handleSubjectRequestCreate},
		{"GET", "/admin/v1/subject-requests/{id:dsr_[0-9]+}", panel, core.PermPersonalData, h.handleSubjectRequestGet},
		{"POST", "/admin/v1/subject-requests/{id:dsr_[0-9]+}/complete", panel, core.PermPersonalData, h.handleSubjectRequestComplete},
		{"POST", "/admin/v1/subject-requests/{id:dsr_[0-9]+}/refuse", panel, core.PermPersonalData, h.handleSubjectRequestRefuse},
		{"POST", "/admin/v1/subject-requests/{id:dsr_[0-9]+}/copy", panel, core.PermPersonalData, h.handleSubjectRequestCopy},
		// Marketplace reviews (marketplace.go): panel session; connections need
		// change-settings, the imported-review list and removals
		// handle-personal-data-requests.
		{"GET", "/admin/v1/marketplace/sources", panelNotKey, core.PermWrite, h.handleMarketSourceList},
		{"POST", "/admin/v1/marketplace/sources", panelNotKey, core.PermWrite, h.handleMarketSourceCreate},
		{"GET", "/admin/v1/marketplace/sources/{id:mks_[0-9]+}", panelNotKey, core.PermWrite, h.handleMarketSourceGet},
		{"PATCH", "/admin/v1/marketplace/sources/{id:mks_[0-9]+}", panelNotKey, core.PermWrite, h.handleMarketSourceUpdate},
		{"DELETE", "/admin/v1/marketplace/sources/{id:mks_[0-9]+}", panelNotKey, core.PermWrite, h.handleMarketSourceDelete},
		{"POST", "/admin/v1/marketplace/sources/{id:mks_[0-9]+}/runs", panelNotKey, core.PermWrite, h.handleMarketRunStart},
		{"GET", "/admin/v1/marketplace/sources/{id:mks_[0-9]+}/runs", panelNotKey, core.PermWrite, h.handleMarketRunList},
		{"POST", "/admin/v1/marketplace/sources/{id:mks_[0-9]+}/check", panelNotKey, core.PermWrite, h.handleMarketCheck},
		{"GET", "/admin/v1/marketplace/imported-reviews", panelNotKey, core.PermPersonalData, h.handleImportedReviewList},
		{"POST", "/admin/v1/marketplace/removals", panelNotKey, core.PermPersonalData, h.handleMarketRemoval},
		// Whole-brand archive (brand_export.go): panel session with the export
		// permission; served to a frozen or closed brand too (availableWhenInactive).
		{"GET", "/admin/v1/brand-export", panel, core.PermExport, h.handleBrandExportList},
		{"POST", "/admin/v1/brand-export", panel, core.PermExport, h.handleBrandExportCreate},
		{"GET", "/admin/v1/brand-export/{id:bx_[0-9]+}/download", panel, core.PermExport, h.handleBrandExportDownload},
		// Product feeds of the catalogue (product_feeds.go): panel session, change-settings.
		{"GET", "/admin/v1/product-feeds", panelNotKey, core.PermWrite, h.handleProductFeedList},
		{"POST", "/admin/v1/product-feeds", panelNotKey, core.PermWrite, h.handleProductFeedCreate},
		{"DELETE", "/admin/v1/product-feeds/{id:pf_[0-9]+}", panelNotKey, core.PermWrite, h.handleProductFeedDelete},
		// Product-review feeds (review_feeds.go): definitions in a panel session with
		// change-settings; the feed itself is public at its secret address.
		{"GET", "/admin/v1/review-feeds", panelNotKey, core.PermWrite, h.handleReviewFeedList},
		{"POST", "/admin/v1/review-feeds", panelNotKey, core.PermWrite, h.handleReviewFeedCreate},
		{"DELETE", "/admin/v1/review-feeds/{id:rf_[0-9]+}", panelNotKey, core.PermWrite, h.handleReviewFeedDelete},
		{"GET", "/admin/v1/shared-review-feeds/{id:rf_[0-9]+}/{key:[0-9a-f]{32}}.xml", open, "", h.handleSharedReviewFeed},
		// Figures (insights.go).
		{"GET", "/admin/v1/metrics", keyOrPanel, core.PermRead, h.handleMetrics},
		{"GET", "/admin/v1/insights", keyOrPanel, core.PermRead, h.handleInsights},
		{"GET", "/admin/v1/overview", keyOrPanel, core.PermRead, h.handleOverview},
		// The AI package (ai.go); mounted only while ai.provider is not off.
		{"GET", "/admin/v1/ai", keyOrPanel, core.PermRead, h.handleAIStatus},
		{"POST", "/admin/v1/ai/requests", keyOrPanel, core.PermRead, h.handleAIRequestCreate},
		{"GET", "/admin/v1/ai/requests/{id:aireq_[0-9]+}", keyOrPanel, core.PermRead, h.handleAIRequestGet},
	}
}

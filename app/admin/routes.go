package admin

import "reviewd/app/core"

// routes is the audit table of the admin surface: method, path, permission, handler.
// Panel-session-only rules are enforced inside the handlers with web.PanelOnly.
func (h *Handler) routes() []route {
	return []route{
		{"GET", "/admin/v1/whoami", core.PermRead, h.handleWhoami},
		{"POST", "/admin/v1/session", "", h.handleSessionCreate},
		{"POST", "/admin/v1/session/passcode", "", h.handleSessionPasscode},
		{"GET", "/admin/v1/session", core.PermRead, h.handleSessionGet},
		{"DELETE", "/admin/v1/session", core.PermRead, h.handleSessionDelete},
		{"GET", "/admin/v1/session/second-step", core.PermRead, h.handleSecondStepGet},
		{"POST", "/admin/v1/session/second-step", core.PermRead, h.handleSecondStepStart},
		{"POST", "/admin/v1/session/second-step/confirm", core.PermRead, h.handleSecondStepConfirm},
		{"POST", "/admin/v1/session/second-step/off", core.PermRead, h.handleSecondStepOff},
		{"POST", "/admin/v1/session/email-change", core.PermRead, h.handleEmailChange},
		{"GET", "/admin/v1/settings", core.PermWrite, h.handleSettingsGet},
		{"POST", "/admin/v1/settings", core.PermWrite, h.handleSettingsUpdate},
		{"POST", "/admin/v1/settings/webhook-secret", core.PermWrite, h.handleWebhookSecretCreate},
		{"GET", "/admin/v1/invites", core.PermRead, h.handleInviteList},
		{"POST", "/admin/v1/invites/retry", core.PermWrite, h.handleInviteRetry},
		{"GET", "/admin/v1/send-logs", core.PermRead, h.handleSendLogList},
		{"POST", "/admin/v1/opt-outs/check", core.PermRead, h.handleOptOutCheck},
		{"GET", "/admin/v1/opt-outs/export", core.PermExport, h.handleOptOutExport},
		{"GET", "/admin/v1/terms", core.PermRead, h.handleTermList},
		{"POST", "/admin/v1/terms", core.PermWrite, h.handleTermsSave},
		{"DELETE", "/admin/v1/terms/{id:term_[0-9]+}", core.PermWrite, h.handleTermDelete},
		{"GET", "/admin/v1/aspect-templates", core.PermRead, h.handleAspectTemplateList},
		{"POST", "/admin/v1/aspect-templates", core.PermWrite, h.handleAspectTemplateSave},
		{"POST", "/admin/v1/aspect-templates/retire", core.PermWrite, h.handleAspectTemplateRetire},
		// Questions and answers (questions.go).
		{"GET", "/admin/v1/questions", core.PermRead, h.handleQuestionList},
		{"GET", "/admin/v1/questions/{id:q_[a-z2-7]{20}}", core.PermRead, h.handleQuestionGet},
		{"POST", "/admin/v1/questions/{id:q_[a-z2-7]{20}}/transition", core.PermModerate, h.handleQuestionTransition},
		{"POST", "/admin/v1/questions/{id:q_[a-z2-7]{20}}/answer", core.PermModerate, h.handleBrandAnswer},
		{"POST", "/admin/v1/answers/{id:a_[a-z2-7]{20}}/transition", core.PermModerate, h.handleAnswerTransition},
		// Market rules (policies.go); POST is panel-session only with manage-market-rules, checked in core.
		{"GET", "/admin/v1/policies", core.PermRead, h.handlePolicyList},
		{"POST", "/admin/v1/policies", core.PermRead, h.handlePolicyCreate},
		// Method statements (method_statement.go).
		{"GET", "/admin/v1/method-statement", core.PermRead, h.handleStatementList},
		{"POST", "/admin/v1/method-statement", core.PermWrite, h.handleStatementSave},
		{"POST", "/admin/v1/method-statement/confirm", core.PermWrite, h.handleStatementConfirm},
		// Platform order connections (order_sources.go): panel session with
		// change-settings, checked in the handlers (keys get panel_session_required
		// or scope_missing).
		{"GET", "/admin/v1/order-sources", core.PermRead, h.handleOrderSourceList},
		{"POST", "/admin/v1/order-sources", core.PermRead, h.handleOrderSourceCreate},
		{"POST", "/admin/v1/order-sources/check", core.PermRead, h.handleOrderSourceCheck},
		{"GET", "/admin/v1/order-sources/{id:conn_[0-9]+}", core.PermRead, h.handleOrderSourceGet},
		{"PATCH", "/admin/v1/order-sources/{id:conn_[0-9]+}", core.PermRead, h.handleOrderSourceUpdate},
		{"DELETE", "/admin/v1/order-sources/{id:conn_[0-9]+}", core.PermRead, h.handleOrderSourceDelete},
		{"POST", "/admin/v1/order-sources/{id:conn_[0-9]+}/check", core.PermRead, h.handleOrderSourceCheckSaved},
		{"POST", "/admin/v1/order-sources/{id:conn_[0-9]+}/run", core.PermRead, h.handleOrderSourceRun},
		// Connection log (diagnostics.go).
		{"GET", "/admin/v1/diagnostics", core.PermRead, h.handleDiagnostics},
		// Reviews and moderation (reviews.go, moderation.go, trace.go, reasons.go).
		{"GET", "/admin/v1/reviews", core.PermRead, h.handleReviewList},
		{"GET", "/admin/v1/reviews/{id}", core.PermRead, h.handleReviewGet},
		{"GET", "/admin/v1/reviews/{id}/media/{file_id}/{file_name}", core.PermRead, h.handleReviewMediaFile},
		{"DELETE", "/admin/v1/reviews/{id}/media/{file_id}", core.PermModerate, h.handleReviewMediaDelete},
		{"POST", "/admin/v1/reviews/{id}/transition", core.PermModerate, h.handleReviewTransition},
		{"GET", "/admin/v1/reviews/{id}/trace", core.PermExport, h.handleReviewTrace},
		{"POST", "/admin/v1/reviews/{id}/reports/resolve", core.PermModerate, h.handleReportsResolve},
		{"GET", "/admin/v1/moderation/queue", core.PermModerate, h.handleModerationQueue},
		{"POST", "/admin/v1/moderation/bulk", core.PermModerate, h.handleModerationBulk},
		{"GET", "/admin/v1/reasons", core.PermRead, h.handleReasonList},
	}
}

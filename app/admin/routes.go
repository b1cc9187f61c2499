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
	}
}

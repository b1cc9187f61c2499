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
	}
}

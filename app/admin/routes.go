package admin

import "reviewd/app/core"

// routes is the audit table of the admin surface: method, path, permission, handler.
// Panel-session-only rules are enforced inside the handlers with web.PanelOnly.
func (h *Handler) routes() []route {
	return []route{
		{"GET", "/admin/v1/whoami", core.PermRead, h.handleWhoami},
	}
}

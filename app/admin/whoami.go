package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/web"
)

// handleWhoami serves GET /admin/v1/whoami: who the credentials belong to.
func (h *Handler) handleWhoami(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var perms []string
	for _, p := range []string{core.PermRead, core.PermModerate, core.PermExport, core.PermWrite, core.PermMarketRules, core.PermPersonalData, core.PermUsers} {
		if a.Can(p) {
			perms = append(perms, p)
		}
	}
	return web.JSON(w, http.StatusOK, map[string]any{"via": a.Via, "id": a.ID, "name": a.Name, "role": a.Role, "permissions": perms})
}

package admin

import (
	"strings"
	"testing"

	"reviewd/app/core"
)

// TestRouteTableIsTheAccessAudit checks that every admin route states its callers
// and permission: only signing in is open, and every other route names a
// permission the guard checks. The one other open route is the shared review feed,
// which spec 3 serves without a session at an address carrying its secret key.
func TestRouteTableIsTheAccessAudit(t *testing.T) {
	h := &Handler{}
	for _, rt := range h.routes() {
		name := rt.method + " " + rt.path
		switch {
		case rt.access == open && rt.perm != "":
			t.Errorf("%s: open route with permission %q", name, rt.perm)
		case rt.access == open && !strings.HasPrefix(rt.path, "/admin/v1/session") &&
			!strings.HasPrefix(rt.path, "/admin/v1/shared-review-feeds/"):
			t.Errorf("%s: open route outside signing in", name)
		case rt.access != open && rt.perm == "":
			t.Errorf("%s: authenticated route without permission", name)
		}
		if strings.HasPrefix(rt.path, "/admin/v1/order-sources") && rt.access != panelNotKey {
			t.Errorf("%s: order connections take a panel session only", name)
		}
		if name == "POST /admin/v1/policies" && (rt.access != panelNotKey || rt.perm != core.PermMarketRules) {
			t.Errorf("%s: a market rule version takes a panel session with manage-market-rules", name)
		}
		if name == "POST /admin/v1/settings/webhook-secret" && rt.access != panelRefusesKey {
			t.Errorf("%s: the notification password takes a panel session only", name)
		}
	}
}

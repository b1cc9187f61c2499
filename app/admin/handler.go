// Package admin is the management API under /admin/v1/: panel session endpoints and
// the key-callable operations. Handlers parse input, call one core method and encode
// the result; callers and permissions are checked by the route table in routes.go.
package admin

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/ai"
	"reviewd/app/core/audit"
	"reviewd/app/core/brand"
	"reviewd/app/core/brandexport"
	"reviewd/app/core/catalogue"
	"reviewd/app/core/channels"
	"reviewd/app/core/checks"
	"reviewd/app/core/feeds"
	"reviewd/app/core/insights"
	"reviewd/app/core/marketplace"
	"reviewd/app/core/orders"
	"reviewd/app/core/privacy"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/web"
)

// Handler holds what the admin surface uses.
type Handler struct {
	// PublicURL is the public address (public_url) as it is now: the demo learns
	// its port after the surfaces are built.
	PublicURL func() string
	Clock     core.Clock

	Access  *access.Service
	Orders  *orders.Service
	QA      *qa.Service
	Reviews *reviews.Service
	Sending *sending.Service
	Read    *readmodel.Service
	Checks  *checks.Service
	Brand   *brand.Service
	// Passwords: the signing and mail-event passwords (secrets.go).
	Passwords *core.Passwords
	Audit     *audit.Service
	Privacy   *privacy.Service
	// Channels: channels, domains and keys made from the panel.
	Channels *channels.Service
	// Marketplace serves the marketplace review endpoints (marketplace.go).
	Marketplace *marketplace.Service
	// Catalogue serves the product feed endpoints (product_feeds.go).
	Catalogue *catalogue.Service
	// Exports serves the whole-brand archive (brand_export.go).
	Exports *brandexport.Service
	// Feeds serves the product-review feeds (review_feeds.go).
	Feeds *feeds.Service
	// Insights serves the metrics, insights and overview (insights.go).
	Insights *insights.Service
	// AI serves /admin/v1/ai (ai.go); its routes exist only while ai.provider is
	// not off.
	AI     *ai.Service
	Auth   *web.Auth
	Limits *web.Limits
}

// route is one line of the route table: method, path, who may call it, the
// permission it needs and the handler. The table is the whole access rule of the
// surface; handlers do not check callers again.
type route struct {
	method, path string
	access       callers
	perm         string // "" with access open: no authentication (session sign-in)
	h            func(w http.ResponseWriter, r *http.Request, a *core.Actor) error
}

// callers says which callers a route takes.
type callers int

const (
	// open routes take no credentials (signing in).
	open callers = iota
	// keyOrPanel routes take an admin key or a panel session with the permission.
	keyOrPanel
	// panel routes take a panel session only; a key gets 403 forbidden /
	// scope_missing.
	panel
	// panelNotKey routes take a panel session only (spec 3, Authentication rule
	// 2); a key with the write scope gets 403 forbidden / panel_session_required,
	// any other key forbidden / scope_missing.
	panelNotKey
	// panelRefusesKey routes take a panel session only (the notification password
	// of own-system sending, spec 1); a key with the write scope gets 403 refused /
	// panel_session_required, any other key forbidden / scope_missing.
	panelRefusesKey
)

// allow applies the route's access rule and permission to an authenticated caller.
func (rt route) allow(a *core.Actor) error {
	switch rt.access {
	case panel:
		if !a.IsPanel() {
			return core.ErrScopeMissing
		}
	case panelNotKey:
		if !a.IsPanel() {
			if a.Can(core.PermWrite) {
				return core.ErrPanelSession
			}
			return core.ErrScopeMissing
		}
	case panelRefusesKey:
		if !a.IsPanel() {
			if a.Can(core.PermWrite) {
				return errPanelRefused
			}
			return core.ErrScopeMissing
		}
	}
	if !a.Can(rt.perm) {
		return core.ErrScopeMissing
	}
	return nil
}

// errPanelRefused answers a key on a panelRefusesKey route.
var errPanelRefused = core.Refused("panel_session_required")

// guard authenticates the caller and checks the permission before h runs.
func (h *Handler) guard(rt route) http.Handler {
	return web.H(func(w http.ResponseWriter, r *http.Request) error {
		if err := web.CheckQuery(r); err != nil {
			return err
		}
		if err := h.Access.AdminAllowed(r.Context(), availableWhenInactive(rt.path)); err != nil {
			return err
		}
		if rt.access == open {
			return rt.h(w, r, nil)
		}
		a, err := h.Auth.Admin(r, "")
		if err != nil {
			return err
		}
		if err := rt.allow(a); err != nil {
			return err
		}
		return rt.h(w, r, a)
	})
}

// availableWhenInactive reports whether a route serves a frozen or closed brand:
// signing in and out (to reach the export) and the data export itself. Every other
// route answers 403 forbidden / brand_inactive.
func availableWhenInactive(path string) bool {
	return strings.HasPrefix(path, "/admin/v1/session") || strings.HasPrefix(path, "/admin/v1/brand-export")
}

// Mount adds every admin route to the router.
func (h *Handler) Mount(r *mux.Router) {
	for _, rt := range h.routes() {
		if strings.HasPrefix(rt.path, "/admin/v1/ai") && !h.AI.On() {
			continue // v1: no such route
		}
		r.Handle(rt.path, h.guard(rt)).Methods(rt.method)
	}
}

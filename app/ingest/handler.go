// Package ingest is the server-to-server transfer surface: orders and deliveries
// posted by a store's system (spec 1), plus the panel's dry run and transfer figures
// of those transfers. Handlers authenticate, decode the body into core inputs, call
// one core method and encode its answer; every rule lives in app/core. It imports
// app/web and app/core only.
package ingest

import (
	"net/http"
	"sync"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/catalogue"
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// MaxBody is the largest order or delivery body read (see docs/decisions.md,
// "Order ingest body limit"); larger bodies answer 413 invalid / body_too_large.
const MaxBody = 5 << 20

// Handler holds what the ingest surface uses.
type Handler struct {
	Orders *orders.Service
	// Catalogue takes the products posted by the store server (products.go).
	Catalogue *catalogue.Service
	Auth      *web.Auth
	Limits    *web.Limits

	anonOnce  sync.Once
	anonLimit *web.Limiter // anonymous dry runs (panel.go)
}

// route is one line of the route table. perm "" means the handler authenticates
// the transfer itself (server key or signature over the raw body).
type route struct {
	method, path string
	access       callers
	perm         string // the admin permission of keyOrPanel routes
	h            func(w http.ResponseWriter, r *http.Request, a *core.Actor) error
}

// callers says which callers a route takes.
type callers int

const (
	// transfer routes take a Bearer server key with the orders scope or a
	// signature with a signing password, checked in the handler because the
	// signature covers the body (web.Auth.Ingest).
	transfer callers = iota + 1
	// dryRun routes take no credentials (spec 1, rule 5), limited per IP address;
	// admin credentials, when sent, must be valid and show every detail.
	dryRun
	// keyOrPanel routes take an admin key or a panel session with the permission.
	keyOrPanel
)

// Mount adds every ingest route to the router.
func (h *Handler) Mount(r *mux.Router) {
	for _, rt := range h.routes() {
		r.Handle(rt.path, h.guard(rt)).Methods(rt.method)
	}
}

// guard checks the caller of keyOrPanel routes before h runs; transfer and dry-run
// routes authenticate inside their handler (a signature covers the body). The
// management routes (dry run, figures) of a frozen or closed brand answer 403
// forbidden / brand_inactive, as every admin route does.
func (h *Handler) guard(rt route) http.Handler {
	return web.H(func(w http.ResponseWriter, r *http.Request) error {
		if rt.access != transfer {
			if err := h.Auth.Access.AdminAllowed(r.Context(), false); err != nil {
				return err
			}
		}
		if rt.access != keyOrPanel {
			return rt.h(w, r, nil)
		}
		if err := web.CheckQuery(r); err != nil {
			return err
		}
		a, err := h.Auth.Admin(r, rt.perm)
		if err != nil {
			return err
		}
		return rt.h(w, r, a)
	})
}

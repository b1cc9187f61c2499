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
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// MaxBody is the largest order or delivery body read (see docs/decisions.md,
// "Order ingest body limit"); larger bodies answer 413 invalid / body_too_large.
const MaxBody = 5 << 20

// Handler holds what the ingest surface uses.
type Handler struct {
	Orders *orders.Service
	Auth   *web.Auth
	Limits *web.Limits

	anonOnce  sync.Once
	anonLimit *web.Limiter // anonymous dry runs (panel.go)
}

// route is one line of the route table. perm "" means the handler authenticates
// the transfer itself (server key or signature over the raw body).
type route struct {
	method, path string
	perm         string
	h            func(w http.ResponseWriter, r *http.Request, a *core.Actor) error
}

// Mount adds every ingest route to the router.
func (h *Handler) Mount(r *mux.Router) {
	for _, rt := range h.routes() {
		r.Handle(rt.path, h.guard(rt)).Methods(rt.method)
	}
}

// guard checks the admin permission of panel routes before h runs; transfer routes
// authenticate inside their handler because a signature covers the body.
func (h *Handler) guard(rt route) http.Handler {
	return web.H(func(w http.ResponseWriter, r *http.Request) error {
		if rt.perm == "" {
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

// Package admin is the management API under /admin/v1/: panel session endpoints and
// the key-callable operations. Handlers parse input, call one core method and encode
// the result; permissions are checked by the route table in routes.go.
package admin

import (
	"net/http"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/checks"
	"reviewd/app/core/orders"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/web"
)

// Handler holds what the admin surface uses.
type Handler struct {
	Core    *core.Core
	Orders  *orders.Service
	QA      *qa.Service
	Reviews *reviews.Service
	Sending *sending.Service
	Read    *readmodel.Service
	Checks  *checks.Service
	Brand   *brand.Service
	Auth    *web.Auth
	Limits  *web.Limits
}

// route is one line of the route table.
type route struct {
	method, path string
	perm         string // "" = no authentication (session sign-in)
	h            func(w http.ResponseWriter, r *http.Request, a *core.Actor) error
}

// guard authenticates the caller and checks the permission before h runs.
func (h *Handler) guard(rt route) http.Handler {
	return web.H(func(w http.ResponseWriter, r *http.Request) error {
		if err := web.CheckQuery(r); err != nil {
			return err
		}
		if rt.perm == "" {
			return rt.h(w, r, nil)
		}
		a, err := h.Auth.Admin(r, rt.perm)
		if err != nil {
			return err
		}
		return rt.h(w, r, a)
	})
}

// Mount adds every admin route to the router.
func (h *Handler) Mount(r *mux.Router) {
	for _, rt := range h.routes() {
		r.Handle(rt.path, h.guard(rt)).Methods(rt.method)
	}
}

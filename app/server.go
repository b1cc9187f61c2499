package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/web"
)

// Surface is one group of routes (ingest, storefront, admin, ...) that mounts itself
// on the router.
type Surface interface {
	Mount(r *mux.Router)
}

// Server owns the router and the http.Server.
type Server struct {
	cfg    Config
	router *mux.Router
	Limits *web.Limits
	Auth   *web.Auth
	Core   *core.Core
}

// NewServer builds the router with the shared middleware and mounts the surfaces.
func NewServer(cfg Config, c *core.Core, surfaces func(s *Server) []Surface) *Server {
	limits := web.NewLimits(c.Now)
	s := &Server{cfg: cfg, router: mux.NewRouter(), Limits: limits, Core: c, Auth: &web.Auth{Core: c, Limits: limits}}
	s.router.NotFoundHandler = web.NotFound()
	s.router.MethodNotAllowedHandler = web.MethodNotAllowed(s.router)
	s.router.Handle("/healthz", web.H(func(w http.ResponseWriter, r *http.Request) error {
		return web.JSON(w, http.StatusOK, map[string]any{"ok": true})
	})).Methods(http.MethodGet)
	if surfaces != nil {
		for _, sf := range surfaces(s) {
			sf.Mount(s.router)
		}
	}
	return s
}

// Router exposes the router so surfaces can be mounted after construction.
func (s *Server) Router() *mux.Router { return s.router }

// Handler is the whole HTTP handler with the outer middleware.
func (s *Server) Handler() http.Handler {
	h := web.Base(s.router, web.ParseProxies(s.cfg.TrustedProxies), s.Limits)
	return web.ReadDeadline(h, web.ShortRead, web.LongRead, web.IsUpload)
}

// ListenAndServe serves until ctx ends, then shuts down gracefully. ready, when not
// nil, receives the bound address.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr())
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       0, // per request in web.ReadDeadline: long only for media uploads
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if e := <-errc; e != nil && !errors.Is(e, http.ErrServerClosed) {
			return e
		}
		return err
	}
}

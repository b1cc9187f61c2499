package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/metrics"
	"reviewd/app/web"
	"reviewd/docs"
	"reviewd/store"
)

// Surface is one group of routes (ingest, storefront, admin, ...) that mounts itself
// on the router.
type Surface interface {
	Mount(r *mux.Router)
}

// BenchKeyLimitsEnv set to "off" lifts the per-key request limits (site, server and
// API keys) so a load measurement can send every request with one key. It is for
// benchmarks only, never for an installation (docs/benchmarks.md).
const BenchKeyLimitsEnv = "REVIEWD_BENCHMARK_ONLY_KEY_LIMITS"

// Server owns the router and the http.Server.
type Server struct {
	cfg    Config
	router *mux.Router
	Limits *web.Limits
	Auth   *web.Auth

	metrics *metrics.Metrics
}

// NewServer builds the router with the shared middleware and mounts the surfaces.
func NewServer(cfg Config, clock core.Clock, log *slog.Logger, acc *access.Service, surfaces func(s *Server) []Surface) *Server {
	limits := web.NewLimits(clock.Now)
	if os.Getenv(BenchKeyLimitsEnv) == "off" {
		// For load measurements only (docs/benchmarks.md): one key sends every request.
		// The limiters still run on every request.
		limits.Keys = web.NewLimiter(1<<30, time.Second, clock.Now)
		limits.StoreServer = web.NewLimiter(1<<30, time.Second, clock.Now)
		if log != nil {
			log.Warn("per-key request limits are off (" + BenchKeyLimitsEnv + "=off): for load measurements only")
		}
	}
	s := &Server{cfg: cfg, router: mux.NewRouter(), Limits: limits, Auth: &web.Auth{Access: acc, Limits: limits}}
	s.router.Use(web.TagRoute)
	s.router.NotFoundHandler = web.NotFound()
	s.router.MethodNotAllowedHandler = web.MethodNotAllowed(s.router)
	s.router.Handle("/healthz", web.H(func(w http.ResponseWriter, r *http.Request) error {
		return web.JSON(w, http.StatusOK, map[string]any{"ok": true, "version": Version, "commit": Commit,
			"schema_version": store.SchemaVersion})
	})).Methods(http.MethodGet)
	s.router.Handle("/openapi.json", docs.OpenAPIHandler()).Methods(http.MethodGet)
	if surfaces != nil {
		for _, sf := range surfaces(s) {
			sf.Mount(s.router)
		}
	}
	return s
}

// UseMetrics counts every request in m and, when metrics.token is set, serves
// GET /metrics on this listener to callers with "Authorization: Bearer <token>"
// (otherwise 401 refused / credentials_missing or credentials_invalid, counted
// toward the per-IP refusal limit). A nil m changes nothing.
func (s *Server) UseMetrics(m *metrics.Metrics) {
	if m == nil {
		return
	}
	s.metrics = m
	token := s.cfg.Metrics.Token
	if token == "" {
		return
	}
	h := m.Handler()
	s.router.Handle("/metrics", web.H(func(w http.ResponseWriter, r *http.Request) error {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || got == "" {
			return core.E(http.StatusUnauthorized, "refused", "credentials_missing").AsRefusal()
		}
		if !core.Equal(got, token) {
			return core.E(http.StatusUnauthorized, "refused", "credentials_invalid").AsRefusal()
		}
		h.ServeHTTP(w, r)
		return nil
	})).Methods(http.MethodGet)
}

// MetricsHandler is the handler of the separate metrics.listen address: GET
// /metrics without credentials (the address is the operator's to protect), 404
// for everything else.
func MetricsHandler(m *metrics.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.Handle("/", web.NotFound())
	return mux
}

// Router exposes the router so surfaces can be mounted after construction.
func (s *Server) Router() *mux.Router { return s.router }

// Handler is the whole HTTP handler with the outer middleware.
func (s *Server) Handler() http.Handler {
	var obs web.RequestObserver
	if s.metrics != nil {
		obs = s.metrics
	}
	h := web.Observed(s.router, web.ParseProxies(s.cfg.TrustedProxies), s.Limits, obs)
	return web.ReadDeadline(h, web.ShortRead, web.LongRead, web.IsUpload)
}

// ListenAndServe serves until ctx ends, then shuts down gracefully. ready, when not
// nil, receives the bound address.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	return Serve(ctx, addr, s.Handler(), ready)
}

// Serve serves h on addr until ctx ends, then shuts down gracefully. ready, when
// not nil, receives the bound address.
func Serve(ctx context.Context, addr string, h http.Handler, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return ServeListener(ctx, ln, h)
}

// ServeListener serves h on ln until ctx ends, then shuts down gracefully.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
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

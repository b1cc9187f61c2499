package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
)

// Default security headers; HTML surfaces replace the CSP with their own.
const (
	APICSP            = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
	PermissionsPolicy = "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()"
)

// Proxies decides which X-Forwarded-For to believe.
type Proxies []netip.Prefix

// ParseProxies reads CIDRs (or single addresses).
func ParseProxies(list []string) Proxies {
	var out Proxies
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

func (ps Proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the peer address, or, when the peer is a trusted proxy, the rightmost
// X-Forwarded-For entry that is not itself a trusted proxy.
func (ps Proxies) clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if !ps.trusted(peer) {
		return peer.Unmap().String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !ps.trusted(a) {
			return a.Unmap().String()
		}
	}
	return peer.Unmap().String()
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RequestObserver is told about every finished request: the method, the matched
// route template ("" when no route matched), the status and the duration. The
// metrics package implements it.
type RequestObserver interface {
	ObserveRequest(method, route string, status int, d time.Duration)
}

// TagRoute is router middleware (mux.Router.Use) that records the matched route
// template, so the outer middleware can log and count by route instead of by path:
// paths carry ids, tokens and access codes.
func TagRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cr := mux.CurrentRoute(r); cr != nil {
			if t, err := cr.GetPathTemplate(); err == nil {
				state(r.Context()).route = t
			}
		}
		next.ServeHTTP(w, r)
	})
}

// routeLabel is the route template, or "unmatched" for requests no route took
// (404s and 405s): their raw path is never logged or counted.
func routeLabel(st *reqState) string {
	if st.route == "" {
		return "unmatched"
	}
	return st.route
}

// Base is the outermost middleware of every route: request id, security headers,
// the per-IP refusal limit, panic recovery (a JSON 500; the request's transaction
// was rolled back by store.WithTx) and the access log line.
func Base(next http.Handler, proxies Proxies, limits *Limits) http.Handler {
	return Observed(next, proxies, limits, nil)
}

// Observed is Base that also reports every finished request to obs (nil: none).
// The access log line (debug level) carries the request id, method, route
// template, status and duration; never the path or query, which may hold tokens,
// access codes or e-mail addresses.
func Observed(next http.Handler, proxies Proxies, limits *Limits, obs RequestObserver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &reqState{requestID: newRequestID(), ip: proxies.clientIP(r), limits: limits}
		r = r.WithContext(context.WithValue(r.Context(), stateKey, st))
		h := w.Header()
		h.Set("X-Request-Id", st.requestID)
		h.Set("Content-Security-Policy", APICSP)
		h.Set("Permissions-Policy", PermissionsPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		rec := &recorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.Error("panic", "request_id", st.requestID, "method", r.Method, "route", routeLabel(st),
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if rec.status == 0 {
					Error(rec, r, core.ErrInternal)
				}
			}
			switch {
			case st.held != nil && !st.refused:
				st.held() // counted at the start (HoldRefusal), not refused after all
			case st.held == nil && st.refused && limits != nil:
				limits.Refused.Allow(st.ip)
			}
			status := rec.status
			if status == 0 {
				status = http.StatusOK // nothing written: net/http answers 200
			}
			d := time.Since(start)
			if obs != nil {
				obs.ObserveRequest(r.Method, st.route, status, d)
			}
			slog.Debug("request", "request_id", st.requestID, "method", r.Method, "route", routeLabel(st),
				"status", status, "duration_ms", float64(d.Microseconds())/1000)
		}()
		if limits != nil && limits.Refused.Exhausted(st.ip) {
			Error(rec, r, core.ErrRateLimited)
			return
		}
		next.ServeHTTP(rec, r)
	})
}

// NotFound answers 404 not_found as JSON.
func NotFound() http.Handler {
	return H(func(w http.ResponseWriter, r *http.Request) error { return core.ErrNotFound })
}

// MethodNotAllowed answers 405 method_not_allowed with an Allow header listing the
// methods the path does support.
func MethodNotAllowed(router *mux.Router) http.Handler {
	return H(func(w http.ResponseWriter, r *http.Request) error {
		var allowed []string
		seen := map[string]bool{}
		_ = router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
			var m mux.RouteMatch
			methods, err := route.GetMethods()
			if err != nil {
				return nil
			}
			probe := r.Clone(r.Context())
			for _, meth := range methods {
				probe.Method = meth
				if route.Match(probe, &m) && !seen[meth] {
					seen[meth] = true
					allowed = append(allowed, meth)
				}
			}
			return nil
		})
		return core.ErrMethodNotAllowed.With(map[string]any{"allow": strings.Join(allowed, ", ")})
	})
}

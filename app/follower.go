package app

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/web"
)

// Follower is the follower block of the configuration (follower.* keys,
// docs/high-availability.md): a read-only copy that serves the storefront's reads
// from the replica and passes everything else to the primary.
type Follower struct {
	Enabled bool `mapstructure:"enabled"`
	// PrimaryURL is the primary's address, where writes are passed.
	PrimaryURL string `mapstructure:"primary_url"`
	// MaxLag is the lag past which /healthz fails.
	MaxLag time.Duration `mapstructure:"max_lag"`
	// PassWrites passes writes to the primary; off, they are refused with 503
	// follower_read_only.
	PassWrites bool `mapstructure:"pass_writes"`
}

// Validate reports the problems of the block, each prefixed with its key.
func (f Follower) Validate(replicaOn bool) error {
	if !f.Enabled {
		return nil
	}
	var errs []error
	if !replicaOn {
		errs = append(errs, errors.New("follower.enabled: a follower needs replica.url"))
	}
	if u, err := url.Parse(f.PrimaryURL); f.PassWrites && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		errs = append(errs, fmt.Errorf("follower.primary_url: %q is not an http(s) address", f.PrimaryURL))
	}
	if f.MaxLag < time.Second {
		errs = append(errs, fmt.Errorf("follower.max_lag: %s is below 1s", f.MaxLag))
	}
	return errors.Join(errs...)
}

// ErrFollowerReadOnly refuses a write on a follower that does not pass writes.
var ErrFollowerReadOnly = core.E(http.StatusServiceUnavailable, "follower_read_only", "follower_read_only")

// LagHeader carries a follower's lag behind the replica, in whole seconds.
const LagHeader = "X-Service-Replica-Lag"

// servedByFollower tells whether a follower answers r from its own copy: reads
// (GET, HEAD, OPTIONS) outside the admin API and the panel, whose sessions and
// reads belong to the primary.
func servedByFollower(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		return false
	}
	p := r.URL.Path
	return !(p == "/admin" || strings.HasPrefix(p, "/admin/") || p == "/panel" || strings.HasPrefix(p, "/panel/"))
}

// FollowerHandler serves a follower: the storefront's reads from local, the rest
// passed to the primary (with the caller's headers, X-Forwarded-For appended) or
// refused with 503 follower_read_only when passing is off. Every answer carries
// X-Service-Replica-Lag; GET /healthz fails with 503 follower_lagging while the
// lag is over max_lag.
func FollowerHandler(local http.Handler, f Follower, lag func() time.Duration) http.Handler {
	var proxy *httputil.ReverseProxy
	if f.PassWrites {
		target, _ := url.Parse(f.PrimaryURL)
		proxy = &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.Out.Header["X-Forwarded-For"] = pr.In.Header["X-Forwarded-For"]
				pr.SetXForwarded()
				pr.SetURL(target)
				pr.Out.Host = pr.In.Host
			},
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				web.Error(w, r, core.E(http.StatusBadGateway, "primary_unreachable", "primary_unreachable"))
			},
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := lag()
		w.Header().Set(LagHeader, strconv.Itoa(int(l.Round(time.Second)/time.Second)))
		if r.URL.Path == "/healthz" && r.Method == http.MethodGet && l > f.MaxLag {
			web.Error(w, r, core.E(http.StatusServiceUnavailable, "follower_lagging",
				fmt.Sprintf("follower_lagging: %ds behind the replica (follower.max_lag %s)", int(l.Seconds()), f.MaxLag)))
			return
		}
		if servedByFollower(r) {
			local.ServeHTTP(w, r)
			return
		}
		if proxy == nil {
			web.Error(w, r, ErrFollowerReadOnly)
			return
		}
		proxy.ServeHTTP(w, r)
	})
}

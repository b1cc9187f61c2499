package web

import (
	"net/http"
	"strings"
	"time"
)

// Read deadlines of request bodies. The server has no overall ReadTimeout; each
// request gets ShortRead to deliver its body, and only the routes that receive
// files (POST /v1/media) get LongRead, so a client trickling a body holds a
// connection for seconds, not minutes.
const (
	ShortRead = 30 * time.Second
	LongRead  = 5 * time.Minute
)

// ReadDeadline sets the read deadline of each request: long when isLong says so,
// else short. Writers that cannot take a deadline (HTTP/2 streams on some
// transports, test recorders) are served without one.
func ReadDeadline(next http.Handler, short, long time.Duration, isLong func(*http.Request) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := short
		if isLong(r) {
			d = long
		}
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		next.ServeHTTP(w, r)
	})
}

// IsUpload reports whether r is a media upload (POST /v1/media) or a marketplace
// file (POST /admin/v1/marketplace/sources/<id>/runs or .../check, and the panel's
// /panel/marketplace/<id>/runs or .../check; up to 20 MB).
func IsUpload(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	p := r.URL.Path
	if p == "/v1/media" {
		return true
	}
	return (strings.HasPrefix(p, "/admin/v1/marketplace/sources/") || strings.HasPrefix(p, "/panel/marketplace/")) &&
		(strings.HasSuffix(p, "/runs") || strings.HasSuffix(p, "/check"))
}

package admin

import (
	"mime"
	"net/http"
	"net/url"
	"strings"

	"reviewd/app/core"
)

// errCrossSite refuses a sign-in posted from another site (login CSRF).
var errCrossSite = core.Forbidden("cross_site_request")

// checkSignInRequest guards the no-session sign-in calls against login CSRF: the
// body must be declared JSON (a cross-site page can post text/plain or a form
// without asking, but JSON needs a CORS preflight, which reviewd never grants),
// and a browser's Origin or Sec-Fetch-Site must say the request comes from the
// service's own address. Clients that send neither header are not browsers and
// cannot carry a victim's cookies, so they are not refused.
func (h *Handler) checkSignInRequest(r *http.Request) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return core.ErrInvalidJSON.AsRefusal()
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return errCrossSite
	}
	if o := r.Header.Get("Origin"); o != "" && !h.ownOrigin(r, o) {
		return errCrossSite
	}
	return nil
}

// ownOrigin reports whether origin is public_url's origin or the address the
// request was sent to.
func (h *Handler) ownOrigin(r *http.Request, origin string) bool {
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" {
		return false
	}
	if p, err := url.Parse(h.PublicURL()); err == nil && strings.EqualFold(p.Scheme, o.Scheme) && strings.EqualFold(p.Host, o.Host) {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(o.Scheme, scheme) && strings.EqualFold(o.Host, r.Host)
}

// Package panel is the brand team's web panel under /panel/: server-rendered pages
// (html/template) with forms that work without JavaScript, and a small script for
// keyboard moderation, inline actions and live counts. Every page and form calls
// the same domain services as /admin/v1/ with the same actor: the panel session is
// resolved and CSRF-checked by web.Auth.Admin (the admin surface's own check), and
// the permission of each route is the one of the admin route it mirrors
// (routes.go). The script's inline actions call /admin/v1/ directly.
package panel

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/ai"
	"reviewd/app/core/audit"
	"reviewd/app/core/brand"
	"reviewd/app/core/brandexport"
	"reviewd/app/core/channels"
	"reviewd/app/core/checks"
	"reviewd/app/core/feeds"
	"reviewd/app/core/golive"
	"reviewd/app/core/held"
	"reviewd/app/core/insights"
	"reviewd/app/core/marketplace"
	"reviewd/app/core/orders"
	"reviewd/app/core/privacy"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/web"
	"reviewd/store"
)

// Sessions is the part of the panel session the panel uses beyond web.Auth.Admin
// (which resolves the cookie and checks CSRF): the two sign-in steps and sign-out.
// *access.Service implements it.
type Sessions interface {
	SignIn(ctx context.Context, a *core.Actor, username, password, previous string) (access.SignIn, error)
	SignInPasscode(ctx context.Context, a *core.Actor, token, passcode string) (access.SignIn, error)
	SignOut(ctx context.Context, a *core.Actor) error
	SessionUser(ctx context.Context, a *core.Actor) (store.User, error)
	RequestPasswordReset(ctx context.Context, a *core.Actor, email string) error
	SetPasswordWithLink(ctx context.Context, a *core.Actor, token, password string) error
}

// Handler holds what the panel uses.
type Handler struct {
	Sessions  Sessions
	PublicURL string
	Reviews   *reviews.Service
	QA        *qa.Service
	Brand     *brand.Service
	Sending   *sending.Service
	// Access serves the own-account, member and key pages (the same service as
	// Sessions).
	Access *access.Service
	// PlainReplicaEndpoint is replica.endpoint when it is plain http to another
	// machine (replica.Config.EndpointWarning); the diagnostics page warns who may
	// change settings.
	PlainReplicaEndpoint string
	// Passwords serves the signing and mail-event password page.
	Passwords   *core.Passwords
	Channels    *channels.Service
	Audit       *audit.Service
	Privacy     *privacy.Service
	Orders      *orders.Service
	Marketplace *marketplace.Service
	Read        *readmodel.Service
	Checks      *checks.Service
	// Feeds and Exports serve the product-review feed and brand export pages.
	Feeds   *feeds.Service
	Exports *brandexport.Service
	// Insights gives the overview's figures of the last 30 days.
	Insights *insights.Service
	// AI gives the AI package's status on the settings page and reply drafts.
	AI *ai.Service
	// GoLive gives the go-live checklist and the owner alerts.
	GoLive *golive.Service
	Auth   *web.Auth
	// Held keeps approve and reject for their undo window (nil: they act at once).
	Held *held.Service

	pages *pages
}

// formLimit is the largest form body the panel reads.
const formLimit = 64 << 10

// route is one line of the panel's route table.
type route struct {
	method, path string
	// perm is the permission the route needs ("" = no session: sign-in and assets).
	perm string
	// mirrors names the /admin/v1/ route whose service call and permission this
	// route shares.
	mirrors string
	h       func(w http.ResponseWriter, r *http.Request, a *core.Actor) error
}

// Mount adds every panel route to the router.
func (h *Handler) Mount(r *mux.Router) {
	h.pages = mustPages()
	for _, rt := range h.routes() {
		r.Handle(rt.path, h.guard(rt)).Methods(rt.method)
	}
}

// errSignIn marks a page request without a panel session: it is sent to sign-in.
var errSignIn = errors.New("panel: sign in")

// actor authenticates a panel request with the admin surface's check: the session
// cookie, and on unsafe methods the CSRF token (X-Service-CSRF from the script, or
// the csrf form field of a plain form, moved into that header first). Keys are not
// panel callers.
func (h *Handler) actor(r *http.Request, perm string) (*core.Actor, error) {
	c, err := r.Cookie(access.SessionCookie)
	if err != nil || c.Value == "" {
		return nil, errSignIn
	}
	if r.Method == http.MethodPost && r.Header.Get("X-Service-CSRF") == "" {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" && web.IsUpload(r) {
			// The marketplace file form: parts past 1 MB go to temporary files,
			// which guard removes when the request ends (the server removes only
			// those of its own request value, not of this copy). The session and
			// the route's permission are checked first, so a request without them
			// is answered before anything is read or spooled; the CSRF field is in
			// the body and is checked after.
			pre, err := h.Auth.Access.SessionActor(r.Context(), c.Value)
			switch {
			case err != nil:
				return nil, err
			case pre == nil:
				return nil, errSignIn
			case !pre.Can(perm):
				return nil, core.ErrScopeMissing
			}
			r.Body = http.MaxBytesReader(nil, r.Body, uploadLimit)
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				if _, big := errors.AsType[*http.MaxBytesError](err); big {
					return nil, marketplace.ErrFileTooLarge
				}
				return nil, core.Invalid("form")
			}
		}
		r.Body = http.MaxBytesReader(nil, r.Body, formLimit)
		if err := r.ParseForm(); err != nil {
			return nil, core.Invalid("form")
		}
		if tok := r.PostForm.Get("csrf"); tok != "" {
			r.Header.Set("X-Service-CSRF", tok)
		}
	}
	a, err := h.Auth.Admin(r, "")
	if err != nil {
		var ce *core.Error
		if errors.As(err, &ce) && ce.Detail == "session_invalid" {
			return nil, errSignIn
		}
		return nil, err
	}
	if !a.IsPanel() {
		return nil, core.ErrScopeMissing
	}
	return a, nil
}

// guard authenticates and checks the route's permission before the handler runs.
func (h *Handler) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w)
		if err := web.CheckQuery(r); err != nil {
			h.fail(w, r, nil, err)
			return
		}
		if rt.perm == "" {
			if err := rt.h(w, r, nil); err != nil {
				h.fail(w, r, nil, err)
			}
			return
		}
		a, err := h.actor(r, rt.perm)
		defer func() {
			if r.MultipartForm != nil {
				_ = r.MultipartForm.RemoveAll()
			}
		}()
		if err == nil && !a.Can(rt.perm) {
			err = core.ErrScopeMissing
		}
		if err == nil && rt.path != "/panel/sign-out" {
			// A frozen or closed brand keeps only signing out (and the data export
			// of the management API): 403 forbidden / brand_inactive.
			err = h.Auth.Access.AdminAllowed(r.Context(), false)
		}
		if err != nil {
			h.fail(w, r, a, err)
			return
		}
		if err := rt.h(w, r, a); err != nil {
			h.fail(w, r, a, err)
		}
	})
}

// wantsJSON reports whether the caller is the panel script (it asks for JSON).
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// fail answers an error: a page request without a session goes to sign-in; the
// script gets the JSON error of the admin API; a browser gets an error page with
// the same status and code.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, a *core.Actor, err error) {
	if errors.Is(err, errSignIn) {
		if wantsJSON(r) {
			web.Error(w, r, core.E(http.StatusUnauthorized, "refused", "session_invalid"))
			return
		}
		next := "/panel/"
		if r.Method == http.MethodGet {
			next = r.URL.RequestURI()
		}
		http.Redirect(w, r, "/panel/sign-in?next="+url.QueryEscape(next), http.StatusSeeOther)
		return
	}
	if wantsJSON(r) {
		web.Error(w, r, err)
		return
	}
	var ce *core.Error
	if !errors.As(err, &ce) {
		if errors.Is(err, store.ErrNotFound) {
			ce = core.ErrNotFound
		} else {
			web.Error(w, r, err) // logs it and answers 500
			return
		}
	}
	v := h.view(r, a, "error")
	v.Status, v.Error = ce.Status, refusal(r, ce)
	h.render(w, r, ce.Status, v)
}

// refusal is what a page shows of an error, "code / detail"; a refusal the client
// caused (ce.Refusal) is marked so for the request log.
func refusal(r *http.Request, ce *core.Error) string {
	if ce.Refusal {
		web.MarkRefused(r.Context())
	}
	if ce.Detail != "" {
		return ce.Code + " / " + ce.Detail
	}
	return ce.Code
}

// setPageHeaders sets the panel's own content policy: scripts, styles and images
// only from this address (media previews come from the admin media endpoint).
func setPageHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
}

// back redirects a form post to the page it came from (a local path only);
// extra are more name, value pairs for the address.
func back(w http.ResponseWriter, r *http.Request, fallback, notice string, extra ...string) error {
	to := r.PostForm.Get("back")
	if !strings.HasPrefix(to, "/panel/") || strings.HasPrefix(to, "//") {
		to = fallback
	}
	if notice != "" {
		extra = append([]string{"notice", notice}, extra...)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		sep := "?"
		if strings.Contains(to, "?") {
			sep = "&"
		}
		to += sep + extra[i] + "=" + url.QueryEscape(extra[i+1])
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

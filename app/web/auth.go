package web

import (
	"errors"
	"net/http"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/store"
)

// Auth authenticates requests the same way on every surface.
type Auth struct {
	Access *access.Service
	Limits *Limits
}

func (a *Auth) stamp(r *http.Request, actor *core.Actor) *core.Actor {
	actor.RequestID = RequestID(r.Context())
	actor.IP = ClientIP(r.Context())
	actor.UserAgent = r.UserAgent()
	SetActor(r.Context(), actor)
	return actor
}

// keyLimit applies the per-key (or per-password) limit of 600 requests per 5 minutes.
func (a *Auth) keyLimit(id string) error {
	if !a.Limits.Keys.Allow(id) {
		return core.ErrRateLimited
	}
	return nil
}

// bearer returns the token of an "Authorization: <scheme> <token>" header.
func bearer(r *http.Request, scheme string) (string, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	s, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(s, scheme) {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// HasBearer reports whether the request carries an Authorization: Bearer header.
func HasBearer(r *http.Request) bool {
	_, ok := bearer(r, "Bearer")
	return ok
}

// ServerKey authenticates "Authorization: Bearer <server key>" needing scope. status
// is 401 on the ingest surface and 403 on the storefront (the specs differ); a key
// without the scope (another kind of key included) gets 403 refused / scope_missing.
func (a *Auth) ServerKey(r *http.Request, status int, scope string) (*core.Actor, error) {
	tok, _ := bearer(r, "Bearer")
	k, detail, err := a.Access.LookupKey(r.Context(), tok)
	if err != nil {
		return nil, err
	}
	// A key that exists but is not a server key (a site or admin API key) lacks the
	// scope: 403 refused / scope_missing below, not unknown_key (spec 1 and 2).
	if detail != "" {
		return nil, core.E(status, "refused", detail).AsRefusal()
	}
	// Order transfers share the spec's 600 requests per 5 minutes per key; a store
	// server rendering pages (ssr, viewer) has its own, larger budget.
	limiter := a.Limits.StoreServer
	if scope == core.PermOrders {
		limiter = a.Limits.Keys
	}
	if !limiter.Allow(k.PublicID) {
		return nil, core.ErrRateLimited
	}
	actor := access.KeyActor(k, core.ViaServerKey)
	if !actor.Perms[scope] {
		return nil, core.Refused("scope_missing")
	}
	return a.stamp(r, actor), nil
}

// SiteKey authenticates a browser call: the site key from the query parameter key
// (reads) or the X-Service-Site-Key header (writes), and the page's domain.
func (a *Auth) SiteKey(r *http.Request, checkOrigin bool) (*core.Actor, access.SiteAccess, error) {
	secret := r.Header.Get("X-Service-Site-Key")
	if r.Method == http.MethodGet || r.Method == http.MethodHead || secret == "" {
		if q := r.URL.Query().Get("key"); q != "" {
			secret = q
		}
	}
	acc, err := a.Access.VerifySiteKey(r.Context(), secret, r.Header.Get("Origin"), r.Header.Get("Referer"), checkOrigin)
	if err != nil {
		return nil, acc, err
	}
	if err := a.Access.StorefrontAllowed(r.Context(), safeMethod(r.Method)); err != nil {
		return nil, access.SiteAccess{}, err
	}
	// A site key is shared by every visitor of the store, so it has no per-key
	// limit: browser calls are limited per IP address (refusals, and the writing
	// endpoints' own limits).
	return a.stamp(r, access.KeyActor(acc.Key, core.ViaSiteKey)), acc, nil
}

// Signature authenticates a signed request over its raw body with a password of the
// given purpose (X-Service-Secret, X-Service-Timestamp, X-Service-Signature).
func (a *Auth) Signature(r *http.Request, body []byte, purpose string) (*core.Actor, error) {
	p, err := a.Access.VerifySignature(r.Context(), r.Header.Get("X-Service-Secret"), r.Header.Get("X-Service-Timestamp"),
		r.Header.Get("X-Service-Signature"), body, purpose)
	if err != nil {
		return nil, err
	}
	if err := a.keyLimit(p.ID); err != nil {
		return nil, err
	}
	return a.stamp(r, &core.Actor{Via: core.ViaSignature, ID: p.ID, Name: p.ID, Role: "key",
		Perms: map[string]bool{core.PermOrders: p.Purpose == core.PurposeSigning}, ChannelID: p.ChannelID}), nil
}

// Ingest authenticates an order-transfer request: a Bearer server key with the
// orders scope when the header is present, else a signature with a signing
// password. It reads the body first (the signature covers its exact bytes). A
// frozen or closed brand takes no transfers: an authenticated caller gets 403
// refused / tenant_inactive (see docs/decisions.md).
func (a *Auth) Ingest(r *http.Request, limit int64) (*core.Actor, []byte, error) {
	if HasBearer(r) {
		actor, err := a.ServerKey(r, http.StatusUnauthorized, core.PermOrders)
		if err != nil {
			return nil, nil, err
		}
		if err := a.Access.StorefrontAllowed(r.Context(), false); err != nil {
			return actor, nil, err
		}
		body, err := ReadBody(r, limit)
		return actor, body, err
	}
	body, err := ReadBody(r, limit)
	if err != nil {
		return nil, nil, err
	}
	actor, err := a.Signature(r, body, core.PurposeSigning)
	if err != nil {
		return nil, nil, err
	}
	if err := a.Access.StorefrontAllowed(r.Context(), false); err != nil {
		return actor, nil, err
	}
	return actor, body, nil
}

// Admin authenticates a management call: the panel session cookie (with
// X-Service-CSRF on unsafe methods) or "Authorization: Api-Key <key>". The actor must
// hold perm. Server and site keys cannot call the admin API (403 scope_missing).
func (a *Auth) Admin(r *http.Request, perm string) (*core.Actor, error) {
	actor, err := a.admin(r)
	if err != nil {
		return nil, err
	}
	if perm != "" && !actor.Can(perm) {
		return nil, core.ErrScopeMissing
	}
	return actor, nil
}

func (a *Auth) admin(r *http.Request) (*core.Actor, error) {
	if tok, ok := bearer(r, "Api-Key"); ok {
		k, detail, err := a.Access.LookupKey(r.Context(), tok)
		if err != nil {
			return nil, err
		}
		if detail != "" {
			return nil, core.E(http.StatusUnauthorized, "refused", detail).AsRefusal()
		}
		if k.Kind != access.KindAPI {
			return nil, core.ErrScopeMissing
		}
		if err := a.keyLimit(k.PublicID); err != nil {
			return nil, err
		}
		return a.stamp(r, access.KeyActor(k, core.ViaAPIKey)), nil
	}
	if c, err := r.Cookie(access.SessionCookie); err == nil && c.Value != "" {
		actor, err := a.Access.SessionActor(r.Context(), c.Value)
		if err != nil {
			return nil, err
		}
		if actor == nil {
			return nil, core.E(http.StatusUnauthorized, "refused", "session_invalid").AsRefusal()
		}
		if !safeMethod(r.Method) {
			got := r.Header.Get("X-Service-CSRF")
			if got == "" || !core.Equal(got, actor.CSRF) {
				return nil, core.Forbidden("csrf_missing")
			}
		}
		if err := a.keyLimit("session:" + actor.ID); err != nil {
			return nil, err
		}
		return a.stamp(r, actor), nil
	}
	return nil, core.E(http.StatusUnauthorized, "refused", "credentials_missing")
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// Storefront authenticates a storefront call from either caller of spec 2: a store
// server (Authorization: Bearer <server key> plus channel=<code>, needing the ssr
// scope; key problems are 403 on this surface) or a browser (site key with the
// verified-domain check). It returns the actor and the channel the call is for.
func (a *Auth) Storefront(r *http.Request) (*core.Actor, store.Channel, error) {
	if !HasBearer(r) {
		actor, acc, err := a.SiteKey(r, true)
		return actor, acc.Channel, err
	}
	actor, err := a.ServerKey(r, http.StatusForbidden, core.PermSSR)
	if err != nil {
		return nil, store.Channel{}, err
	}
	if err := a.Access.StorefrontAllowed(r.Context(), safeMethod(r.Method)); err != nil {
		return nil, store.Channel{}, err
	}
	code := r.URL.Query().Get("channel")
	ch, err := a.Access.DB.Read().ChannelByCode(r.Context(), code)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !ch.Active) {
		return nil, store.Channel{}, core.Refused("unknown_channel")
	}
	if err != nil {
		return nil, store.Channel{}, err
	}
	// A server key serves the storefront calls of its own channel only (see
	// docs/decisions.md); another channel's code is as unknown to it as a wrong one.
	if actor.ChannelID != 0 && actor.ChannelID != ch.ID {
		return nil, store.Channel{}, core.Refused("unknown_channel")
	}
	actor.ChannelID = ch.ID
	return actor, ch, nil
}

// ServerOnly authenticates an endpoint that only a store server may call (the
// viewer endpoints): a browser's site key gets 403 refused / server_only.
func (a *Auth) ServerOnly(r *http.Request) (*core.Actor, store.Channel, error) {
	if !HasBearer(r) && (r.URL.Query().Get("key") != "" || r.Header.Get("X-Service-Site-Key") != "") {
		return nil, store.Channel{}, core.Refused("server_only")
	}
	if !HasBearer(r) {
		return nil, store.Channel{}, core.Refused("unknown_key").AsRefusal()
	}
	return a.Storefront(r)
}

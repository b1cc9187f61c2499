package storefront

import (
	"net/http"
	"net/url"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/app/web"
)

// readRequest starts a read request (list, SSR) with its parsed query v: the read
// state of the product and scope asked for, the caller (readCaller) and the query
// check, in this order.
func (h *Handler) readRequest(r *http.Request, v url.Values) (readmodel.ReadState, readmodel.CachedCaller, error) {
	rs, err := h.Read.ReadState(r.Context(), v.Get("scope"), v.Get("product"))
	if err != nil {
		return rs, readmodel.CachedCaller{}, err
	}
	_, caller, err := h.readCaller(r, v, rs.Gen)
	if err != nil {
		return rs, caller, err
	}
	return rs, caller, web.CheckQuery(r)
}

// readCaller authenticates a read request (list, SSR) as web.Auth.Storefront does,
// keeping verified callers in the core's caller cache under the read generation
// gen (read before the verification): a revoked key, a channel switched off or a
// domain removed changes the generation, so only unchanged verifications are
// reused. A cached server-key caller still takes its request from the store-server limit. Refused
// callers are never cached.
func (h *Handler) readCaller(r *http.Request, v url.Values, gen int64) (*core.Actor, readmodel.CachedCaller, error) {
	var key string
	if web.HasBearer(r) {
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		key = "srv\x00" + string(core.HashToken(strings.TrimSpace(tok))) + "\x00" + v.Get("channel")
	} else {
		secret := v.Get("key")
		if secret == "" {
			secret = r.Header.Get("X-Service-Site-Key")
		}
		key = "site\x00" + string(core.HashToken(secret)) + "\x00" +
			core.RequestHost(r.Header.Get("Origin"), r.Header.Get("Referer"))
	}
	callers := h.Read.Callers()
	if c, ok := callers.Get(key, gen); ok {
		a, err := h.admitCached(r, c)
		return a, c, err
	}
	a, ch, err := h.Auth.Storefront(r)
	if err != nil {
		return nil, readmodel.CachedCaller{}, err
	}
	c := readmodel.CachedCaller{Actor: *a, Channel: ch}
	c.Actor.RequestID, c.Actor.IP, c.Actor.UserAgent = "", "", ""
	callers.Put(key, gen, c)
	return a, c, nil
}

// admitCached lets a caller verified before (a remembered key) in as the long way
// does: a server key's request limit, the key's last use, and the request's actor
// with this request's id, address and user agent. Both reuse paths (the verified
// caller, and the remembered answer of read_reuse.go) go through it.
func (h *Handler) admitCached(r *http.Request, c readmodel.CachedCaller) (*core.Actor, error) {
	if c.Actor.Via == core.ViaServerKey && !h.Limits.StoreServer.Allow(c.Actor.ID) {
		return nil, core.ErrRateLimited
	}
	h.Auth.Access.KeyUsed(c.Actor.ID)
	a := c.Actor
	a.RequestID, a.IP, a.UserAgent = web.RequestID(r.Context()), web.ClientIP(r.Context()), r.UserAgent()
	web.SetActor(r.Context(), &a)
	return &a, nil
}

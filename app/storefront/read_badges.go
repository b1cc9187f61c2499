package storefront

import (
	"net/http"
	"net/url"
	"strings"

	"reviewd/app/cdn"
	"reviewd/app/core/readmodel"
	"reviewd/app/web"
	"reviewd/store"
)

// handleBadges serves GET /v1/reviews/badges: the star badges (average and count)
// of up to 50 products of a listing page in one request (site key from a verified
// domain, or server key plus channel). Cache-Control as the list's; ETag, and 304
// with If-None-Match (readmodel.CachedBadges).
func (h *Handler) handleBadges(w http.ResponseWriter, r *http.Request) error {
	return h.serveBadges(w, r, false)
}

// handleSSRBadges serves GET /v1/ssr/badges: the badges with their ready HTML, for
// themes that render on the server. Cache-Control as GET /v1/ssr's (private with a
// server key, public with a site key). No structured data.
func (h *Handler) handleSSRBadges(w http.ResponseWriter, r *http.Request) error {
	return h.serveBadges(w, r, true)
}

// serveBadges answers a badge request (serveRemembered: a listing page sends the
// same request for every visitor).
func (h *Handler) serveBadges(w http.ResponseWriter, r *http.Request, ssr bool) error {
	kind := memoBadges
	if ssr {
		kind = memoSSRBadges
	}
	return h.serveRemembered(w, r, h.badgeMemo, kind, func(caller readmodel.CachedCaller, v url.Values, gen int64) (readmodel.Answer, readHeaders, error) {
		out, err := h.Read.CachedBadges(r.Context(), caller.Channel, readmodel.BadgesInput{Products: v.Get("products"),
			Scope: v.Get("scope"), Lang: v.Get("lang"), Theme: v.Get("theme")}, gen, ssr, heldBy(r))
		hs := readHeaders{cacheControl: h.readCache(r, ssr)}
		if h.CDN {
			hs.tags = badgeTags(v, caller.Channel.Code)
		}
		return out, hs, err
	})
}

// serveRemembered answers a request whose answer depends only on the request and
// the data behind the read watch's stamp (badges, carousel, store page): the answer
// is remembered under the request (query and the headers of read_reuse.go) with
// the stamp (store.WatchStamp, read first), and the same request is answered from
// memory while the stamp is unchanged: no parsing, key check, product stamps or
// ETag again (per-key limits still apply). build makes the answer and its headers.
func (h *Handler) serveRemembered(w http.ResponseWriter, r *http.Request, memo *badgeMemo, kind byte,
	build func(caller readmodel.CachedCaller, v url.Values, gen int64) (readmodel.Answer, readHeaders, error)) error {
	stamp, stampOK, err := h.Read.DB.WatchStamp(r.Context())
	if err != nil {
		return err
	}
	k := newMemoKey(kind, r)
	if e := memo.get(k); e != nil && stampOK && e.stamp == stamp {
		if _, err := h.admitCached(r, e.caller); err != nil {
			return err
		}
		return writeAnswer(w, e.hs, notModifiedFor(r, e.out))
	}
	v := r.URL.Query()
	st, err := h.Read.DB.ReadStamp(r.Context(), store.ScopeVariant, "")
	if err != nil {
		return err
	}
	_, caller, err := h.readCaller(r, v, st.Gen)
	if err != nil {
		return err
	}
	if err := web.CheckQuery(r); err != nil {
		return err
	}
	out, hs, err := build(caller, v, st.Gen)
	if err != nil {
		return err
	}
	if stampOK && !out.NotModified {
		memo.put(k, &badgeEntry{stamp: stamp, caller: caller, out: out, hs: hs})
	}
	return writeAnswer(w, hs, notModifiedFor(r, out))
}

// notModifiedFor is out, or its 304 when the request's If-None-Match matches it.
func notModifiedFor(r *http.Request, out readmodel.Answer) readmodel.Answer {
	if inm := r.Header.Get("If-None-Match"); inm != "" && !out.NotModified && web.ETagMatches(inm, out.ETag) {
		return readmodel.Answer{ETag: out.ETag, ETagHeader: out.ETagHeader, NotModified: true}
	}
	return out
}

// badgeEntry is a remembered badge answer; never changed once stored.
type badgeEntry struct {
	stamp  uint64
	caller readmodel.CachedCaller
	out    readmodel.Answer
	hs     readHeaders
}

// badgeTags names a badge answer for a CDN: every answer, each product asked for
// (so a purge of any of them drops it) and the channel.
func badgeTags(v url.Values, channel string) cdn.Tags {
	tags := []string{cdn.AllTag, cdn.ChannelTag(channel)}
	for _, p := range strings.Split(v.Get("products"), ",") {
		if p != "" {
			tags = append(tags, cdn.ProductTag(v.Get("scope"), p))
		}
	}
	return cdn.NewTags(tags...)
}

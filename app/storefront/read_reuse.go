package storefront

import (
	"crypto/sha256"
	"net/http"
	"sync"

	"reviewd/app/core/readmodel"
	"reviewd/app/web"
)

// A store page and its visitors send the same read requests over and over: the
// same query, key and page address. answerMemo remembers, per request, what its
// last answer was worked out from (the verified caller, the answer's reference),
// so the next identical request is answered after checking only that nothing it
// depends on changed (readmodel.Service.Reuse: the read generation, which every
// change of keys, channels, domains and settings moves, and the product's
// revisions), without parsing the query, verifying the key or building the ETag
// again. Per-key request limits still apply to every request.

// maxMemoEntries bounds the remembered requests (the memo is emptied when full).
const maxMemoEntries = 10000

// maxMemoRequest bounds the size of a remembered request (query and the headers
// it is keyed on); larger ones are always answered the long way.
const maxMemoRequest = 8192 // a badge request of 50 long product codes fits

// memoHeaders are the request headers an answer or its caller depends on, besides
// the query: the key (site or server), the page address of a browser call.
var memoHeaders = [...]string{"Authorization", "X-Service-Site-Key", "Origin", "Referer"}

// The kinds of remembered answers (the first byte of a memo key).
const (
	memoList byte = 1 + iota
	memoSSR
	memoBadges
	memoSSRBadges
	memoCarousel
	memoSSRCarousel
	memoAll
	memoSSRAll
)

// memoKey names a request: a hash of its kind, raw query and memoHeaders (all their
// values), so no key secret is kept in memory. ok is false for a request too large
// to remember.
type memoKey struct {
	sum [sha256.Size]byte
	ok  bool
}

func newMemoKey(kind byte, r *http.Request) memoKey {
	n := 1 + 4 + len(r.URL.RawQuery)
	for _, name := range memoHeaders {
		n++
		for _, v := range r.Header[name] {
			n += 4 + len(v)
		}
	}
	if n > maxMemoRequest {
		return memoKey{}
	}
	var buf [maxMemoRequest]byte
	b := append(buf[:0], kind)
	b = appendPart(b, r.URL.RawQuery)
	for _, name := range memoHeaders {
		vs := r.Header[name]
		b = append(b, byte(len(vs)))
		for _, v := range vs {
			b = appendPart(b, v)
		}
	}
	return memoKey{sum: sha256.Sum256(b), ok: true}
}

// appendPart appends s with its length in front.
func appendPart(b []byte, s string) []byte {
	n := len(s)
	b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	return append(b, s...)
}

// memoEntry is what a remembered request was answered from. It is never changed
// once stored.
type memoEntry struct {
	caller readmodel.CachedCaller
	ref    *readmodel.AnswerRef
	hs     readHeaders
}

// memo remembers read answers by request (memoKey); it is emptied when it holds
// maxMemoEntries. Its entries are never changed once stored.
type memo[E any] struct {
	mu sync.RWMutex
	m  map[[sha256.Size]byte]*E
}

// answerMemo remembers list and SSR answers; badgeMemo badge answers.
type (
	answerMemo = memo[memoEntry]
	badgeMemo  = memo[badgeEntry]
)

func (m *memo[E]) get(k memoKey) *E {
	if !k.ok {
		return nil
	}
	m.mu.RLock()
	e := m.m[k.sum]
	m.mu.RUnlock()
	return e
}

func (m *memo[E]) put(k memoKey, e *E) {
	if !k.ok {
		return
	}
	m.mu.Lock()
	if m.m == nil || len(m.m) >= maxMemoEntries {
		m.m = map[[sha256.Size]byte]*E{}
	}
	m.m[k.sum] = e
	m.mu.Unlock()
}

// reuseAnswer answers a read request (list, SSR) from the memo when the same
// request was answered before and nothing its answer depends on changed since.
// done is false when the request must be answered the long way; k is its memo
// key, to remember the answer under.
func (h *Handler) reuseAnswer(w http.ResponseWriter, r *http.Request, kind byte) (k memoKey, done bool, err error) {
	k = newMemoKey(kind, r)
	e := h.memo.get(k)
	if e == nil {
		return k, false, nil
	}
	inm := r.Header.Get("If-None-Match")
	out, ok, err := h.Read.Reuse(r.Context(), e.ref, inm != "" && web.ETagMatches(inm, e.ref.ETag()))
	if err != nil || !ok {
		return k, err != nil, err
	}
	if _, err := h.admitCached(r, e.caller); err != nil {
		return k, true, err
	}
	return k, true, writeAnswer(w, e.hs, out)
}

// remember keeps the answer of a read request for the next identical one.
func (h *Handler) remember(k memoKey, caller readmodel.CachedCaller, out readmodel.Answer, hs readHeaders) {
	if out.Ref != nil {
		h.memo.put(k, &memoEntry{caller: caller, ref: out.Ref, hs: hs})
	}
}

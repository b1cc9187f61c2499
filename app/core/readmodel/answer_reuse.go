package readmodel

import (
	"context"
	"slices"
	"time"

	"reviewd/store"
)

// Serving an answer again without working it out again. An answer's key and ETag
// are a function of the request, the channel's configuration (read under the read
// generation, until the next rule version comes into force) and the revisions of
// the product's figures (see CachedReviewList). A surface that remembers, for a
// request it answered, the AnswerRef it got can serve the same request again after
// checking only those inputs: the read generation and the product's revisions (in
// memory, store.ReadStamp) and the clock against the rule's end. The request's
// parameters are not parsed, and the key and ETag not built, again.

// AnswerRef names an answer built for a request and what it was built against.
type AnswerRef struct {
	cache *answerCache
	key   string
	etag  string
	etagH []string
	// What the answer was built against: the read state as read for the request
	// (the generation and every market's revision of the product) and the end of
	// the rule in force.
	gen            int64
	revisions      []store.ProductRevision
	scope, product string
	until          time.Time
}

func newAnswerRef(cache *answerCache, key, etag string, b *listBasis) *AnswerRef {
	return &AnswerRef{cache: cache, key: key, etag: etag, etagH: []string{etag}, gen: b.rs.Gen,
		revisions: b.rs.Revisions, scope: b.rs.scope, product: b.rs.product, until: b.until}
}

// ETag is the ETag of the answer.
func (r *AnswerRef) ETag() string { return r.etag }

// notModified is the answer to a caller holding it.
func (r *AnswerRef) notModified() Answer {
	return Answer{ETag: r.etag, NotModified: true, ETagHeader: r.etagH, Ref: r}
}

// with is the answer with its cached body v.
func (r *AnswerRef) with(v cachedAnswer) Answer {
	a := v.answer()
	a.Ref = r
	return a
}

// Reuse answers again the request that got ref, when nothing the answer was built
// against changed: NotModified when held (the caller sent ref's ETag), else the
// cached body. ok is false when the answer may differ now (a write, a rule version
// that came into force) or its body left the cache: the request must be answered
// the long way (CachedReviewList, CachedSSR), which reads the new state.
func (c *Service) Reuse(ctx context.Context, ref *AnswerRef, held bool) (a Answer, ok bool, err error) {
	st, err := c.DB.ReadStamp(ctx, ref.scope, ref.product)
	if err != nil {
		return Answer{}, false, err
	}
	if st.Gen != ref.gen || !slices.Equal(st.Revisions, ref.revisions) ||
		(!ref.until.IsZero() && !c.Now().Before(ref.until)) {
		return Answer{}, false, nil
	}
	if held {
		return ref.notModified(), true, nil
	}
	v, ok := ref.cache.get(ref.key)
	if !ok {
		return Answer{}, false, nil
	}
	return ref.with(v), true, nil
}

package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"reviewd/store"
)

// Answer caches of the list and SSR endpoints. An answer is a function of its
// basis (listBasis): the query, the channel's presentation fields, the rule in
// force, the settings, the method-statement link and the product's figures, whose
// revision moves on with every change of one of its listed reviews (state, text,
// media, helpful votes; see product_stats.go). The basis is read on every request
// (a few indexed reads); the page of reviews, its media, the HTML and the JSON are
// built only when no answer of the same basis is cached. Anything that changes how
// a listed review looks must therefore go through AfterReviewStateChange (or
// RefreshProductStats), which every writer of reviews already does.

// answerCacheBytes bounds the memory of each cache.
const answerCacheBytes = 64 << 20

type cachedAnswer struct {
	body []byte
	etag string
}

// answerCache is a map bounded by the size of its answers; the oldest entries go
// first.
type answerCache struct {
	mu    sync.RWMutex
	m     map[string]cachedAnswer
	order []string
	bytes int
}

func newAnswerCache() *answerCache { return &answerCache{m: map[string]cachedAnswer{}} }

func (a *answerCache) get(key string) (cachedAnswer, bool) {
	a.mu.RLock()
	v, ok := a.m[key]
	a.mu.RUnlock()
	return v, ok
}

func (a *answerCache) put(key string, v cachedAnswer) {
	size := len(key) + len(v.body)
	if size > answerCacheBytes/8 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.m[key]; ok {
		return
	}
	for a.bytes+size > answerCacheBytes && len(a.order) > 0 {
		old := a.order[0]
		a.order = a.order[1:]
		a.bytes -= len(old) + len(a.m[old].body)
		delete(a.m, old)
	}
	a.m[key] = v
	a.order = append(a.order, key)
	a.bytes += size
}

// readCaches are the caches of one Core.
type readCaches struct {
	list, ssr *answerCache
}

var coreCaches sync.Map // *Core -> *readCaches

func (c *Core) caches() *readCaches {
	v, ok := coreCaches.Load(c)
	if !ok {
		v, _ = coreCaches.LoadOrStore(c, &readCaches{list: newAnswerCache(), ssr: newAnswerCache()})
	}
	return v.(*readCaches)
}

// key names the content of the answers built from b.
func (b *listBasis) key() string {
	var k strings.Builder
	k.Grow(256)
	lq, ch := b.lq, b.ch
	for _, s := range []string{strconv.FormatInt(ch.ID, 10), ch.Market, ch.Language, ch.Style, ch.Theme, ch.PrivacyURL,
		lq.product, lq.scope, lq.sort, strconv.Itoa(lq.page), strconv.Itoa(lq.pageSize), strconv.Itoa(lq.rating),
		strconv.FormatBool(lq.verified), strconv.FormatBool(lq.media), lq.q, lq.topic, lq.lang, b.link,
		strconv.FormatBool(b.st.SyndicationEnabled), strconv.FormatBool(b.st.QuestionsEnabled), b.st.TimeZone,
		revisionKey(b.revisions)} {
		k.WriteString(s)
		k.WriteByte(0)
	}
	fmt.Fprintf(&k, "%v", b.rule)
	return k.String()
}

// CachedReviewList is the JSON body of the list answer (ReviewList), from the
// cache when an answer of the same basis was built before.
func (c *Core) CachedReviewList(ctx context.Context, ch store.Channel, in ListInput) ([]byte, error) {
	b, err := c.listBasis(ctx, ch, in, false)
	if err != nil {
		return nil, err
	}
	key := b.key()
	cache := c.caches().list
	if v, ok := cache.get(key); ok {
		return v.body, nil
	}
	l, err := c.buildList(ctx, b)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	body = append(body, '\n')
	cache.put(key, cachedAnswer{body: body})
	return body, nil
}

// CachedSSR is RenderSSR, from the cache when an answer of the same basis, name,
// layout and theme was built before.
func (c *Core) CachedSSR(ctx context.Context, ch store.Channel, in SSRInput) (SSRBody, error) {
	b, style, theme, err := c.ssrBasis(ctx, ch, in)
	if err != nil {
		return SSRBody{}, err
	}
	key := b.key() + "\x00" + strings.TrimSpace(in.Name) + "\x00" + style + "\x00" + theme
	cache := c.caches().ssr
	if v, ok := cache.get(key); ok {
		return SSRBody{Body: v.body, ETag: v.etag}, nil
	}
	out, err := c.renderSSR(ctx, b, in.Name, style, theme)
	if err != nil {
		return SSRBody{}, err
	}
	cache.put(key, cachedAnswer{body: out.Body, etag: out.ETag})
	return out, nil
}

package readmodel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/assets"
	"reviewd/store"
)

// Caches of the storefront read side (GET /v1/reviews/list, GET /v1/ssr). A list
// request reads, in one indexed statement, the read generation and the revisions
// of the product's figures (ReadState):
//
//   - the read generation moves on with every change of keys, channels, domains,
//     settings, market rules, method statements and rating-topic lists (triggers
//     in schema.sql); verified callers (CallerCache) and each channel's
//     configuration (rule in force, settings, method-statement link) are cached
//     under it. A rule version scheduled for later ends its cache entry when it
//     comes into force.
//   - a product's revision moves on with every change of one of its listed
//     reviews: state, text, media, helpful votes (product_stats.go). Anything
//     that changes how a listed review looks must go through
//     AfterReviewStateChange (or RefreshProductStats); every writer of reviews
//     does.
//
// Answers (the exact JSON bodies, and the SSR ETags) are cached under the query,
// the channel, the generation, the configuration and the revisions, so a request
// whose answer is cached costs that one read.

// answerCacheBytes bounds the memory of each answer cache (list, SSR).
const answerCacheBytes = 32 << 20

// maxCacheEntries bounds the caller and configuration caches (they are emptied
// when full).
const maxCacheEntries = 10000

// ReadState is the read generation and the revisions of one product's figures in
// every market.
type ReadState struct {
	Gen       int64
	Revisions []store.ProductRevision
	scope     string
	product   string
}

// ReadState reads the read generation and a product's figure revisions (scope ""
// is variant), from memory when nothing changed since they were read (see
// store.ReadStamp): the conditional path of an answer reads no row.
func (c *Service) ReadState(ctx context.Context, scope, product string) (ReadState, error) {
	if scope == "" {
		scope = store.ScopeVariant
	}
	st, err := c.DB.ReadStamp(ctx, scope, product)
	return ReadState{Gen: st.Gen, Revisions: st.Revisions, scope: scope, product: product}, err
}

type cachedAnswer struct {
	body []byte
	etag string
	// etagH and lengthH are the ETag and Content-Length header values, built once.
	etagH, lengthH []string
}

func newCachedAnswer(body []byte, etag string) cachedAnswer {
	return cachedAnswer{body: body, etag: etag, etagH: []string{etag}, lengthH: []string{strconv.Itoa(len(body))}}
}

// answer is the Answer serving v.
func (v cachedAnswer) answer() Answer {
	return Answer{Body: v.body, ETag: v.etag, ETagHeader: v.etagH, LengthHeader: v.lengthH}
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

// genCache is a small map whose entries carry the read generation they were read
// under; an entry of another generation is a miss.
type genCache[V any] struct {
	mu sync.RWMutex
	m  map[string]genEntry[V]
}

type genEntry[V any] struct {
	gen int64
	v   V
}

func (g *genCache[V]) get(key string, gen int64) (V, bool) {
	g.mu.RLock()
	e, ok := g.m[key]
	g.mu.RUnlock()
	if !ok || e.gen != gen {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (g *genCache[V]) put(key string, gen int64, v V) {
	g.mu.Lock()
	if g.m == nil || len(g.m) >= maxCacheEntries {
		g.m = map[string]genEntry[V]{}
	}
	g.m[key] = genEntry[V]{gen: gen, v: v}
	g.mu.Unlock()
}

// CallerCache keeps verified storefront callers (site key and page domain, or
// server key and channel) under the read generation: a revoked key, a channel
// switched off or a domain removed changes the generation.
type CallerCache struct{ c genCache[CachedCaller] }

// CachedCaller is a verified caller: its actor (without the request's own fields)
// and channel.
type CachedCaller struct {
	Actor   core.Actor
	Channel store.Channel
}

// Get returns the caller cached under key in generation gen.
func (cc *CallerCache) Get(key string, gen int64) (CachedCaller, bool) { return cc.c.get(key, gen) }

// Put caches a verified caller under key, read in generation gen (read before
// the verification, so a change meanwhile makes the entry stale at once).
func (cc *CallerCache) Put(key string, gen int64, v CachedCaller) { cc.c.put(key, gen, v) }

// channelConfig is what a channel's answers are read against besides the product:
// the rule in force (until the next scheduled version), the settings, the
// method-statement link and whether SSR may answer.
type channelConfig struct {
	rule         brand.MarketRule
	until        time.Time // zero: no later version scheduled
	st           brand.Settings
	link         string
	siteKeyInUse bool
	ownStatement bool
	key          string // part of the answer keys
}

// flight makes concurrent builds of the same answer wait for the first one (after
// a change of a busy product every request misses at once).
type flight struct {
	mu    sync.Mutex
	calls map[string]*flightCall
}

type flightCall struct {
	done chan struct{}
	v    cachedAnswer
	err  error
}

// do runs build once for key among concurrent callers.
func (f *flight) do(key string, build func() (cachedAnswer, error)) (cachedAnswer, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]*flightCall{}
	}
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		<-c.done
		return c.v, c.err
	}
	c := &flightCall{done: make(chan struct{})}
	f.calls[key] = c
	f.mu.Unlock()
	c.v, c.err = build()
	f.mu.Lock()
	delete(f.calls, key)
	f.mu.Unlock()
	close(c.done)
	return c.v, c.err
}

// readCaches are the caches of one Core.
type readCaches struct {
	list, ssr *answerCache
	badges    *answerCache // badges and SSR badges (badges.go)
	flight    flight
	config    genCache[*channelConfig]
	callers   CallerCache
}

func (c *Service) caches() *readCaches { return c.cache }

// Callers is the cache of verified storefront callers.
func (c *Service) Callers() *CallerCache { return &c.caches().callers }

// channelConfig returns the configuration of channel ch for answers in lang, from
// the cache when it was read in generation gen and no rule version came into force
// since.
func (c *Service) channelConfig(ctx context.Context, ch store.Channel, lang string, gen int64) (*channelConfig, error) {
	key := strconv.FormatInt(ch.ID, 10) + "\x00" + lang
	cache := &c.caches().config
	now := c.Now()
	if cfg, ok := cache.get(key, gen); ok && (cfg.until.IsZero() || now.Before(cfg.until)) {
		return cfg, nil
	}
	q := c.DB.Read()
	cfg := &channelConfig{}
	rule, ok, err := c.Brand.RuleFor(ctx, q, ch.Market, ch.ID, now)
	if err != nil {
		return nil, err
	}
	if !ok {
		rule = fallbackRule(ch.Market)
	}
	cfg.rule = rule
	if cfg.until, err = q.NextMarketRuleChange(ctx, ch.Market, ch.ID, now); err != nil {
		return nil, err
	}
	if cfg.st, err = c.Brand.LoadSettings(ctx, q); err != nil {
		return nil, err
	}
	ms, err := q.MethodStatementOf(ctx, ch.ID, lang)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	cfg.ownStatement = err == nil && ms.ExternalURL != ""
	cfg.link = c.methodStatementLink(ch, lang, ms.ExternalURL)
	if cfg.siteKeyInUse, err = q.ChannelHasSiteKey(ctx, ch.ID); err != nil {
		return nil, err
	}
	cfg.key = fmt.Sprintf("%d\x00%v\x00%s\x00%t\x00%t\x00%s\x00%s", gen, cfg.rule, cfg.link, cfg.st.SyndicationEnabled,
		cfg.st.QuestionsEnabled, cfg.st.TimeZone, c.PublicURL)
	cache.put(key, gen, cfg)
	return cfg, nil
}

// key names the content of the answers built from b.
func (b *listBasis) key() string {
	var k strings.Builder
	k.Grow(256)
	lq, ch := b.lq, b.ch
	for _, s := range []string{strconv.FormatInt(ch.ID, 10), ch.Market, ch.Language, ch.Style, ch.Theme, ch.PrivacyURL, ch.TimeZone,
		lq.product, lq.scope, lq.sort, strconv.Itoa(lq.page), strconv.Itoa(lq.pageSize), strconv.Itoa(lq.rating),
		strconv.FormatBool(lq.verified), strconv.FormatBool(lq.media), lq.q, lq.topic, lq.lang,
		revisionKey(b.revisions), b.cfgKey} {
		k.WriteString(s)
		k.WriteByte(0)
	}
	return k.String()
}

// Answer is a cached answer: the exact JSON body and its ETag, or only the ETag
// when the caller already holds that content (NotModified).
type Answer struct {
	Body        []byte
	ETag        string
	NotModified bool
	// ETagHeader and LengthHeader are the values of the ETag and (with a body)
	// Content-Length headers, built once with the answer: shared, never modified.
	ETagHeader, LengthHeader []string
	// Ref names the answer for Reuse (nil after an error).
	Ref *AnswerRef
}

// CachedReviewList is the list answer (ReviewList) for the read state rs
// (ReadState of the product). Its ETag names the basis of the answer (see
// answerETag); when held reports that the caller holds it, nothing else is read
// (NotModified). Otherwise the body comes from the cache when an answer of the
// same basis was built before.
func (c *Service) CachedReviewList(ctx context.Context, ch store.Channel, in ListInput, rs ReadState, held func(etag string) bool) (Answer, error) {
	b, err := c.listBasis(ctx, ch, in, false, rs)
	if err != nil {
		return Answer{}, err
	}
	key := b.key()
	etag := answerETag("list", key)
	caches := c.caches()
	ref := newAnswerRef(caches.list, key, etag, b)
	if held != nil && held(etag) {
		return ref.notModified(), nil
	}
	if v, ok := caches.list.get(key); ok {
		return ref.with(v), nil
	}
	// The build serves every waiting request: one caller going away must not end it.
	bctx := context.WithoutCancel(ctx)
	v, err := caches.flight.do("list\x00"+key, func() (cachedAnswer, error) {
		l, err := c.buildList(bctx, b)
		if err != nil {
			return cachedAnswer{}, err
		}
		body, err := json.Marshal(l)
		if err != nil {
			return cachedAnswer{}, err
		}
		v := newCachedAnswer(append(body, '\n'), etag)
		caches.list.put(key, v)
		return v, nil
	})
	if err != nil {
		return Answer{}, err
	}
	return ref.with(v), nil
}

// CachedSSR is RenderSSR for the read state rs, with the ETag and the cache of
// CachedReviewList (the key adds the name, layout and theme).
func (c *Service) CachedSSR(ctx context.Context, ch store.Channel, in SSRInput, rs ReadState, held func(etag string) bool) (Answer, error) {
	b, style, theme, err := c.ssrBasis(ctx, ch, in, rs)
	if err != nil {
		return Answer{}, err
	}
	key := b.key() + "\x00" + strings.TrimSpace(in.Name) + "\x00" + style + "\x00" + theme
	etag := answerETag("ssr", key)
	caches := c.caches()
	ref := newAnswerRef(caches.ssr, key, etag, b)
	if held != nil && held(etag) {
		return ref.notModified(), nil
	}
	if v, ok := caches.ssr.get(key); ok {
		return ref.with(v), nil
	}
	bctx := context.WithoutCancel(ctx)
	v, err := caches.flight.do("ssr\x00"+key, func() (cachedAnswer, error) {
		out, err := c.renderSSR(bctx, b, in.Name, style, theme)
		if err != nil {
			return cachedAnswer{}, err
		}
		v := newCachedAnswer(out.Body, etag)
		caches.ssr.put(key, v)
		return v, nil
	})
	if err != nil {
		return Answer{}, err
	}
	return ref.with(v), nil
}

// QuestionsETag is the ETag of a GET /v1/questions answer of channel ch with the
// given parameters (as received): it names the read generation (settings,
// channel), the market's question-and-answer revision and the parameters. ""
// when the brand has questions off (the answer is a refusal, not cached).
func (c *Service) QuestionsETag(ctx context.Context, ch store.Channel, gen int64, params ...string) (string, error) {
	cfg, err := c.channelConfig(ctx, ch, core.Language("", ch), gen)
	if err != nil || !cfg.st.QuestionsEnabled {
		return "", err
	}
	rev, err := c.DB.QARevision(ctx, ch.Market)
	if err != nil {
		return "", err
	}
	var k strings.Builder
	for _, s := range append([]string{strconv.FormatInt(gen, 10), strconv.FormatInt(rev, 10),
		strconv.FormatInt(ch.ID, 10), ch.Market, ch.Language}, params...) {
		k.WriteString(s)
		k.WriteByte(0)
	}
	return answerETag("questions", k.String()), nil
}

// answerETag is the ETag of an answer whose content is named by key: known before
// anything is built. The key holds the read generation, the product's revisions,
// the channel's configuration and the request's parameters; buildKey adds what
// the binary brings (label words, templates, style sheet, code).
func answerETag(kind, key string) string {
	h := sha256.New()
	h.Write(buildKey[:])
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(key))
	var sum [sha256.Size]byte
	return `"` + hex.EncodeToString(h.Sum(sum[:0])[:16]) + `"`
}

// buildKey names everything an answer takes from the binary rather than the
// database: the build, the label words, the component templates and style sheet.
// A new binary with other words or markup changes every ETag.
var buildKey = func() [sha256.Size]byte {
	h := sha256.New()
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Write([]byte(bi.String()))
	}
	words, _ := json.Marshal(brand.LabelWords) // maps marshal in key order
	h.Write(words)
	h.Write(StaticCSS)
	_ = fs.WalkDir(assets.Templates(), ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(assets.Templates(), path)
			h.Write([]byte(path))
			h.Write(b)
		}
		return nil
	})
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}()

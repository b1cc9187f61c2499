package web

import (
	"net/netip"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"reviewd/app/core"
)

// Limiter is a set of token buckets, one per key (a key id, a password id, an IP).
// N events per period are allowed, refilled evenly. The clock is injectable so tests
// never sleep.
//
// An IPv6 address is limited by its /64 (one customer's line usually holds a whole
// /64), so walking through addresses of one network earns no new budget. The
// buckets are a bounded LRU (MaxBuckets): a flood of new keys costs one eviction
// each, never a sweep of every bucket under the lock.
type Limiter struct {
	mu    sync.Mutex
	m     *lru.Cache[string, *rate.Limiter]
	limit rate.Limit
	burst int
	Now   func() time.Time
}

// MaxBuckets is how many keys one Limiter remembers; the least recently used is
// dropped first (it comes back as a full bucket).
const MaxBuckets = 100_000

// NewLimiter allows n events per period per key.
func NewLimiter(n int, per time.Duration, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	m, _ := lru.New[string, *rate.Limiter](MaxBuckets) // only fails for a size <= 0
	return &Limiter{m: m, limit: rate.Limit(float64(n) / per.Seconds()), burst: n, Now: now}
}

// LimitKey is the key an address is limited by: an IPv4 address itself, an IPv6
// address's /64. A key of the form "<scope>:<address>" keeps its scope; any other
// key is returned as it is.
func LimitKey(key string) string {
	if strings.IndexByte(key, '.') < 0 && strings.IndexByte(key, ':') < 0 {
		return key // a key or password id: neither an address nor "<scope>:<address>"
	}
	if a, err := netip.ParseAddr(key); err == nil {
		return prefixKey(a)
	}
	if scope, rest, ok := strings.Cut(key, ":"); ok {
		if a, err := netip.ParseAddr(rest); err == nil {
			return scope + ":" + prefixKey(a)
		}
	}
	return key
}

func prefixKey(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

func (l *Limiter) bucket(key string) *rate.Limiter {
	b, ok := l.m.Get(key)
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.m.Add(key, b)
	}
	return b
}

// Allow takes one event for key and reports whether it was within the limit.
func (l *Limiter) Allow(key string) bool {
	key = LimitKey(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bucket(key).AllowN(l.Now(), 1)
}

// Take takes one event for key, as Allow does, and returns a function that gives
// it back (for a request that turns out not to need it). ok is false, and nothing
// is taken, when key has no event left.
func (l *Limiter) Take(key string) (giveBack func(), ok bool) {
	key = LimitKey(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
	r := l.bucket(key).ReserveN(now, 1)
	if !r.OK() || r.DelayFrom(now) > 0 {
		r.CancelAt(now)
		return nil, false
	}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		r.CancelAt(l.Now())
	}, true
}

// Exhausted reports, without taking an event, whether key has no event left.
func (l *Limiter) Exhausted(key string) bool {
	key = LimitKey(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.m.Peek(key)
	if !ok {
		return false
	}
	return b.TokensAt(l.Now()) < 1
}

// Len is how many keys the limiter remembers.
func (l *Limiter) Len() int { return l.m.Len() }

// Limits are the process-wide limiters of the HTTP surfaces.
type Limits struct {
	// Keys: 600 requests per 5 minutes per key or password.
	Keys *Limiter
	// Refused: 60 refused requests per 5 minutes per IP, then every request of that
	// IP gets 429 until the budget refills.
	Refused *Limiter
	// StoreServer: a store server's calls to the storefront (ssr, list, questions
	// with a server key), per key.
	StoreServer *Limiter
	// PerIP is the storefront's per-IP limit for votes, reports, views and questions.
	PerIP *Limiter
	// Viewer is shared by GET /v1/viewer and /v1/viewer/order (per server key).
	Viewer *Limiter
}

// NewLimits builds the limiters with the values of the spec (and ours where the spec
// leaves them open; see docs/decisions.md).
func NewLimits(now func() time.Time) *Limits {
	return &Limits{
		Keys:        NewLimiter(600, 5*time.Minute, now),
		Refused:     NewLimiter(60, 5*time.Minute, now),
		StoreServer: NewLimiter(3000, time.Minute, now),
		PerIP:       NewLimiter(120, time.Minute, now),
		Viewer:      NewLimiter(600, time.Minute, now),
	}
}

// AllowPasswordReset takes one password-reset request of ip from the per-IP
// budget, which the management API's route and the panel's form share: 429
// rate_limited beyond it.
func (l *Limits) AllowPasswordReset(ip string) error {
	if !l.PerIP.Allow("password-reset:" + ip) {
		return core.ErrRateLimited
	}
	return nil
}

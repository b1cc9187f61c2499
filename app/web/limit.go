package web

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter is a set of token buckets, one per key (a key id, a password id, an IP).
// N events per period are allowed, refilled evenly. The clock is injectable so tests
// never sleep.
type Limiter struct {
	mu    sync.Mutex
	m     map[string]*rate.Limiter
	limit rate.Limit
	burst int
	Now   func() time.Time
}

// NewLimiter allows n events per period per key.
func NewLimiter(n int, per time.Duration, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{m: map[string]*rate.Limiter{}, limit: rate.Limit(float64(n) / per.Seconds()), burst: n, Now: now}
}

func (l *Limiter) bucket(key string, now time.Time) *rate.Limiter {
	b := l.m[key]
	if b == nil {
		if len(l.m) > 50000 {
			l.sweep(now)
		}
		b = rate.NewLimiter(l.limit, l.burst)
		l.m[key] = b
	}
	return b
}

// sweep drops buckets that are full again (they behave like new ones).
func (l *Limiter) sweep(now time.Time) {
	for k, b := range l.m {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.m, k)
		}
	}
}

// Allow takes one event for key and reports whether it was within the limit.
func (l *Limiter) Allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
	return l.bucket(key, now).AllowN(now, 1)
}

// Exhausted reports, without taking an event, whether key has no event left.
func (l *Limiter) Exhausted(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.m[key]
	if b == nil {
		return false
	}
	return b.TokensAt(l.Now()) < 1
}

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

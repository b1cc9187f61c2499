package web_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"reviewd/app/web"
)

// TestLimiterIPv6ByPrefix: addresses of one IPv6 /64 share one budget; another /64
// and IPv4 addresses have their own.
func TestLimiterIPv6ByPrefix(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := web.NewLimiter(3, time.Minute, func() time.Time { return now })
	for i := 1; i <= 3; i++ {
		if !l.Allow(fmt.Sprintf("2001:db8:1:2::%x", i)) {
			t.Fatalf("address %d of the /64 refused within the budget", i)
		}
	}
	if l.Allow("2001:db8:1:2:ffff:ffff:ffff:ffff") || !l.Exhausted("2001:db8:1:2::abcd") {
		t.Fatal("a fourth address of the same /64 got a new budget")
	}
	if l.Allow("ingest-check:2001:db8:1:2::9") != true || l.Allow("ingest-check:2001:db8:1:2::a") != true {
		t.Fatal("scoped keys share the budget of unscoped ones")
	}
	if !l.Allow("2001:db8:1:3::1") || !l.Allow("192.0.2.1") || !l.Allow("192.0.2.2") {
		t.Fatal("another /64 or IPv4 address refused")
	}
	if got := web.LimitKey("::ffff:192.0.2.7"); got != "192.0.2.7" {
		t.Fatalf("mapped IPv4 key %q", got)
	}
}

// TestLimiterBounded: a flood of distinct addresses keeps at most MaxBuckets
// buckets, and a busy key that keeps being used is not the one evicted.
func TestLimiterBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := web.NewLimiter(1, time.Hour, func() time.Time { return now })
	if !l.Allow("198.51.100.1") || l.Allow("198.51.100.1") {
		t.Fatal("budget of 1")
	}
	base := netip.MustParseAddr("10.0.0.0")
	a := base
	for i := 0; i < web.MaxBuckets+5000; i++ {
		a = a.Next()
		l.Allow(a.String())
		if i%1000 == 0 && !l.Exhausted("198.51.100.1") {
			t.Fatalf("the busy key lost its bucket after %d new keys", i)
		}
		if i%1000 == 0 {
			l.Allow("198.51.100.1") // still refused; keeps it recently used
		}
	}
	if n := l.Len(); n > web.MaxBuckets {
		t.Fatalf("%d buckets kept, bound %d", n, web.MaxBuckets)
	}
}

package storefront

import (
	"sync"

	"reviewd/app/core"
	"reviewd/app/web"
)

// Concurrent media uploads being received: at most UploadsPerIP from one address
// (an IPv6 /64) and UploadsTotal in all; more answer 429 rate_limited before any
// byte is read.
const (
	UploadsPerIP = 2
	UploadsTotal = 16
)

// uploadSlots counts the uploads being received.
type uploadSlots struct {
	mu    sync.Mutex
	total int
	byIP  map[string]int
}

// take reserves a slot for ip; the returned release gives it back.
func (s *uploadSlots) take(ip string) (release func(), err error) {
	key := web.LimitKey(ip)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total >= UploadsTotal || s.byIP[key] >= UploadsPerIP {
		return nil, core.ErrRateLimited
	}
	s.total++
	s.byIP[key]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.total--
		if s.byIP[key]--; s.byIP[key] <= 0 {
			delete(s.byIP, key)
		}
	}, nil
}

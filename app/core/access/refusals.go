package access

import (
	"context"
	"sync"
	"time"

	"reviewd/store"
)

// Refusals of the page component that the owner is told about (the go-live
// alerts): a page on a domain that is not verified (origin_unverified, counted
// per host) and a revoked site key still in use (revoked_site_key, counted per
// key). They are counted in memory and written at most once per refusalEvery for
// each host or key, after the answer, so a busy page on a wrong domain costs one
// write a minute.

// Kinds of counted refusals.
const (
	RefusalOriginUnverified = "origin_unverified"
	RefusalRevokedSiteKey   = "revoked_site_key"
)

// refusalEvery is how often at most the count of one host or key is written.
const refusalEvery = time.Minute

type refusalKey struct{ kind, subject string }

type refusalCount struct {
	n       int
	channel int64
	written time.Time
}

// refusalCounts holds the refusals not written yet.
type refusalCounts struct {
	mu sync.Mutex
	m  map[refusalKey]*refusalCount
}

// noteRefusal counts one refusal of kind and subject (of channel, 0 unknown).
func (s *Service) noteRefusal(kind, subject string, channel int64) {
	if s.DB.ReadOnly() || subject == "" {
		return
	}
	at := s.DB.Now()
	k := refusalKey{kind, subject}
	s.refusals.mu.Lock()
	if s.refusals.m == nil {
		s.refusals.m = map[refusalKey]*refusalCount{}
	}
	c := s.refusals.m[k]
	if c == nil {
		if len(s.refusals.m) > 10000 { // many hosts: forget the unwritten ones
			s.refusals.m = map[refusalKey]*refusalCount{}
		}
		c = &refusalCount{}
		s.refusals.m[k] = c
	}
	c.n++
	c.channel = channel
	if !c.written.IsZero() && at.Sub(c.written) < refusalEvery {
		s.refusals.mu.Unlock()
		return
	}
	n := c.n
	c.n, c.written = 0, at
	s.refusals.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := s.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.NoteComponentRefusal(ctx, kind, subject, channel, n) })
		if err != nil {
			s.Log.Warn("access: component refusal not counted", "kind", kind, "err", err)
		}
	}()
}

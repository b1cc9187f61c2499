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
// write a minute; refusals held back are written when their minute is over.

// Kinds of counted refusals.
const (
	RefusalOriginUnverified = "origin_unverified"
	RefusalRevokedSiteKey   = "revoked_site_key"
)

// refusalEvery is how often at most the count of one host or key is written (a
// variable for the test of the held-back write).
var refusalEvery = time.Minute

type refusalKey struct{ kind, subject string }

type refusalCount struct {
	n       int
	channel int64
	written time.Time
	// flushing: a write of the refusals held back is scheduled.
	flushing bool
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
	if wait := refusalEvery - at.Sub(c.written); !c.written.IsZero() && wait > 0 {
		if !c.flushing {
			c.flushing = true
			time.AfterFunc(wait, func() { s.flushRefusals(k) })
		}
		s.refusals.mu.Unlock()
		return
	}
	n := c.n
	c.n, c.written = 0, at
	s.refusals.mu.Unlock()
	go s.writeRefusals(k, channel, n)
}

// flushRefusals writes the refusals of k held back since its last write.
func (s *Service) flushRefusals(k refusalKey) {
	s.refusals.mu.Lock()
	c := s.refusals.m[k]
	if c == nil || c.n == 0 {
		if c != nil {
			c.flushing = false
		}
		s.refusals.mu.Unlock()
		return
	}
	n, channel := c.n, c.channel
	c.n, c.written, c.flushing = 0, s.DB.Now(), false
	s.refusals.mu.Unlock()
	s.writeRefusals(k, channel, n)
}

func (s *Service) writeRefusals(k refusalKey, channel int64, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.NoteComponentRefusal(ctx, k.kind, k.subject, channel, n) })
	if err != nil {
		s.Log.Warn("access: component refusal not counted", "kind", k.kind, "err", err)
	}
}

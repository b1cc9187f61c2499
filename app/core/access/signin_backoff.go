package access

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Guessing limits of sign-in, per account (whatever addresses the guesses come
// from): after MaxSignInFailures failed passwords or passcodes for a username
// within SignInFailureWindow, sign-in for it answers 429 rate_limited until the
// oldest failure leaves the window. A password-step session is dropped after
// MaxPasscodeFailures wrong passcodes: sign-in starts again with the password.
const (
	MaxSignInFailures   = 5
	SignInFailureWindow = 15 * time.Minute
	MaxPasscodeFailures = 5
)

// accountLocks serialise the password steps of one username: the backoff's count
// and the failure it leads to are one step, so parallel guesses cannot all read
// the count before any of them is recorded. One process serves the database, so a
// lock in memory covers every sign-in.
type accountLocks struct {
	mu sync.Mutex
	m  map[string]*accountLock
}

type accountLock struct {
	ch   chan struct{}
	refs int
}

// lock waits for username's lock (or ctx) and returns its unlock.
func (l *accountLocks) lock(ctx context.Context, username string) (func(), error) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*accountLock{}
	}
	e := l.m[username]
	if e == nil {
		e = &accountLock{ch: make(chan struct{}, 1)}
		l.m[username] = e
	}
	e.refs++
	l.mu.Unlock()
	release := func() {
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, username)
		}
		l.mu.Unlock()
	}
	select {
	case e.ch <- struct{}{}:
		return func() { <-e.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// backoffName is the username as the backoff counts it (and signInFailed records
// it): at most 64 characters.
func backoffName(username string) string {
	if r := []rune(username); len(r) > 64 {
		return string(r[:64])
	}
	return username
}

// signInBackoff refuses a sign-in for username while its recent failures are at
// the limit.
func signInBackoff(ctx context.Context, q *store.Q, username string, now time.Time) error {
	n, err := q.CountSignInFailures(ctx, backoffName(username), now.Add(-SignInFailureWindow), "")
	if err != nil {
		return err
	}
	if n >= MaxSignInFailures {
		return core.ErrRateLimited
	}
	return nil
}

// passcodeStepSpent reports whether the password-step session s has had its last
// allowed wrong passcode (the failure just recorded included).
func passcodeStepSpent(ctx context.Context, tx *store.Tx, username string, s store.Session) (bool, error) {
	n, err := tx.CountSignInFailures(ctx, username, s.CreatedAt, "invalid_passcode")
	return n >= MaxPasscodeFailures, err
}

// UnlockSignIn clears the sign-in backoff of a member (an operator's console
// command): the failures recorded so far no longer count, and the unlock is
// recorded as user.sign_in_unlocked with how many failures of the window it
// cleared. An unknown username: 404 not_found.
func (s *Service) UnlockSignIn(ctx context.Context, a *core.Actor, username string) (int, error) {
	var n int
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		u, err := memberByName(ctx, tx, strings.TrimSpace(username))
		if err != nil {
			return err
		}
		if n, err = tx.CountSignInFailures(ctx, backoffName(u.Username), tx.Now.Add(-SignInFailureWindow), ""); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "user.sign_in_unlocked", "user", backoffName(u.Username), map[string]any{"failures": n})
	})
	return n, err
}

// memberByName reads a member by username; 404 not_found when there is none.
func memberByName(ctx context.Context, tx *store.Tx, username string) (store.User, error) {
	u, err := tx.UserByUsername(ctx, username)
	if errors.Is(err, store.ErrNotFound) {
		return u, core.ErrNotFound
	}
	return u, err
}

package access

import (
	"context"
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

// signInBackoff refuses a sign-in for username while its recent failures are at
// the limit.
func signInBackoff(ctx context.Context, q *store.Q, username string, now time.Time) error {
	if r := []rune(username); len(r) > 64 {
		username = string(r[:64]) // as signInFailed records it
	}
	n, err := q.CountSignInFailures(ctx, username, now.Add(-SignInFailureWindow), "")
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

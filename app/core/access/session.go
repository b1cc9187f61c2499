package access

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"reviewd/app/core"
	"reviewd/store"
)

// SessionCookie is the name of the panel session cookie.
const SessionCookie = "reviewd_session"

// Session stages: a "password" session only waits for the second step and
// authenticates nothing else; a "full" session is signed in.
const (
	StagePassword = "password"
	StageFull     = "full"
)

// SessionLifetime is how long a signed-in panel session lasts; SecondStepWindow is
// how long the password step waits for its passcode (spec 3, Limits). The reasons are
// in docs/decisions.md ("Panel session lifetime and password policy").
const (
	SessionLifetime  = 12 * time.Hour
	SecondStepWindow = 10 * time.Minute
)

// totpPeriod is the passcode time step; one step either side is accepted for clock
// skew between the server and the authenticator app.
const totpPeriod = 30

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Errors of the panel session (spec 3, "Errors (management)").
var (
	ErrCredentialsInvalid = core.E(401, "refused", "credentials_invalid").AsRefusal()
	ErrInvalidPasscode    = core.E(400, "invalid_passcode", "").AsRefusal()
	ErrSecondStepExpired  = core.E(400, "second_step_expired", "")
	ErrSecondStepOn       = core.Conflict("invalid", "second_step_on")
	// ErrSecondStepOff and ErrSecondStepNotStarted are ours (spec silent): turning
	// off what is not on, confirming what was never started.
	ErrSecondStepOff        = core.Conflict("invalid", "second_step_off")
	ErrSecondStepNotStarted = core.Conflict("invalid", "second_step_not_started")
	ErrCurrentPassword      = core.Invalid("current_password").AsRefusal()
)

// SessionActor resolves a session cookie value to a signed-in panel user. It answers
// nil (and no error) when the token is unknown, expired, waiting for its second step,
// or its user is disabled.
func (svc *Service) SessionActor(ctx context.Context, token string) (*core.Actor, error) {
	if token == "" {
		return nil, nil
	}
	q := svc.DB.Read()
	s, err := q.SessionByHash(ctx, core.HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if s.Stage != "full" || !s.ExpiresAt.After(svc.DB.Now()) {
		return nil, nil
	}
	u, err := q.UserByID(ctx, s.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !u.DisabledAt.IsZero() {
		return nil, nil
	}
	return &core.Actor{Via: core.ViaSession, ID: strconv.FormatInt(u.ID, 10), Name: u.Username, Role: u.Role,
		Perms: core.PermsOfRole(u.Role), UserID: u.ID, SessionID: s.ID, CSRF: s.CSRF}, nil
}

// SignIn is the outcome of a sign-in step. Token is the new cookie value (empty when
// no cookie is to be set); Authenticated is false while the second step is pending.
type SignIn struct {
	Authenticated bool
	Token         string
	CSRF          string
	ExpiresAt     time.Time
	User          store.User
}

// signInFailed records a refused sign-in step. The password is never part of it.
func (svc *Service) signInFailed(ctx context.Context, tx *store.Tx, a *core.Actor, username, reason string) error {
	username = backoffName(username)
	var fa core.Actor
	if a != nil {
		fa = *a
	}
	fa.Name = username
	return svc.rec.Record(ctx, tx, &fa, "session.sign_in_failed", "user", username, map[string]any{"reason": reason})
}

// actorOf fills the request actor a with the user it now acts as.
func actorOf(a *core.Actor, u store.User) *core.Actor {
	var out core.Actor
	if a != nil {
		out = *a
	}
	out.Via, out.ID, out.Name, out.Role = core.ViaSession, strconv.FormatInt(u.ID, 10), u.Username, u.Role
	out.Perms, out.UserID = core.PermsOfRole(u.Role), u.ID
	return &out
}

// newSession stores a session of stage for u and returns its token.
func newSession(ctx context.Context, tx *store.Tx, u store.User, stage string, life time.Duration) (SignIn, error) {
	token := core.RandomToken(32)
	s, err := tx.CreateSession(ctx, core.HashToken(token), store.Session{UserID: u.ID, Stage: stage, CSRF: core.RandomToken(32),
		ExpiresAt: tx.Now.Add(life)})
	if err != nil {
		return SignIn{}, err
	}
	return SignIn{Authenticated: stage == StageFull, Token: token, CSRF: s.CSRF, ExpiresAt: s.ExpiresAt, User: u}, nil
}

// SignIn checks a username and password. Wrong name, wrong password and disabled
// user all answer 401 refused / credentials_invalid after the same bcrypt work. With
// two-step sign-in on, the answer is a "password" session valid SecondStepWindow;
// otherwise a full session valid SessionLifetime. previous, the caller's current
// session cookie if any, is deleted on success. a carries the request details.
// Password steps for one username run one at a time (accountLocks), so the
// backoff holds against parallel guesses.
func (svc *Service) SignIn(ctx context.Context, a *core.Actor, username, password, previous string) (SignIn, error) {
	username = strings.TrimSpace(username)
	unlock, err := svc.signIns.lock(ctx, backoffName(username))
	if err != nil {
		return SignIn{}, err
	}
	defer unlock()
	if err := signInBackoff(ctx, svc.DB.Read(), username, svc.DB.Now()); err != nil {
		return SignIn{}, err
	}
	u, err := svc.DB.Read().UserByUsername(ctx, username)
	known := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return SignIn{}, err
	}
	ok := CheckPassword(u.PasswordHash, password) // empty hash: dummy compare
	reason := ""
	switch {
	case !known:
		reason = "unknown_user"
	case !ok:
		reason = "wrong_password"
	case !u.DisabledAt.IsZero():
		reason = "user_disabled"
	}
	var out SignIn
	err = svc.DB.WithTx(ctx, func(tx *store.Tx) error {
		if reason != "" {
			return svc.signInFailed(ctx, tx, a, username, reason)
		}
		if previous != "" {
			if s, err := tx.SessionByHash(ctx, core.HashToken(previous)); err == nil {
				if err := tx.DeleteSession(ctx, s.ID); err != nil {
					return err
				}
			}
		}
		var err error
		if u.TOTPOn {
			out, err = newSession(ctx, tx, u, StagePassword, SecondStepWindow)
			if err != nil {
				return err
			}
			return svc.rec.Record(ctx, tx, actorOf(a, u), "session.password_step", "user", u.Username, nil)
		}
		if out, err = newSession(ctx, tx, u, StageFull, SessionLifetime); err != nil {
			return err
		}
		if err := tx.SetUserSignedIn(ctx, u.ID); err != nil {
			return err
		}
		return svc.rec.Record(ctx, tx, actorOf(a, u), "session.signed_in", "user", u.Username, map[string]any{"second_step": false})
	})
	if err != nil {
		return SignIn{}, err
	}
	if reason != "" {
		return SignIn{}, ErrCredentialsInvalid
	}
	return out, nil
}

// matchPasscode compares a passcode with the codes of the time steps around now and
// returns the matching step (0 when none matches). Every step is computed, so the
// answer takes the same time whichever matches.
func matchPasscode(secret, passcode string, now time.Time) int64 {
	passcode = strings.TrimSpace(passcode)
	if len(passcode) != 6 {
		return 0
	}
	var step int64
	for _, off := range []int64{-1, 0, 1} {
		t := now.Add(time.Duration(off*totpPeriod) * time.Second)
		want, err := totp.GenerateCodeCustom(secret, t, totpOpts)
		if err == nil && core.Equal(want, passcode) {
			step = t.Unix() / totpPeriod
		}
	}
	return step
}

// usePasscode accepts a passcode for u once: it must match the (decrypted) secret
// and its time step must be newer than the last one used.
func (svc *Service) usePasscode(ctx context.Context, tx *store.Tx, u store.User, passcode string) (bool, error) {
	secret, err := svc.Keys.Decrypt(u.TOTPEnc)
	if err != nil || len(u.TOTPEnc) == 0 {
		return false, nil
	}
	step := matchPasscode(string(secret), passcode, tx.Now)
	if step == 0 {
		return false, nil
	}
	return tx.UseTOTPStep(ctx, u.ID, step)
}

// SignInPasscode ends a two-step sign-in: token is the cookie of the password step.
// No such session, a session of another stage, or one older than SecondStepWindow
// answers second_step_expired; a wrong or used passcode invalid_passcode. On success
// the password-step session is deleted and a new full session is issued.
func (svc *Service) SignInPasscode(ctx context.Context, a *core.Actor, token, passcode string) (SignIn, error) {
	var out SignIn
	var refusal error
	err := svc.DB.WithTx(ctx, func(tx *store.Tx) error {
		if token == "" {
			refusal = ErrSecondStepExpired
			return nil
		}
		s, err := tx.SessionByHash(ctx, core.HashToken(token))
		if errors.Is(err, store.ErrNotFound) || (err == nil && s.Stage != StagePassword) {
			refusal = ErrSecondStepExpired
			return nil
		}
		if err != nil {
			return err
		}
		u, err := tx.UserByID(ctx, s.UserID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err != nil || !s.ExpiresAt.After(tx.Now) || !u.DisabledAt.IsZero() || !u.TOTPOn {
			refusal = ErrSecondStepExpired
			return tx.DeleteSession(ctx, s.ID)
		}
		if err := signInBackoff(ctx, tx.Q, u.Username, tx.Now); err != nil {
			refusal = err
			return nil
		}
		ok, err := svc.usePasscode(ctx, tx, u, passcode)
		if err != nil {
			return err
		}
		if !ok {
			refusal = ErrInvalidPasscode
			if err := svc.signInFailed(ctx, tx, a, u.Username, "invalid_passcode"); err != nil {
				return err
			}
			if spent, err := passcodeStepSpent(ctx, tx, u.Username, s); err != nil || !spent {
				return err
			}
			return tx.DeleteSession(ctx, s.ID)
		}
		if err := tx.DeleteSession(ctx, s.ID); err != nil {
			return err
		}
		if out, err = newSession(ctx, tx, u, StageFull, SessionLifetime); err != nil {
			return err
		}
		if err := tx.SetUserSignedIn(ctx, u.ID); err != nil {
			return err
		}
		return svc.rec.Record(ctx, tx, actorOf(a, u), "session.signed_in", "user", u.Username, map[string]any{"second_step": true})
	})
	if err != nil {
		return SignIn{}, err
	}
	if refusal != nil {
		return SignIn{}, refusal
	}
	return out, nil
}

// SignOut deletes the actor's session.
func (svc *Service) SignOut(ctx context.Context, a *core.Actor) error {
	return svc.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteSession(ctx, a.SessionID); err != nil {
			return err
		}
		return svc.rec.Record(ctx, tx, a, "session.signed_out", "user", a.Name, nil)
	})
}

// SessionUser returns the signed-in user of a panel actor.
func (svc *Service) SessionUser(ctx context.Context, a *core.Actor) (store.User, error) {
	return svc.DB.Read().UserByID(ctx, a.UserID)
}

// SecondStepState reports whether two-step sign-in is on for the actor, and whether a
// setup is waiting for its confirmation.
func (svc *Service) SecondStepState(ctx context.Context, a *core.Actor) (enabled, pending bool, err error) {
	u, err := svc.SessionUser(ctx, a)
	if err != nil {
		return false, false, err
	}
	return u.TOTPOn, !u.TOTPOn && len(u.TOTPEnc) > 0, nil
}

// SecondStepSetup is a new, not yet confirmed, second-step secret.
type SecondStepSetup struct {
	Secret     string
	OTPAuthURL string
}

// StartSecondStep makes a new passcode secret for the actor, stored encrypted and not
// on until ConfirmSecondStep. A previous unconfirmed secret is replaced. When two-step
// sign-in is already on: 409 invalid / second_step_on.
func (svc *Service) StartSecondStep(ctx context.Context, a *core.Actor) (SecondStepSetup, error) {
	var out SecondStepSetup
	err := svc.DB.WithTx(ctx, func(tx *store.Tx) error {
		u, err := tx.UserByID(ctx, a.UserID)
		if err != nil {
			return err
		}
		if u.TOTPOn {
			return ErrSecondStepOn
		}
		key, err := totp.Generate(totp.GenerateOpts{Issuer: "reviewd", AccountName: u.Username,
			Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return err
		}
		if err := tx.SetUserTOTP(ctx, u.ID, svc.Keys.Encrypt([]byte(key.Secret())), false); err != nil {
			return err
		}
		out = SecondStepSetup{Secret: key.Secret(), OTPAuthURL: key.URL()}
		return svc.rec.Record(ctx, tx, a, "user.second_step_started", "user", u.Username, nil)
	})
	return out, err
}

// ConfirmSecondStep turns two-step sign-in on with a passcode of the pending secret.
// The confirming passcode counts as used.
func (svc *Service) ConfirmSecondStep(ctx context.Context, a *core.Actor, passcode string) error {
	return svc.DB.WithTx(ctx, func(tx *store.Tx) error {
		u, err := tx.UserByID(ctx, a.UserID)
		if err != nil {
			return err
		}
		switch {
		case u.TOTPOn:
			return ErrSecondStepOn
		case len(u.TOTPEnc) == 0:
			return ErrSecondStepNotStarted
		}
		// SetUserTOTP resets the last used step, so it goes first and the confirming
		// passcode is then marked used.
		if err := tx.SetUserTOTP(ctx, u.ID, u.TOTPEnc, true); err != nil {
			return err
		}
		ok, err := svc.usePasscode(ctx, tx, u, passcode)
		if err != nil {
			return err
		}
		if !ok {
			return ErrInvalidPasscode
		}
		return svc.rec.Record(ctx, tx, a, "user.second_step_enabled", "user", u.Username, nil)
	})
}

// TurnOffSecondStep turns two-step sign-in off with a current passcode and forgets the
// secret.
func (svc *Service) TurnOffSecondStep(ctx context.Context, a *core.Actor, passcode string) error {
	return svc.DB.WithTx(ctx, func(tx *store.Tx) error {
		u, err := tx.UserByID(ctx, a.UserID)
		if err != nil {
			return err
		}
		if !u.TOTPOn {
			return ErrSecondStepOff
		}
		ok, err := svc.usePasscode(ctx, tx, u, passcode)
		if err != nil {
			return err
		}
		if !ok {
			return ErrInvalidPasscode
		}
		if err := tx.SetUserTOTP(ctx, u.ID, nil, false); err != nil {
			return err
		}
		return svc.rec.Record(ctx, tx, a, "user.second_step_disabled", "user", u.Username, nil)
	})
}

// ChangeOwnEmail changes the actor's own email after checking the current password:
// 400 invalid / current_password, email_required, email_invalid. Only the caller's
// own address can change here, so email_change_own_only cannot arise.
func (svc *Service) ChangeOwnEmail(ctx context.Context, a *core.Actor, current, email string) (store.User, error) {
	u, err := svc.SessionUser(ctx, a)
	if err != nil {
		return store.User{}, err
	}
	if !CheckPassword(u.PasswordHash, current) {
		return store.User{}, ErrCurrentPassword
	}
	email = strings.TrimSpace(email)
	if email == "" {
		return store.User{}, core.Invalid("email_required")
	}
	if !core.ValidEmail(email) {
		return store.User{}, core.Invalid("email_invalid")
	}
	err = svc.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.SetUserEmail(ctx, u.ID, email); err != nil {
			return err
		}
		return svc.rec.Record(ctx, tx, a, "user.email_changed", "user", u.Username, nil)
	})
	u.Email = email
	return u, err
}

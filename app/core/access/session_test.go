package access_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/store"
	"reviewd/store/storetest"
)

const testPassword = "Velvet-Harbor-42"

type sessionEnv struct {
	c     *access.Service
	clock *storetest.Clock
	path  string
	user  store.User
}

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "reviewd.db")
	db, err := store.Open(context.Background(), path, storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = clock.Now
	keys, err := core.NewKeyring(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	c := access.New(db, keys, nil, "https://reviews.example", nil)
	u, err := c.CreateUser(context.Background(), core.Console(), access.NewUser{Username: "ayla", Email: "ayla@shop.example",
		Role: "manager", Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	return &sessionEnv{c: c, clock: clock, path: path, user: u}
}

// disable marks the user disabled. No store method does that yet, so the test
// writes the column directly.
func (e *sessionEnv) disable(t *testing.T) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE users SET disabled_at = ? WHERE id = ?`, store.Ms(e.clock.T), e.user.ID); err != nil {
		t.Fatal(err)
	}
}

func (e *sessionEnv) actions(t *testing.T, action string) []store.Activity {
	t.Helper()
	list, _, err := e.c.DB.Read().ListActivity(context.Background(), store.ActivityFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantErr(t *testing.T, err error, want *core.Error) {
	t.Helper()
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Status != want.Status || ce.Code != want.Code || ce.Detail != want.Detail {
		t.Fatalf("error = %v, want %v", err, want)
	}
}

func TestSignInRefusals(t *testing.T) {
	tests := []struct {
		name, username, password, reason string
		disable                          bool
	}{
		{"wrong password", "ayla", "Velvet-Harbor-43", "wrong_password", false},
		{"unknown user", "nobody", testPassword, "unknown_user", false},
		{"empty", "", "", "unknown_user", false},
		{"disabled user", "ayla", testPassword, "user_disabled", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSessionEnv(t)
			if tt.disable {
				e.disable(t)
			}
			_, err := e.c.SignIn(context.Background(), &core.Actor{IP: "203.0.113.9"}, tt.username, tt.password, "")
			wantErr(t, err, access.ErrCredentialsInvalid)
			var ce *core.Error
			if errors.As(err, &ce); !ce.Refusal {
				t.Fatal("refusal not counted")
			}
			got := e.actions(t, "session.sign_in_failed")
			if len(got) != 1 || !strings.Contains(got[0].Detail, tt.reason) || got[0].TargetID != tt.username {
				t.Fatalf("history = %+v", got)
			}
			if strings.Contains(got[0].Detail, tt.password) && tt.password != "" {
				t.Fatal("password in the history")
			}
		})
	}
}

func TestSignInFullSession(t *testing.T) {
	e := newSessionEnv(t)
	ctx := context.Background()
	s, err := e.c.SignIn(ctx, &core.Actor{}, " ayla ", testPassword, "")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Authenticated || s.Token == "" || s.CSRF == "" || !s.ExpiresAt.Equal(e.clock.T.Add(12*time.Hour)) {
		t.Fatalf("sign-in = %+v", s)
	}
	a, err := e.c.SessionActor(ctx, s.Token)
	if err != nil || a == nil || a.UserID != e.user.ID || a.CSRF != s.CSRF || a.Role != "manager" {
		t.Fatalf("actor = %+v, %v", a, err)
	}
	// Only the hash of the token is stored.
	if _, err := e.c.DB.Read().SessionByHash(ctx, []byte(s.Token)); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("token stored in clear")
	}
	if len(e.actions(t, "session.signed_in")) != 1 {
		t.Fatal("sign-in not recorded")
	}

	// A new sign-in from the same browser ends the previous session.
	s2, err := e.c.SignIn(ctx, &core.Actor{}, "ayla", testPassword, s.Token)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := e.c.SessionActor(ctx, s.Token); a != nil {
		t.Fatal("previous session still valid")
	}
	e.clock.Advance(12*time.Hour - time.Second)
	if a, _ := e.c.SessionActor(ctx, s2.Token); a == nil {
		t.Fatal("session ended early")
	}
	e.clock.Advance(time.Second)
	if a, _ := e.c.SessionActor(ctx, s2.Token); a != nil {
		t.Fatal("session outlived 12 hours")
	}
}

func TestSecondStep(t *testing.T) {
	e := newSessionEnv(t)
	ctx := context.Background()
	s, err := e.c.SignIn(ctx, &core.Actor{}, "ayla", testPassword, "")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := e.c.SessionActor(ctx, s.Token)

	wantErr(t, e.c.ConfirmSecondStep(ctx, a, "123456"), access.ErrSecondStepNotStarted)
	wantErr(t, e.c.TurnOffSecondStep(ctx, a, "123456"), access.ErrSecondStepOff)
	setup, err := e.c.StartSecondStep(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(setup.OTPAuthURL, "otpauth://totp/") || !strings.Contains(setup.OTPAuthURL, "secret="+setup.Secret) {
		t.Fatalf("setup = %+v", setup)
	}
	u, _ := e.c.DB.Read().UserByID(ctx, e.user.ID)
	if u.TOTPOn || len(u.TOTPEnc) == 0 || strings.Contains(string(u.TOTPEnc), setup.Secret) {
		t.Fatal("secret not stored encrypted and off")
	}
	if on, pending, _ := e.c.SecondStepState(ctx, a); on || !pending {
		t.Fatalf("state = %v %v", on, pending)
	}
	wantErr(t, e.c.ConfirmSecondStep(ctx, a, "000000x"), access.ErrInvalidPasscode)
	confirm := code(t, setup.Secret, e.clock.T)
	if err := e.c.ConfirmSecondStep(ctx, a, confirm); err != nil {
		t.Fatal(err)
	}
	if on, pending, _ := e.c.SecondStepState(ctx, a); !on || pending {
		t.Fatalf("state = %v %v", on, pending)
	}
	_, err = e.c.StartSecondStep(ctx, a)
	wantErr(t, err, access.ErrSecondStepOn)

	// Password step: a pending session that authenticates nothing.
	p, err := e.c.SignIn(ctx, &core.Actor{}, "ayla", testPassword, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Authenticated || p.Token == "" {
		t.Fatalf("password step = %+v", p)
	}
	if a, _ := e.c.SessionActor(ctx, p.Token); a != nil {
		t.Fatal("pending session authenticates")
	}
	// The confirming passcode was used already.
	_, err = e.c.SignInPasscode(ctx, &core.Actor{}, p.Token, confirm)
	wantErr(t, err, access.ErrInvalidPasscode)
	// A full session is no password step.
	_, err = e.c.SignInPasscode(ctx, &core.Actor{}, s.Token, code(t, setup.Secret, e.clock.T))
	wantErr(t, err, access.ErrSecondStepExpired)
	_, err = e.c.SignInPasscode(ctx, &core.Actor{}, "", "123456")
	wantErr(t, err, access.ErrSecondStepExpired)

	// One step of clock skew either way is accepted, two are not.
	e.clock.Advance(2 * time.Minute)
	_, err = e.c.SignInPasscode(ctx, &core.Actor{}, p.Token, code(t, setup.Secret, e.clock.T.Add(-60*time.Second)))
	wantErr(t, err, access.ErrInvalidPasscode)
	full, err := e.c.SignInPasscode(ctx, &core.Actor{}, p.Token, code(t, setup.Secret, e.clock.T.Add(30*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	if !full.Authenticated || full.Token == p.Token {
		t.Fatalf("second step = %+v", full)
	}
	if a, _ := e.c.SessionActor(ctx, full.Token); a == nil {
		t.Fatal("full session does not authenticate")
	}
	// The password-step session is gone.
	_, err = e.c.SignInPasscode(ctx, &core.Actor{}, p.Token, code(t, setup.Secret, e.clock.T.Add(30*time.Second)))
	wantErr(t, err, access.ErrSecondStepExpired)

	// The 10-minute window.
	p, _ = e.c.SignIn(ctx, &core.Actor{}, "ayla", testPassword, "")
	e.clock.Advance(10 * time.Minute)
	_, err = e.c.SignInPasscode(ctx, &core.Actor{}, p.Token, code(t, setup.Secret, e.clock.T))
	wantErr(t, err, access.ErrSecondStepExpired)

	// Off needs a passcode and forgets the secret.
	a, _ = e.c.SessionActor(ctx, full.Token)
	wantErr(t, e.c.TurnOffSecondStep(ctx, a, "999999"), access.ErrInvalidPasscode)
	e.clock.Advance(time.Minute)
	if err := e.c.TurnOffSecondStep(ctx, a, code(t, setup.Secret, e.clock.T)); err != nil {
		t.Fatal(err)
	}
	if u, _ := e.c.DB.Read().UserByID(ctx, e.user.ID); u.TOTPOn || len(u.TOTPEnc) != 0 {
		t.Fatal("second step still on")
	}
	for _, act := range []string{"user.second_step_started", "user.second_step_enabled", "user.second_step_disabled"} {
		if len(e.actions(t, act)) != 1 {
			t.Fatalf("%s not recorded", act)
		}
	}
}

func TestChangeOwnEmail(t *testing.T) {
	e := newSessionEnv(t)
	ctx := context.Background()
	s, _ := e.c.SignIn(ctx, &core.Actor{}, "ayla", testPassword, "")
	a, _ := e.c.SessionActor(ctx, s.Token)
	tests := []struct {
		name, current, email string
		want                 *core.Error
	}{
		{"wrong password", "nope-nope-nope", "new@shop.example", access.ErrCurrentPassword},
		{"email missing", testPassword, "  ", core.Invalid("email_required")},
		{"email invalid", testPassword, "Ayla <a@shop.example>", core.Invalid("email_invalid")},
		{"email invalid no at", testPassword, "shop.example", core.Invalid("email_invalid")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.c.ChangeOwnEmail(ctx, a, tt.current, tt.email)
			wantErr(t, err, tt.want)
		})
	}
	u, err := e.c.ChangeOwnEmail(ctx, a, testPassword, " new@shop.example ")
	if err != nil || u.Email != "new@shop.example" {
		t.Fatalf("change = %+v, %v", u, err)
	}
	if u, _ := e.c.DB.Read().UserByID(ctx, e.user.ID); u.Email != "new@shop.example" {
		t.Fatal("email not stored")
	}
	if got := e.actions(t, "user.email_changed"); len(got) != 1 || strings.Contains(got[0].Detail, "new@") {
		t.Fatalf("history = %+v", got)
	}
}

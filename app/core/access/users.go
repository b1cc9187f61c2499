package access

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"reviewd/app/core"
	"reviewd/store"
)

// bcryptCost is the work factor of stored panel passwords.
const bcryptCost = 11

var reUsername = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{1,63}$`)

// commonPasswords are refused as guessable (with any letter case).
var commonPasswords = map[string]bool{
	"password": true, "password1": true, "password123": true, "passw0rd": true, "123456789": true, "1234567890": true,
	"12345678": true, "qwertyuiop": true, "qwerty123": true, "iloveyou": true, "letmein123": true, "welcome123": true,
	"admin1234": true, "administrator": true, "changeme": true, "changeme123": true, "abc123456": true, "1q2w3e4r5t": true,
	"sifre123": true, "parola123": true, "superman1": true, "football1": true, "baseball1": true, "trustno1": true,
}

// NewUser is the input of CreateUser.
type NewUser struct {
	Username, Email, Role, Password string
}

// CheckPasswordStrength refuses passwords that are short or common
// (password_guessable) or that contain the service, brand or user name
// (password_names_account).
func CheckPasswordStrength(password string, names ...string) error {
	lower := strings.ToLower(password)
	if len([]rune(password)) < 10 || commonPasswords[lower] {
		return core.Invalid("password_guessable")
	}
	distinct := map[rune]bool{}
	for _, r := range lower {
		distinct[r] = true
	}
	if len(distinct) < 4 {
		return core.Invalid("password_guessable")
	}
	for _, n := range append(names, "reviewd") {
		n = strings.ToLower(strings.TrimSpace(n))
		if len(n) >= 3 && strings.Contains(lower, n) {
			return core.Invalid("password_names_account")
		}
	}
	return nil
}

// HashPassword hashes a panel password with bcrypt.
func HashPassword(password string) (string, error) {
	b, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	return string(b), err
}

// dummyHash keeps sign-in time the same for unknown users: a bcrypt hash of a fixed
// password at bcryptCost, written out so the binary does not spend a hash on start.
var dummyHash = []byte("$2a$11$lgF/wryP8mQxVNfXTXwsaO.ilmeh3N8w8MnCq0/7HTy.ioIcgQ7Te")

// CheckPassword compares a password with a stored hash (constant time inside bcrypt).
// An empty hash still costs one comparison, so unknown users answer as slowly as
// known ones.
func CheckPassword(hash, password string) bool {
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// CreateUser validates and stores a panel user.
func (s *Service) CreateUser(ctx context.Context, a *core.Actor, in NewUser) (store.User, error) {
	in.Username = strings.TrimSpace(in.Username)
	in.Email = strings.TrimSpace(in.Email)
	if !reUsername.MatchString(in.Username) {
		return store.User{}, core.Invalid("username")
	}
	if in.Email == "" {
		return store.User{}, core.Invalid("email_required")
	}
	if !core.ValidEmail(in.Email) {
		return store.User{}, core.Invalid("email_invalid")
	}
	if core.PermsOfRole(in.Role)[core.PermRead] == false {
		return store.User{}, core.Invalid("role")
	}
	local, _, _ := strings.Cut(in.Email, "@")
	names := []string{in.Username, local}
	chans, err := s.DB.Read().ListChannels(ctx)
	if err != nil {
		return store.User{}, err
	}
	for _, ch := range chans {
		names = append(names, ch.BrandName, ch.Label)
	}
	if err := CheckPasswordStrength(in.Password, names...); err != nil {
		return store.User{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return store.User{}, err
	}
	u := store.User{Username: in.Username, Email: in.Email, Role: in.Role, PasswordHash: hash}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.UserByUsername(ctx, u.Username); err == nil {
			return core.Invalid("username_taken")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if u, err = tx.CreateUser(ctx, u); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "user.created", "user", u.Username, map[string]any{"role": u.Role})
	})
	return u, err
}

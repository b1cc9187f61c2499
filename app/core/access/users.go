package access

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/trustelem/zxcvbn"
	"golang.org/x/crypto/bcrypt"

	"reviewd/app/core"
	"reviewd/store"
)

// bcryptCost is the work factor of stored panel passwords.
const bcryptCost = 11

var reUsername = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{1,63}$`)

// minPasswordScore is the lowest zxcvbn score (0 to 4) a panel password may have:
// 3 is "safely unguessable" (about 10^8 guesses or more), enough against an online
// attacker who also meets the sign-in backoff and against a slow (bcrypt) offline
// attack of a stolen hash.
const minPasswordScore = 3

// strengthRunes is how much of a password the estimator reads: its matching grows
// with the square of the length, and a longer password is long enough anyway.
const strengthRunes = 64

// NewUser is the input of CreateUser.
type NewUser struct {
	Username, Email, Role, Password string
}

// CheckPasswordStrength refuses passwords that are short or easy to guess
// (password_guessable) or that contain the service, brand or user name
// (password_names_account). Guessability is zxcvbn's estimate with names as its
// user inputs, so a name in disguise (l33t, reversed, with digits) also counts.
func CheckPasswordStrength(password string, names ...string) error {
	lower := strings.ToLower(password)
	if len([]rune(password)) < 10 {
		return core.Invalid("password_guessable")
	}
	inputs := []string{"reviewd", "review", "reviews", "panel"}
	for _, n := range append(names, "reviewd") {
		n = strings.ToLower(strings.TrimSpace(n))
		if len(n) >= 3 && strings.Contains(lower, n) {
			return core.Invalid("password_names_account")
		}
		if n != "" {
			inputs = append(inputs, n)
		}
	}
	if r := []rune(password); len(r) > strengthRunes {
		password = string(r[:strengthRunes])
	}
	if zxcvbn.PasswordStrength(password, inputs).Score < minPasswordScore {
		return core.Invalid("password_guessable")
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
	u := store.User{Username: in.Username, Email: in.Email, Role: in.Role}
	hash, err := s.strongHash(ctx, u, in.Password)
	if err != nil {
		return store.User{}, err
	}
	u.PasswordHash = hash
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

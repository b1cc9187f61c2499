package cli_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/store"
	"reviewd/store/storetest"
)

func TestUserCreate(t *testing.T) {
	dir := t.TempDir()
	const pw = "kettle-Orbit-93-lantern"
	r := runCLI(t, dir, pw+"\r\n", "user", "create", "--username", "ayse", "--email", "ayse@shop.example",
		"--role", "owner", "--password-stdin", "--json")
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	for _, leak := range []string{pw, "$2", "hash"} {
		if strings.Contains(r.Out, leak) {
			t.Fatalf("user create output shows %q:\n%s", leak, r.Out)
		}
	}
	var u map[string]any
	mustUnmarshal(t, r.Out, &u)
	if len(u) != 5 || u["username"] != "ayse" || u["email"] != "ayse@shop.example" || u["role"] != "owner" || u["id"] == nil || u["created_at"] == nil {
		t.Fatalf("user = %v", u)
	}

	db := openDB(t, dir)
	row, err := db.Read().UserByUsername(context.Background(), "ayse")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if row.PasswordHash == pw || strings.Contains(row.PasswordHash, pw) || !access.CheckPassword(row.PasswordHash, pw) {
		t.Fatalf("stored password is not a hash of the given one (trailing newline must be trimmed)")
	}

	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"taken", pw + "\n", []string{"--username", "ayse", "--email", "a@shop.example", "--role", "viewer", "--password-stdin"}, "username_taken"},
		{"weak", "password123\n", []string{"--username", "bora", "--email", "b@shop.example", "--role", "viewer", "--password-stdin"}, "password_guessable"},
		{"bad role", pw + "\n", []string{"--username", "bora", "--email", "b@shop.example", "--role", "root", "--password-stdin"}, "invalid: role"},
		{"bad email", pw + "\n", []string{"--username", "bora", "--email", "nope", "--role", "viewer", "--password-stdin"}, "email_invalid"},
		{"no stdin flag", pw + "\n", []string{"--username", "bora", "--email", "b@shop.example", "--role", "viewer"}, "--password-stdin"},
		{"empty stdin", "", []string{"--username", "bora", "--email", "b@shop.example", "--role", "viewer", "--password-stdin"}, "standard input is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, tc.stdin, append([]string{"user", "create"}, tc.args...)...)
			if r.Error == nil || !strings.Contains(r.Error.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", r.Error, tc.want)
			}
		})
	}
}

// TestUserUnlock: after too many wrong passwords a member is locked out even with
// the right one; `reviewd user unlock` clears the lock (recorded in the activity
// history) and the right password signs in again.
func TestUserUnlock(t *testing.T) {
	dir := t.TempDir()
	const pw = "kettle-Orbit-93-lantern"
	mustRun := func(stdin string, args ...string) string {
		t.Helper()
		r := runCLI(t, dir, stdin, args...)
		if r.Error != nil {
			t.Fatalf("%v: %v", args, r.Error)
		}
		return r.Out
	}
	mustRun(pw+"\n", "user", "create", "--username", "ayse", "--email", "ayse@shop.example", "--role", "moderator", "--password-stdin")

	signIn := func(password string) error {
		t.Helper()
		db, err := store.Open(context.Background(), filepath.Join(dir, "reviewd.db"), storetest.SchemaSQL(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		keys, _ := core.NewKeyring(make([]byte, 32))
		_, err = access.New(db, keys, nil, "http://x.test", nil).SignIn(context.Background(), core.Console(), "ayse", password, "")
		return err
	}
	for i := 0; i < access.MaxSignInFailures; i++ {
		if err := signIn("Wrong-Password-99"); !errors.Is(err, access.ErrCredentialsInvalid) {
			t.Fatalf("wrong password %d: %v", i, err)
		}
	}
	if err := signIn(pw); !errors.Is(err, core.ErrRateLimited) {
		t.Fatalf("locked account, right password: %v", err)
	}

	var row map[string]any
	mustUnmarshal(t, mustRun("", "user", "unlock", "ayse", "--json"), &row)
	if row["username"] != "ayse" || row["unlocked"] != true || row["failures_cleared"] != float64(access.MaxSignInFailures) {
		t.Fatalf("unlock = %v", row)
	}
	if err := signIn(pw); err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	if out := mustRun("", "user", "unlock", "ayse"); !strings.Contains(out, "FAILURES CLEARED") || !strings.Contains(out, "ayse") {
		t.Fatalf("table:\n%s", out)
	}
	if r := runCLI(t, dir, "", "user", "unlock", "nobody"); r.Error == nil || !strings.Contains(r.Error.Error(), `no panel user "nobody"`) {
		t.Fatalf("unknown user: %v", r.Error)
	}
	db := openDB(t, dir)
	list, _, err := db.Read().ListActivity(context.Background(), store.ActivityFilter{Action: "user.sign_in_unlocked"})
	if err != nil || len(list) != 2 || list[0].ActorType != "console" {
		t.Fatalf("history: %+v %v", list, err)
	}
}

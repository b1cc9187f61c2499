package cli_test

import (
	"context"
	"strings"
	"testing"

	"reviewd/app/core/access"
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

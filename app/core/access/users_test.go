package access_test

import (
	"context"
	"errors"
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/channels"
	"reviewd/store/storetest"
)

func TestPasswordPolicy(t *testing.T) {
	db := storetest.Open(t, nil)
	keys, _ := core.NewKeyring(make([]byte, 32))
	cc := core.NewRecorder(keys)
	c := access.New(db, keys, nil, "http://x.test", nil)
	ctx := context.Background()
	if _, err := channels.New(db, cc, nil, nil).CreateChannel(ctx, core.Console(), channels.NewChannel{Code: "web", Market: "TR", Language: "tr", Label: "Web", BrandName: "Lavanta", Domains: []string{"shop.example"}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ password, want string }{
		{"short", "invalid / password_guessable"},
		{"password123", "invalid / password_guessable"},
		{"aaaaaaaaaaaa", "invalid / password_guessable"},
		{"my-ana-secret-99", "invalid / password_names_account"},
		{"Lavanta-rocks-2026", "invalid / password_names_account"},
		{"reviewd is great 1", "invalid / password_names_account"},
		// Guessable by an estimate, not by a word list: keyboard runs, a common word
		// with a year, the brand name in disguise.
		{"qwerty123456", "invalid / password_guessable"},
		{"Password2024!", "invalid / password_guessable"},
		{"L4v4nt4-2024", "invalid / password_guessable"},
		{"Lavanta2024", "invalid / password_names_account"},
		{"correct horse battery", ""},
	}
	for _, tc := range cases {
		_, err := c.CreateUser(ctx, core.Console(), access.NewUser{Username: "ana", Email: "ana@shop.example", Role: "owner", Password: tc.password})
		got := ""
		var ce *core.Error
		if errors.As(err, &ce) {
			got = ce.Code + " / " + ce.Detail
		} else if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("password %q: got %q, want %q", tc.password, got, tc.want)
		}
	}
	if _, err := c.CreateUser(ctx, core.Console(), access.NewUser{Username: "ana", Email: "ana2@shop.example", Role: "owner", Password: "another good phrase"}); err == nil || err.(*core.Error).Detail != "username_taken" {
		t.Fatalf("duplicate username: %v", err)
	}
	for _, bad := range []access.NewUser{
		{Username: "bo", Email: "", Role: "owner", Password: "correct horse battery"},
		{Username: "bo", Email: "not-an-address", Role: "owner", Password: "correct horse battery"},
		{Username: "bo", Email: "bo@shop.example", Role: "king", Password: "correct horse battery"},
	} {
		if _, err := c.CreateUser(ctx, core.Console(), bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

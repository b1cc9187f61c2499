package admin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core/access"
	"reviewd/jobs"
	"reviewd/store"
)

// holdWrites holds the database's write lock until the returned release is called.
func holdWrites(t *testing.T, env *apptest.Env) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go func() {
		_ = env.App.DB.WithTx(context.Background(), func(*store.Tx) error {
			close(held)
			<-done
			return nil
		})
	}()
	<-held
	return func() { close(done) }
}

func resetLinks(t *testing.T, env *apptest.Env, username string) int {
	t.Helper()
	ctx := context.Background()
	u, err := env.App.DB.Read().UserByUsername(ctx, username)
	if err != nil {
		t.Fatal(err)
	}
	n, err := env.App.DB.Read().CountPasswordLinks(ctx, u.ID, "reset", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPasswordResetAnsweredBeforeTheLink: the answer to a member's address does
// not wait for its link to be written (the write is held here), so it takes as
// long as the answer to an unknown address; the link is written and mailed after.
func TestPasswordResetAnsweredBeforeTheLink(t *testing.T) {
	env, smtp, _ := newMembersEnv(t)
	release := holdWrites(t, env)
	answered := make(chan apptest.Response, 1)
	go func() {
		answered <- env.Do("POST", "/admin/v1/session/password-reset", map[string]string{"email": "olga@shop.example"}, nil)
	}()
	select {
	case res := <-answered:
		release()
		expect(t, res, 202, "")
	case <-time.After(10 * time.Second):
		release()
		<-answered
		t.Fatal("the answer to a member's address waited for the link to be written")
	}
	waitMail(t, smtp, 1, "olga@shop.example")
	if n := resetLinks(t, env, "olga"); n != 1 {
		t.Fatalf("%d reset links", n)
	}
}

// TestPasswordResetPerAddress: a flood of reset requests for one member's address
// writes and mails at most MaxResetLinks links within the hour; the answers stay
// 202 requested true.
func TestPasswordResetPerAddress(t *testing.T) {
	env, smtp, _ := newMembersEnv(t)
	env.User(access.NewUser{Username: "mert", Email: "mert@shop.example", Role: "viewer", Password: "Amber-Canyon-63"})
	for i := 0; i < 10; i++ {
		res := env.Do("POST", "/admin/v1/session/password-reset", map[string]string{"email": "olga@shop.example"}, nil)
		expect(t, res, 202, "")
		if res.JSON["requested"] != true {
			t.Fatalf("reset %d: %s", i, res)
		}
	}
	// Requests are handled in order: once mert's mail is out, olga's are done.
	expect(t, env.Do("POST", "/admin/v1/session/password-reset", map[string]string{"email": "mert@shop.example"}, nil), 202, "")
	waitMail(t, smtp, access.MaxResetLinks+1, "mert@shop.example")
	if n := len(smtp.Messages()); n != access.MaxResetLinks+1 {
		t.Fatalf("%d mails; want %d for olga and 1 for mert", n, access.MaxResetLinks)
	}
	if n := resetLinks(t, env, "olga"); n != access.MaxResetLinks {
		t.Fatalf("%d reset links for olga, want %d", n, access.MaxResetLinks)
	}
	// An hour later the member can ask again.
	env.Clock.Advance(access.ResetLinkLife + time.Second)
	expect(t, env.Do("POST", "/admin/v1/session/password-reset", map[string]string{"email": "olga@shop.example"}, nil), 202, "")
	waitMail(t, smtp, access.MaxResetLinks+2, "olga@shop.example")
}

// TestCleanupDeletesSpentPasswordLinks: the cleanup job deletes used and expired
// set-password links and keeps a live one, which still works.
func TestCleanupDeletesSpentPasswordLinks(t *testing.T) {
	env, smtp, _ := newMembersEnv(t)
	reset := func() {
		t.Helper()
		expect(t, env.Do("POST", "/admin/v1/session/password-reset", map[string]string{"email": "olga@shop.example"}, nil), 202, "")
	}
	reset()
	_, used := waitMail(t, smtp, 1, "olga@shop.example")
	expect(t, env.Do("POST", "/admin/v1/session/password", map[string]string{"token": used, "password": "Silver-Orchard-12"}, nil), 200, "")
	reset()
	waitMail(t, smtp, 2, "olga@shop.example")
	env.Clock.Advance(access.ResetLinkLife + time.Minute) // the second link expires unused
	reset()
	_, live := waitMail(t, smtp, 3, "olga@shop.example")

	out, err := jobs.Cleanup{DB: env.App.DB}.Run(context.Background(), env.Clock.T)
	if err != nil || !strings.Contains(out, "password_links=2") {
		t.Fatalf("cleanup: %q %v", out, err)
	}
	if n := resetLinks(t, env, "olga"); n != 1 {
		t.Fatalf("%d links left, want the live one", n)
	}
	expect(t, env.Do("POST", "/admin/v1/session/password", map[string]string{"token": live, "password": "Golden-Harbor-55"}, nil), 200, "")
}

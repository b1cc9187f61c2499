package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/store"
)

// TestSignInBackoffPerAccount: wrong passwords for one account from many addresses
// reach a per-account limit (429) that the right password does not bypass until
// the failures leave the 15-minute window.
func TestSignInBackoffPerAccount(t *testing.T) {
	env := newPanelEnv(t)
	for i := 0; i < access.MaxSignInFailures; i++ {
		h := map[string]string{"Content-Type": "application/json"}
		res := env.Do("POST", "/admin/v1/session", map[string]string{"username": panelUser, "password": "Wrong-Password-99"}, h)
		expect(t, res, 401, "refused / credentials_invalid")
	}
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 429, "rate_limited / rate_limited")
	env.Clock.Advance(access.SignInFailureWindow + time.Second)
	expect(t, b.signIn(panelUser, panelPassword), 200, "")
}

// TestPasscodeStepDroppedAfterFiveWrong: five wrong passcodes end the password
// step; the right passcode afterwards no longer signs in.
func TestPasscodeStepDroppedAfterFiveWrong(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 200, "")
	setup := b.do("POST", "/admin/v1/session/second-step", nil, true)
	secret, _ := setup.JSON["secret"].(string)
	expect(t, b.do("POST", "/admin/v1/session/second-step/confirm", map[string]string{"passcode": passcode(t, secret, env.Clock.T)}, true), 200, "")
	expect(t, b.do("DELETE", "/admin/v1/session", nil, true), 204, "")
	env.Clock.Advance(time.Minute) // a new passcode period

	res := b.signIn(panelUser, panelPassword)
	if res.JSON["step"] != "second_step" {
		t.Fatalf("sign-in = %s", res.Body)
	}
	for i := 0; i < access.MaxPasscodeFailures; i++ {
		expect(t, b.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": "000000"}, false), 400, "invalid_passcode / invalid_passcode")
	}
	good := passcode(t, secret, env.Clock.T)
	expect(t, b.do("POST", "/admin/v1/session/passcode", map[string]string{"passcode": good}, false), 400, "second_step_expired / second_step_expired")
}

// parallelSignIns posts n sign-ins at once (username(i), password) from one
// address; the statuses of the answers arrive on the channel as they come (-1 for
// a transport error).
func parallelSignIns(env *apptest.Env, n int, username func(int) string, password string) <-chan int {
	out := make(chan int, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			body, _ := json.Marshal(map[string]string{"username": username(i), "password": password})
			<-start
			res, err := http.Post(env.URL+"/admin/v1/session", "application/json", bytes.NewReader(body))
			if err != nil {
				out <- -1
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			out <- res.StatusCode
		}()
	}
	close(start)
	return out
}

// countStatuses reads n statuses from c.
func countStatuses(c <-chan int, n int) map[int]int {
	counts := map[int]int{}
	for i := 0; i < n; i++ {
		counts[<-c]++
	}
	return counts
}

// TestSignInBackoffHoldsUnderParallelGuesses: 100 wrong passwords for one account
// sent at once get exactly MaxSignInFailures refusals (401) and 429 for the rest;
// afterwards the right password is locked out until the window passes, then
// signs in.
func TestSignInBackoffHoldsUnderParallelGuesses(t *testing.T) {
	env := newPanelEnv(t)
	counts := countStatuses(parallelSignIns(env, 100, func(int) string { return panelUser }, "Wrong-Password-99"), 100)
	if counts[401] != access.MaxSignInFailures || counts[429] != 100-access.MaxSignInFailures {
		t.Fatalf("answers by status = %v, want %d × 401 and the rest 429", counts, access.MaxSignInFailures)
	}
	b := newBrowser(t, env)
	expect(t, b.signIn(panelUser, panelPassword), 429, "rate_limited / rate_limited")
	env.Clock.Advance(access.SignInFailureWindow + time.Second)
	expect(t, b.signIn(panelUser, panelPassword), 200, "")
}

// TestSignInRefusalsCountedAtStart: parallel wrong sign-ins for many accounts from
// one address are counted against the address's 60 refusals per 5 minutes when
// they start, so those past the 60th are answered 429 while the first 60 are
// still being checked (here: held behind a write), not only after they fail.
func TestSignInRefusalsCountedAtStart(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	const n, budget = 70, 60
	name := func(i int) string { return fmt.Sprintf("guess%02d", i) }
	for i := 0; i < n; i++ {
		env.User(access.NewUser{Username: name(i), Email: name(i) + "@shop.example", Role: "viewer", Password: panelPassword})
	}
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = env.App.DB.WithTx(context.Background(), func(*store.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	answers := parallelSignIns(env, n, name, "Wrong-Password-99")
	early := map[int]int{}
	timeout := time.After(15 * time.Second)
wait:
	for i := 0; i < n-budget; i++ {
		select {
		case st := <-answers:
			early[st]++
		case <-timeout:
			break wait
		}
	}
	close(release)
	if early[429] != n-budget || len(early) != 1 {
		t.Fatalf("while %d sign-ins were pending, answers by status = %v; want %d × 429", n, early, n-budget)
	}
	if rest := countStatuses(answers, budget); rest[401] != budget {
		t.Fatalf("the pending sign-ins: %v, want %d × 401", rest, budget)
	}
	expect(t, newBrowser(t, env).signIn(name(0), panelPassword), 429, "rate_limited / rate_limited")
}

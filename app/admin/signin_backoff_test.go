package admin_test

import (
	"testing"
	"time"

	"reviewd/app/core/access"
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

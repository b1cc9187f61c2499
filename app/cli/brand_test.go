package cli_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
)

// TestBrandFreezeAndClose: the operator freezes, closes and reopens the brand with
// the CLI while the server runs over the same data folder. The management API then
// answers 403 forbidden / brand_inactive except for signing in and out; the
// storefront answers 403 refused / tenant_inactive, for writes only while frozen.
func TestBrandFreezeAndClose(t *testing.T) {
	dir := t.TempDir()
	createChannel(t, dir, "web-tr", "TR", "tr")
	var site, api map[string]any
	mustJSON(t, dir, &site, "key", "create", "--kind", "site", "--channel", "web-tr")
	mustJSON(t, dir, &api, "key", "create", "--kind", "api", "--scopes", "read,write")
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) { c.DataDir = dir })
	env.User(access.NewUser{Username: "olga", Email: "olga@shop.example", Role: "owner", Password: "Quiet-Lantern-77"})

	key := map[string]string{"Authorization": "Api-Key " + api["key"].(string)}
	page := map[string]string{"Origin": "https://shop.example"}
	read := func() apptest.Response {
		return env.Do("GET", "/v1/reviews/list?product=p1&key="+site["key"].(string), nil, page)
	}
	write := func() apptest.Response {
		return env.Do("POST", "/v1/views", map[string]any{"product": "p1"}, map[string]string{"Origin": "https://shop.example",
			"X-Service-Site-Key": site["key"].(string)})
	}
	signIn := func() apptest.Response {
		return env.Do("POST", "/admin/v1/session", map[string]string{"username": "olga", "password": "Quiet-Lantern-77"}, nil)
	}
	// The storefront's cached answers learn of a change made by another process (the
	// console command) within a moment: wait for the state, then it holds.
	becomes := func(what string, do func() apptest.Response, status int, code string) {
		t.Helper()
		apptest.Eventually(t, what, 10*time.Second, func() (bool, string) {
			res := do()
			return res.Status == status && (code == "" || res.Code() == code), res.String()
		})
		apptest.Expect(t, do(), status, code)
	}
	writeBefore := write()
	if writeBefore.Status >= 400 && writeBefore.Code() == "refused / tenant_inactive" {
		t.Fatalf("active brand refused: %s", writeBefore)
	}
	apptest.Expect(t, env.Do("GET", "/admin/v1/reviews", nil, key), 200, "")
	apptest.Expect(t, read(), 200, "")

	var st map[string]any
	mustJSON(t, dir, &st, "brand", "freeze")
	if st["state"] != "frozen" {
		t.Fatalf("freeze: %v", st)
	}
	apptest.Expect(t, env.Do("GET", "/admin/v1/reviews", nil, key), 403, "forbidden / brand_inactive")
	apptest.Expect(t, env.Do("GET", "/admin/v1/settings", nil, key), 403, "forbidden / brand_inactive")
	in := signIn()
	apptest.Expect(t, in, 200, "")
	// The web panel's pages and forms are refused the same way; signing out works.
	var cookie string
	for _, c := range (&http.Response{Header: in.Header}).Cookies() {
		if c.Name == access.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	panel := map[string]string{"Cookie": cookie, "X-Service-CSRF": fmt.Sprint(in.JSON["csrf_token"]), "Accept": "application/json"}
	apptest.Expect(t, env.Do("GET", "/panel/", nil, panel), 403, "forbidden / brand_inactive")
	apptest.Expect(t, env.Do("GET", "/panel/settings", nil, panel), 403, "forbidden / brand_inactive")
	apptest.Expect(t, env.Do("GET", "/admin/v1/users", nil, panel), 403, "forbidden / brand_inactive")
	apptest.Expect(t, env.Do("POST", "/panel/sign-out", nil, panel), 200, "")
	apptest.Expect(t, read(), 200, "")
	apptest.Expect(t, write(), 403, "refused / tenant_inactive")

	mustJSON(t, dir, &st, "brand", "close")
	apptest.Expect(t, env.Do("GET", "/admin/v1/reviews", nil, key), 403, "forbidden / brand_inactive")
	becomes("a closed brand's storefront read refused", read, 403, "refused / tenant_inactive")
	apptest.Expect(t, write(), 403, "refused / tenant_inactive")
	apptest.Expect(t, signIn(), 200, "")

	mustJSON(t, dir, &st, "brand", "reopen")
	if st["state"] != "active" {
		t.Fatalf("reopen: %v", st)
	}
	apptest.Expect(t, env.Do("GET", "/admin/v1/reviews", nil, key), 200, "")
	becomes("a reopened brand's storefront read answered", read, 200, "")
	if res := write(); res.Status != writeBefore.Status {
		t.Fatalf("write after reopening: %s, before freezing: %s", res, writeBefore)
	}
	mustJSON(t, dir, &st, "brand", "status")
	if st["state"] != "active" {
		t.Fatalf("status: %v", st)
	}
}

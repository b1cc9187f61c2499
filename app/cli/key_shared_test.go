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

// TestKeysSharedWithConsole (issue scope: the CLI keeps working on the same rows):
// a server key made in the panel is listed by `reviewd key list` with its last use
// and revoked by `reviewd key revoke`; a key made by the console is listed and
// revoked over HTTP.
func TestKeysSharedWithConsole(t *testing.T) {
	dir := t.TempDir()
	createChannel(t, dir, "web-tr", "TR", "tr")
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) { c.DataDir = dir })
	env.User(access.NewUser{Username: "olga", Email: "olga@shop.example", Role: "owner", Password: "Quiet-Lantern-77"})
	in := env.Do("POST", "/admin/v1/session", map[string]string{"username": "olga", "password": "Quiet-Lantern-77"}, nil)
	apptest.Expect(t, in, 200, "")
	var cookie string
	for _, c := range (&http.Response{Header: in.Header}).Cookies() {
		if c.Name == access.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	panel := map[string]string{"Cookie": cookie, "X-Service-CSRF": fmt.Sprint(in.JSON["csrf_token"])}

	made := env.Do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "shop server", "channel": "web-tr"}, panel)
	apptest.Expect(t, made, 201, "")
	id, secret := made.JSON["id"].(string), made.JSON["key"].(string)
	ingest := func() apptest.Response {
		return env.Do("POST", "/v1/ingest/orders", map[string]any{"orders": []any{}}, map[string]string{"Authorization": "Bearer " + secret})
	}
	apptest.Expect(t, ingest(), 400, "invalid / field_missing: orders")
	row := func(id string) map[string]any {
		var list []map[string]any
		mustJSON(t, dir, &list, "key", "list")
		for _, k := range list {
			if k["id"] == id {
				return k
			}
		}
		t.Fatalf("key list lacks %s: %v", id, list)
		return nil
	}
	apptest.Eventually(t, "the console to list the panel's key with its last use", 5*time.Second, func() (bool, string) {
		k := row(id)
		return k["kind"] == "server" && k["label"] == "shop server" && k["channel"] == "web-tr" && k["last_used_at"] != nil, fmt.Sprint(k)
	})
	mustRun(t, dir, "key", "revoke", id)
	apptest.Expect(t, ingest(), 401, "refused / revoked_key")

	var k struct{ ID string }
	mustJSON(t, dir, &k, "key", "create", "--kind", "site", "--channel", "web-tr", "--label", "pages")
	list := env.Do("GET", "/admin/v1/keys?q="+k.ID, nil, panel)
	apptest.Expect(t, list, 200, "")
	if items := list.JSON["items"].([]any); len(items) != 1 || items[0].(map[string]any)["label"] != "pages" {
		t.Fatalf("panel list of the console's key: %s", list)
	}
	apptest.Expect(t, env.Do("DELETE", "/admin/v1/keys/"+k.ID, nil, panel), 204, "")
	if r := row(k.ID); r["revoked_at"] == nil {
		t.Fatalf("console list after revoking over HTTP: %v", r)
	}
}

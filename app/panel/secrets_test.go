package panel_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
)

// TestSecretsPage: a signing password made from the form is shown once and never
// again, the list shows its row, the delete confirmation's button revokes it, a
// viewer is refused, and the page speaks Turkish too.
func TestSecretsPage(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "secrets page", b.do("GET", "/panel/secrets", nil, nil), 200, `action="/panel/secrets"`)
	expectPage(t, "secrets page in Turkish", b.do("GET", "/panel/secrets", nil, map[string]string{"Accept-Language": "tr-TR"}), 200, "İmza parolaları")
	expectPage(t, "keys page links it", b.do("GET", "/panel/keys", nil, nil), 200, `href="/panel/secrets"`)

	p := b.do("POST", "/panel/secrets", url.Values{"csrf": {csrf}, "purpose": {"signing"}, "channel": {"web"}}, nil)
	expectPage(t, "new signing password", p, 200, `id="new-secret"`)
	secret := regexp.MustCompile(`id="new-secret">([^<]+)<`).FindStringSubmatch(p.body)[1]
	ps, err := f.env.App.Passwords.ListPasswords(context.Background())
	if err != nil || len(ps) != 1 || ps[0].Purpose != "signing" || ps[0].Channel != "web" {
		t.Fatalf("passwords after the form: %+v %v", ps, err)
	}
	id := ps[0].ID
	if got, _ := f.env.App.Passwords.PasswordSecret(ps[0].Password); string(got) != secret {
		t.Fatal("the shown password is not the stored one")
	}
	again := b.do("GET", "/panel/secrets", nil, nil)
	expectPage(t, "list", again, 200, `data-secret="`+id+`"`)
	if strings.Contains(again.body, secret) {
		t.Fatal("the password is shown again on the next visit")
	}
	expectPage(t, "mail_events with a bad purpose", b.do("POST", "/panel/secrets", url.Values{"csrf": {csrf}, "purpose": {"notification"}}, nil), 400, "purpose")

	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer page", viewer.do("GET", "/panel/secrets", nil, nil), 403, "scope_missing")
	expectPage(t, "viewer delete", viewer.do("POST", "/panel/secrets/"+id+"/delete", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")

	posted(t, "delete", b.do("POST", "/panel/secrets/"+id+"/delete", url.Values{"csrf": {csrf}}, nil), "/panel/secrets?notice=secret_deleted")
	if ps, _ := f.env.App.Passwords.ListPasswords(context.Background()); len(ps) != 1 || ps[0].RevokedAt.IsZero() {
		t.Fatalf("the password is not revoked: %+v", ps)
	}
	expectPage(t, "after delete", b.do("GET", "/panel/secrets", nil, nil), 200, "Revoked")
}

// TestDiagnosticsWarnsOfPlainReplica: with replica.endpoint plain http to another
// machine, the diagnostics page warns who may change settings (in their language),
// not a viewer; an https endpoint is not warned about.
func TestDiagnosticsWarnsOfPlainReplica(t *testing.T) {
	for _, endpoint := range []string{"http://minio.internal:9000", "https://minio.internal:9000"} {
		env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
			c.Replica.URL, c.Replica.Endpoint = "s3://reviews/prod", endpoint
		})
		env.User(access.NewUser{Username: "olive", Email: "olive@example.com", Role: "owner", Password: "owner-password-1"})
		env.User(access.NewUser{Username: "victor", Email: "victor@example.com", Role: "viewer", Password: "viewer-password-1"})
		owner, viewer := newBrowser(t, env), newBrowser(t, env)
		owner.signIn("olive", "owner-password-1")
		viewer.signIn("victor", "viewer-password-1")
		page := owner.do("GET", "/panel/diagnostics", nil, nil)
		tr := owner.do("GET", "/panel/diagnostics", nil, map[string]string{"Accept-Language": "tr-TR"})
		plain := strings.HasPrefix(endpoint, "http:")
		if strings.Contains(page.body, "data-replica-warning") != plain || strings.Contains(page.body, endpoint+" is plain http") != plain ||
			strings.Contains(tr.body, "düz http") != plain {
			t.Fatalf("%s: owner's diagnostics page: %d %s", endpoint, page.status, page.body)
		}
		if v := viewer.do("GET", "/panel/diagnostics", nil, nil); v.status != 200 || strings.Contains(v.body, "data-replica-warning") {
			t.Fatalf("%s: viewer's diagnostics page: %d", endpoint, v.status)
		}
	}
}

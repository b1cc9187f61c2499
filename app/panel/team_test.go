package panel_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/app/platform/platformtest"
)

// expectPage fails unless a page answered status with want in its body.
func expectPage(t *testing.T, what string, p page, status int, want string) {
	t.Helper()
	if p.status != status || !strings.Contains(p.body, want) {
		t.Fatalf("%s: %d (want %d with %q)\n%.1500s", what, p.status, status, want, p.body)
	}
}

// posted fails unless a form post redirected to location.
func posted(t *testing.T, what string, p page, location string) {
	t.Helper()
	if p.status != http.StatusSeeOther || p.location != location {
		t.Fatalf("%s: %d %q (want 303 %q)\n%.1500s", what, p.status, p.location, location, p.body)
	}
}

// TestKeysPage: a site key and an API key made from forms show their secret once,
// a revoke form revokes, a form without CSRF and a viewer's forged post are
// refused, and a viewer is not offered the page.
func TestKeysPage(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "keys page", b.do("GET", "/panel/keys", nil, nil), 200, `action="/panel/keys/webhook-secret"`)
	expectPage(t, "keys page in Turkish", b.do("GET", "/panel/keys", nil, map[string]string{"Accept-Language": "tr-TR"}), 200, "Anahtarlar ve gizli değerler")

	p := b.do("POST", "/panel/keys", url.Values{"csrf": {csrf}, "channel": {"web"}, "label": {"shop widget"}}, nil)
	expectPage(t, "site key", p, 200, `id="new-secret"`)
	secret := regexp.MustCompile(`id="new-secret">([^<]+)<`).FindStringSubmatch(p.body)[1]
	if again := b.do("GET", "/panel/keys", nil, nil); strings.Contains(again.body, `id="new-secret"`) {
		t.Fatal("the secret is shown again on the next visit")
	}
	keys, err := f.env.App.Access.ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, k := range keys {
		if k.Label == "shop widget" && k.Kind == access.KindSite && k.SiteKey == secret {
			id = k.PublicID
		}
	}
	if id == "" {
		t.Fatalf("no site key with the shown secret: %+v", keys)
	}

	api := b.do("POST", "/panel/keys/api", url.Values{"csrf": {csrf}, "label": {"erp"}, "scopes_shown": {"1"}, "scopes": {"read"}}, nil)
	expectPage(t, "api key", api, 200, `id="new-secret"`)
	apiSecret := regexp.MustCompile(`id="new-secret">([^<]+)<`).FindStringSubmatch(api.body)[1]
	if res := f.env.Do("GET", "/admin/v1/reviews", nil, map[string]string{"Authorization": "Api-Key " + apiSecret}); res.Status != 200 {
		t.Fatalf("the shown API key does not read: %d", res.Status)
	}
	// A server key of a channel: the server-key form sends no scopes; the key is
	// shown once and sends orders.
	expectPage(t, "server key form", b.do("GET", "/panel/keys", nil, nil), 200, "New server key")
	srv := b.do("POST", "/panel/keys/api", url.Values{"csrf": {csrf}, "label": {"shop server"}, "channel": {"web"}}, nil)
	expectPage(t, "server key", srv, 200, `id="new-secret"`)
	srvSecret := regexp.MustCompile(`id="new-secret">([^<]+)<`).FindStringSubmatch(srv.body)[1]
	if k, detail, err := f.env.App.Access.LookupKey(context.Background(), srvSecret); err != nil || detail != "" ||
		k.Kind != access.KindServer || k.ChannelID != f.ch.ID || !strings.HasPrefix(srvSecret, "rvd_srv_") {
		t.Fatalf("the shown server key: %+v %s %v", k, detail, err)
	}
	expectPage(t, "webhook secret", b.do("POST", "/panel/keys/webhook-secret", url.Values{"csrf": {csrf}}, nil), 200, `id="new-secret"`)

	// Refusals: no CSRF token; a viewer's forged post; a viewer's page.
	expectPage(t, "revoke without csrf", b.do("POST", "/panel/keys/"+id+"/revoke", url.Values{}, nil), 403, "csrf_missing")
	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer revoke", viewer.do("POST", "/panel/keys/"+id+"/revoke", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")
	expectPage(t, "viewer keys page", viewer.do("GET", "/panel/keys", nil, nil), 403, "scope_missing")
	if ov := viewer.do("GET", "/panel/", nil, nil); strings.Contains(ov.body, `href="/panel/keys"`) {
		t.Fatal("a viewer is offered the keys page")
	}

	// Revoking asks first: the keys page links to a page that says what stops
	// working; a post without the ticked box revokes nothing.
	expectPage(t, "revoke link", b.do("GET", "/panel/keys", nil, nil), 200, `href="/panel/keys/`+id+`/revoke"`)
	confirm := b.do("GET", "/panel/keys/"+id+"/revoke", nil, nil)
	expectPage(t, "revoke page", confirm, 200, "every product page of the channel web that embeds this site key shows no reviews any more")
	expectPage(t, "revoke box", confirm, 200, `<input type="checkbox" name="confirm" value="1" required>`)
	expectPage(t, "revoke page in Turkish", b.do("GET", "/panel/keys/"+id+"/revoke", nil, map[string]string{"Accept-Language": "tr"}), 200,
		"web kanalında bu site anahtarını kullanan her ürün sayfası artık yorum göstermez")
	expectPage(t, "revoke unticked", b.do("POST", "/panel/keys/"+id+"/revoke", url.Values{"csrf": {csrf}}, nil), 400,
		"Tick the box to confirm; nothing was changed.")
	keys, _ = f.env.App.Access.ListKeys(context.Background())
	for _, k := range keys {
		if k.PublicID == id && !k.RevokedAt.IsZero() {
			t.Fatal("a post without the ticked box revoked the key")
		}
	}
	posted(t, "revoke", b.do("POST", "/panel/keys/"+id+"/revoke", url.Values{"csrf": {csrf}, "confirm": {"1"}}, nil), "/panel/keys?notice=key_revoked")
	expectPage(t, "revoke page of a revoked key", b.do("GET", "/panel/keys/"+id+"/revoke", nil, nil), 404, "not_found")
	keys, _ = f.env.App.Access.ListKeys(context.Background())
	for _, k := range keys {
		if k.PublicID == id && k.RevokedAt.IsZero() {
			t.Fatal("the key is not revoked")
		}
	}
	expectPage(t, "keys after revoke", b.do("GET", "/panel/keys", nil, nil), 200, "Revoked")
}

// TestAccountPage: two-step sign-in turned on with the shown secret (QR code and
// text) and a real passcode, then off; e-mail and password changes with the
// current password; a wrong one gets the service's error.
func TestAccountPage(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("victor", "viewer-password-1") // every role manages its own account
	expectPage(t, "account", b.do("GET", "/panel/account", nil, nil), 200, `action="/panel/account/second-step"`)
	expectPage(t, "start without csrf", b.do("POST", "/panel/account/second-step", url.Values{}, nil), 403, "csrf_missing")
	p := b.do("POST", "/panel/account/second-step", url.Values{"csrf": {csrf}}, nil)
	expectPage(t, "start", p, 200, `src="data:image/png;base64,`)
	secret := regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`).FindStringSubmatch(p.body)[1]
	expectPage(t, "wrong passcode", b.do("POST", "/panel/account/second-step/confirm", url.Values{"csrf": {csrf}, "passcode": {"000000"}}, nil),
		400, "passcode")
	code, _ := totp.GenerateCode(secret, f.env.Clock.Now())
	posted(t, "confirm", b.do("POST", "/panel/account/second-step/confirm", url.Values{"csrf": {csrf}, "passcode": {code}}, nil),
		"/panel/account?notice=second_step_on")
	expectPage(t, "account with two-step", b.do("GET", "/panel/account", nil, nil), 200, `action="/panel/account/second-step/off"`)
	u, _ := f.env.App.DB.Read().UserByUsername(context.Background(), "victor")
	if !u.TOTPOn {
		t.Fatal("two-step is not on")
	}
	f.env.Clock.T = f.env.Clock.T.Add(time.Minute) // a passcode is taken once
	code, _ = totp.GenerateCode(secret, f.env.Clock.Now())
	posted(t, "off", b.do("POST", "/panel/account/second-step/off", url.Values{"csrf": {csrf}, "passcode": {code}}, nil),
		"/panel/account?notice=second_step_off")

	expectPage(t, "e-mail with a wrong password", b.do("POST", "/panel/account/email", url.Values{"csrf": {csrf}, "current": {"nope"},
		"email": {"v2@example.com"}}, nil), 400, "invalid / current_password")
	posted(t, "e-mail", b.do("POST", "/panel/account/email", url.Values{"csrf": {csrf}, "current": {"viewer-password-1"},
		"email": {"v2@example.com"}}, nil), "/panel/account?notice=email_changed")
	posted(t, "password", b.do("POST", "/panel/account/password", url.Values{"csrf": {csrf}, "current_password": {"viewer-password-1"},
		"password": {"a-new-long-passphrase-2"}}, nil), "/panel/account?notice=password_changed")
	u, _ = f.env.App.DB.Read().UserByUsername(context.Background(), "victor")
	if u.Email != "v2@example.com" || u.TOTPOn {
		t.Fatalf("after the changes: %+v", u)
	}
	newBrowser(t, f.env).signIn("victor", "a-new-long-passphrase-2")
}

// TestUsersPage: an owner adds a member, changes a role, sends a link and removes
// the member; a manager (no users permission) is refused the page and the forms.
func TestUsersPage(t *testing.T) {
	f := newFixture(t)
	f.env.User(access.NewUser{Username: "mona", Email: "mona@example.com", Role: "manager", Password: "manager-password-1"})
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	posted(t, "add", b.do("POST", "/panel/users", url.Values{"csrf": {csrf}, "username": {"nadia"}, "email": {"nadia@example.com"},
		"role": {"moderator"}}, nil), "/panel/users?notice=user_added")
	u, err := f.env.App.DB.Read().UserByUsername(context.Background(), "nadia")
	if err != nil || u.Role != "moderator" {
		t.Fatalf("added member: %+v %v", u, err)
	}
	id := strconv.FormatInt(u.ID, 10)
	expectPage(t, "users", b.do("GET", "/panel/users", nil, nil), 200, "nadia@example.com")
	expectPage(t, "bad role", b.do("POST", "/panel/users/"+id+"/role", url.Values{"csrf": {csrf}, "role": {"king"}}, nil), 400, "invalid / role")
	posted(t, "role", b.do("POST", "/panel/users/"+id+"/role", url.Values{"csrf": {csrf}, "role": {"viewer"}}, nil), "/panel/users?notice=saved")
	posted(t, "link", b.do("POST", "/panel/users/"+id+"/password-link", url.Values{"csrf": {csrf}}, nil), "/panel/users?notice=link_sent")

	m := newBrowser(t, f.env)
	mcsrf := m.signIn("mona", "manager-password-1")
	expectPage(t, "manager users page", m.do("GET", "/panel/users", nil, nil), 403, "scope_missing")
	expectPage(t, "manager role change", m.do("POST", "/panel/users/"+id+"/role", url.Values{"csrf": {mcsrf}, "role": {"owner"}}, nil), 403, "scope_missing")
	expectPage(t, "manager remove", m.do("POST", "/panel/users/"+id+"/remove", url.Values{"csrf": {mcsrf}}, nil), 403, "scope_missing")

	posted(t, "remove", b.do("POST", "/panel/users/"+id+"/remove", url.Values{"csrf": {csrf}}, nil), "/panel/users?notice=user_removed")
	if p := b.do("GET", "/panel/users", nil, nil); strings.Contains(p.body, "nadia@example.com") {
		t.Fatal("the removed member is listed")
	}
}

// TestChannelsPage: a domain added from the form shows its file and TXT
// instructions; a check before the file is there shows the refusal with the
// instructions; with the file on the website the check verifies it. A viewer sees
// the channels without forms and a forged post is refused.
func TestChannelsPage(t *testing.T) {
	var mu sync.Mutex
	body := ""
	files := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if body == "" || r.URL.Path != "/.well-known/service-verification.txt" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}), "files.example")
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.Outbound.Resolve = []string{"files.example:443=127.0.0.1:" + files.Port}
		c.Outbound.CAFile = files.CAFile
	})
	env.Channel("web", "GB", "en")
	env.User(access.NewUser{Username: "olive", Email: "olive@example.com", Role: "owner", Password: "owner-password-1"})
	env.User(access.NewUser{Username: "victor", Email: "victor@example.com", Role: "viewer", Password: "viewer-password-1"})
	b := newBrowser(t, env)
	csrf := b.signIn("olive", "owner-password-1")
	p := b.do("POST", "/panel/channels/web/domains", url.Values{"csrf": {csrf}, "domain": {"Files.example"}}, nil)
	expectPage(t, "add domain", p, 200, "https://files.example/.well-known/service-verification.txt")
	expectPage(t, "txt name", p, 200, "_service-verification.files.example")
	token := regexp.MustCompile(`reviewd-verification=[0-9a-f]+`).FindString(p.body)
	if token == "" {
		t.Fatalf("no token shown\n%.2000s", p.body)
	}
	verify := url.Values{"csrf": {csrf}, "method": {"file"}}
	p = b.do("POST", "/panel/channels/web/domains/files.example/verify", verify, nil)
	expectPage(t, "refused proof", p, 400, "proof_not_found")
	expectPage(t, "refused proof instructions", p, 400, token)
	mu.Lock()
	body = token + "\n"
	mu.Unlock()
	posted(t, "verify", b.do("POST", "/panel/channels/web/domains/files.example/verify", verify, nil), "/panel/channels?notice=domain_verified")
	expectPage(t, "channels", b.do("GET", "/panel/channels", nil, nil), 200, "files.example</code> <span class=\"tag\">Verified")

	viewer := newBrowser(t, env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	vp := viewer.do("GET", "/panel/channels", nil, nil)
	expectPage(t, "viewer channels", vp, 200, "files.example")
	if strings.Contains(vp.body, `method="post" action="/panel/channels`) {
		t.Fatal("a viewer is offered channel forms")
	}
	expectPage(t, "viewer domain remove", viewer.do("POST", "/panel/channels/web/domains/files.example/remove", url.Values{"csrf": {vcsrf}}, nil),
		403, "scope_missing")
	posted(t, "remove", b.do("POST", "/panel/channels/web/domains/files.example/remove", url.Values{"csrf": {csrf}}, nil),
		"/panel/channels?notice=domain_removed")
}

// TestNewPagesNeedASession: without a session every page goes to sign-in and
// every form is refused before it acts.
func TestNewPagesNeedASession(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	for _, path := range []string{"/panel/account", "/panel/users", "/panel/keys", "/panel/channels", "/panel/privacy",
		"/panel/privacy/dsr_1", "/panel/access-log", "/panel/audit-log", "/panel/connections", "/panel/diagnostics",
		"/panel/marketplace", "/panel/marketplace/mks_1", "/panel/marketplace/reviews", "/panel/rules", "/panel/terms", "/panel/rating-topics"} {
		p := b.do("GET", path, nil, nil)
		if p.status != http.StatusSeeOther || p.location != "/panel/sign-in?next="+url.QueryEscape(path) {
			t.Errorf("GET %s without a session: %d %q", path, p.status, p.location)
		}
	}
	for _, path := range []string{"/panel/keys", "/panel/users", "/panel/channels/web/domains", "/panel/privacy", "/panel/terms",
		"/panel/connections", "/panel/account/second-step"} {
		if p := b.do("POST", path, url.Values{"csrf": {"x"}}, nil); p.status != http.StatusSeeOther ||
			!strings.HasPrefix(p.location, "/panel/sign-in") {
			t.Errorf("POST %s without a session: %d %q", path, p.status, p.location)
		}
	}
	keys, _ := f.env.App.Access.ListKeys(context.Background())
	if len(keys) != 0 {
		t.Fatalf("a form without a session made a key: %+v", keys)
	}
}

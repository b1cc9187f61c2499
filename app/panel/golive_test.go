package panel_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/channels"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/app/media"
	"reviewd/app/platform/platformtest"
	"reviewd/app/sendtest"
	"reviewd/jobs"
	"reviewd/store"
	"reviewd/store/storetest"
)

// goLive is an installation whose channel "web" has no domain yet, with a site
// serving domain proofs at https://files.example, an in-process SMTP server, an
// owner and a manager.
type goLive struct {
	t     *testing.T
	env   *apptest.Env
	smtp  *sendtest.SMTPServer
	proof func(body string)
}

func newGoLive(t *testing.T) *goLive {
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
	if _, err := env.App.Channels.CreateChannel(context.Background(), core.Console(), channels.NewChannel{Code: "web",
		Market: "GB", Language: "en", Label: "web store", BrandName: "Acme", LandingURL: "https://files.example/review"}); err != nil {
		t.Fatal(err)
	}
	env.User(access.NewUser{Username: "olive", Email: "olive@example.com", Role: "owner", Password: "owner-password-1"})
	env.User(access.NewUser{Username: "mona", Email: "mona@example.com", Role: "manager", Password: "manager-password-1"})
	return &goLive{t: t, env: env, smtp: sendtest.StartSMTP(t), proof: func(s string) { mu.Lock(); body = s; mu.Unlock() }}
}

// steps reads the checklist page's step states: key -> done.
func steps(t *testing.T, p page) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`data-step="([a-z]+)" data-done="(true|false)"`).FindAllStringSubmatch(p.body, -1) {
		out[m[1]] = m[2] == "true"
	}
	if len(out) != 6 {
		t.Fatalf("checklist steps %v\n%.3000s", out, p.body)
	}
	return out
}

func wantSteps(t *testing.T, what string, b *browser, done ...string) {
	t.Helper()
	got := steps(t, b.do("GET", "/panel/go-live", nil, nil))
	for k, v := range got {
		want := false
		for _, d := range done {
			want = want || d == k
		}
		if v != want {
			t.Fatalf("%s: step %s done=%v, want %v (%v)", what, k, v, want, got)
		}
	}
}

// siteList asks the reviews of a product as a page on origin does.
func siteList(t *testing.T, env *apptest.Env, key, origin string) apptest.Response {
	t.Helper()
	return env.Do("GET", "/v1/reviews/list?product=SKU-1", nil, map[string]string{"X-Service-Site-Key": key, "Origin": origin})
}

// TestGoLiveChecklist: a new brand's owner lands on the checklist after sign-in;
// every step flips to done only when the server sees its condition met (a
// verified domain, both keys, the site key used by a page, a test message that
// went, an order ingested, a review); then sign-in opens the overview and the
// checklist stays reachable.
func TestGoLiveChecklist(t *testing.T) {
	g := newGoLive(t)
	ctx, a := context.Background(), g.env.App
	b := newBrowser(t, g.env)
	form := b.do("GET", "/panel/sign-in", nil, nil)
	res := b.do("POST", "/panel/sign-in", url.Values{"csrf": {form.csrf(t)}, "username": {"olive"}, "password": {"owner-password-1"},
		"next": {"/panel/"}}, nil)
	if res.status != http.StatusSeeOther || res.location != "/panel/go-live" {
		t.Fatalf("first sign-in lands on %d %q, want the checklist", res.status, res.location)
	}
	p := b.do("GET", "/panel/go-live", nil, nil)
	csrf := p.csrf(t)
	expectPage(t, "checklist", p, 200, "6 steps left")
	wantSteps(t, "new brand", b)
	expectPage(t, "turkish", b.do("GET", "/panel/go-live", nil, map[string]string{"Accept-Language": "tr"}), 200, "Mağazanızın alan adını doğrulayın")

	// The domain: added, its proof shown on the checklist, then verified by file.
	b.do("POST", "/panel/channels/web/domains", url.Values{"csrf": {csrf}, "domain": {"files.example"}}, nil)
	p = b.do("GET", "/panel/go-live", nil, nil)
	expectPage(t, "proof file", p, 200, "https://files.example/.well-known/service-verification.txt")
	expectPage(t, "proof record", p, 200, "_service-verification.files.example")
	token := regexp.MustCompile(`reviewd-verification=[0-9a-f]+`).FindString(p.body)
	if token == "" {
		t.Fatal("no proof token on the checklist")
	}
	wantSteps(t, "domain added, not proved", b)
	g.proof(token)
	posted(t, "verify", b.do("POST", "/panel/channels/web/domains/files.example/verify", url.Values{"csrf": {csrf}, "method": {"file"}}, nil),
		"/panel/channels?notice=domain_verified")
	wantSteps(t, "domain verified", b, "domain")

	// Keys: a site key alone is not the step; with a server key it is.
	p = b.do("POST", "/panel/keys", url.Values{"csrf": {csrf}, "channel": {"web"}, "label": {"Shop"}}, nil)
	site := regexp.MustCompile(`id="new-secret">([^<]+)<`).FindStringSubmatch(p.body)
	if site == nil {
		t.Fatalf("no site key shown\n%.1500s", p.body)
	}
	wantSteps(t, "site key only", b, "domain")
	p = b.do("POST", "/panel/keys/api", url.Values{"csrf": {csrf}, "channel": {"web"}, "label": {"Store server"}}, nil)
	server := regexp.MustCompile(`id="new-secret">([^<]+)<`).FindStringSubmatch(p.body)
	if server == nil {
		t.Fatalf("no server key shown\n%.1500s", p.body)
	}
	wantSteps(t, "both keys", b, "domain", "keys")

	// The snippets of the product and the listing page carry the site key; the
	// step is done once a page on the verified domain used it.
	p = b.do("GET", "/panel/go-live", nil, nil)
	expectPage(t, "product snippet", p, 200, `data-review-product=&#34;YOUR-PRODUCT-CODE&#34;`)
	expectPage(t, "listing snippet", p, 200, `data-review-badge=&#34;stars&#34;`)
	expectPage(t, "snippet key", p, 200, `data-key=&#34;`+site[1])
	// A page on a domain not verified uses the key but is refused: not done.
	if r := siteList(t, g.env, site[1], "https://elsewhere.example"); r.Status != 403 {
		t.Fatalf("an unverified page's list: %s", r)
	}
	apptest.Eventually(t, "the refusal counted", 5*time.Second, func() (bool, string) {
		rs, _ := a.DB.Read().ComponentRefusals(ctx, time.Time{})
		return len(rs) == 1, "no refusal row"
	})
	wantSteps(t, "used from a wrong domain", b, "domain", "keys")
	// The component on the verified domain: it reads the list and counts its view.
	if r := siteList(t, g.env, site[1], "https://files.example"); r.Status != 200 {
		t.Fatalf("the page's list: %s", r)
	}
	wantSteps(t, "listed, no view counted yet", b, "domain", "keys")
	if r := g.env.Do("POST", "/v1/views", map[string]any{"product": "SKU-1", "scope": "variant", "shown": "default"}, map[string]string{
		"X-Service-Site-Key": site[1], "Origin": "https://files.example", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36"}); r.Status >= 300 {
		t.Fatalf("view: %s", r)
	}
	apptest.Eventually(t, "the site key's use", 5*time.Second, func() (bool, string) {
		s := steps(t, b.do("GET", "/panel/go-live", nil, nil))
		return s["embed"], "embed not done"
	})

	// Sending: the mail server set in the panel and a test message that went.
	posted(t, "mail server", b.do("POST", "/panel/mail", url.Values{"csrf": {csrf}, "host": {"127.0.0.1"},
		"port": {strconv.Itoa(g.smtp.Port)}, "security": {"none"}, "from": {"reviews@files.example"}}, nil), "/panel/mail?notice=mail_saved")
	wantSteps(t, "mail server saved, not tried", b, "domain", "keys", "embed")
	expectPage(t, "test message", b.do("POST", "/panel/mail/test", url.Values{"csrf": {csrf}}, nil), 200, `data-mail-test="ok"`)
	wantSteps(t, "test message went", b, "domain", "keys", "embed", "sending")

	// A test order from the store's server, then the first review.
	delivered := g.env.Clock.Now().Add(-24 * time.Hour)
	if r := g.env.Do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "external_id": "TEST-1", "payment_state": "paid",
		"placed_at": delivered.Add(-48 * time.Hour).Format(time.RFC3339), "customer_email": "c@example.com", "language": "en",
		"items": []map[string]any{{"line_reference": "1", "variant_key": "SKU-1", "title": "Mug", "fulfilment_state": "delivered",
			"delivered_at": delivered.Format(time.RFC3339)}}}, map[string]string{"Authorization": "Bearer " + server[1]}); r.Status >= 300 {
		t.Fatalf("test order: %s", r)
	}
	wantSteps(t, "order in", b, "domain", "keys", "embed", "sending", "order")
	ch, _ := a.DB.Read().ChannelByCode(ctx, "web")
	if err := a.DB.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.CreateReview(ctx, store.Review{PublicID: reviews.NewReviewID(), ChannelID: ch.ID, Market: "GB", Language: "en",
			VariantKey: "SKU-1", ProductName: "Mug", Experience: core.ExperienceProduct, Origin: core.OriginOwn,
			State: core.ReviewPending, Rating: 5, Title: "First", Body: "The first review.", AuthorName: "C", SubmittedAt: tx.Now})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantSteps(t, "all", b, "domain", "keys", "embed", "sending", "order", "review")
	expectPage(t, "done", b.do("GET", "/panel/go-live", nil, nil), 200, "data-golive-done")

	// Live: sign-in opens the overview; the checklist stays in the navigation.
	b2 := newBrowser(t, g.env)
	form = b2.do("GET", "/panel/sign-in", nil, nil)
	res = b2.do("POST", "/panel/sign-in", url.Values{"csrf": {form.csrf(t)}, "username": {"olive"}, "password": {"owner-password-1"},
		"next": {"/panel/"}}, nil)
	if res.location != "/panel/" {
		t.Fatalf("sign-in of a live brand lands on %q", res.location)
	}
	ov := b2.do("GET", "/panel/", nil, nil)
	expectPage(t, "overview link", ov, 200, `<a href="/panel/go-live">Go-live checklist</a>`)
	expectPage(t, "settings menu", b2.do("GET", "/panel/settings", nil, nil), 200, `<a href="/panel/go-live">Go live</a>`)
}

// alertKinds reads the kinds of the owner alerts on the overview.
func alertKinds(t *testing.T, b *browser) (map[string]bool, string) {
	t.Helper()
	p := b.do("GET", "/panel/", nil, nil)
	if p.status != 200 {
		t.Fatalf("overview: %d", p.status)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`data-alert="([a-z_]+)"`).FindAllStringSubmatch(p.body, -1) {
		out[m[1]] = true
	}
	return out, p.body
}

func wantAlert(t *testing.T, b *browser, kind string, on bool, text string) {
	t.Helper()
	got, body := alertKinds(t, b)
	if got[kind] != on {
		t.Fatalf("alert %s shown=%v, want %v (%v)", kind, got[kind], on, got)
	}
	if on && text != "" && !strings.Contains(body, text) {
		t.Fatalf("alert %s without %q\n%.3000s", kind, text, body)
	}
}

// TestOwnerAlerts: each owner alert appears on the overview when its condition
// holds and clears by itself when it ends; the owners get them by e-mail at most
// once a day per kind.
func TestOwnerAlerts(t *testing.T) {
	g := newGoLive(t)
	ctx, a, env := context.Background(), g.env.App, g.env
	b := newBrowser(t, env)
	b.signIn("olive", "owner-password-1")
	site := env.Key(access.KindSite, "web")

	// A page on a domain not verified: counted per host, named with the count;
	// verifying the domain ends it.
	for i := 0; i < 3; i++ {
		if r := siteList(t, env, site, "https://files.example"); r.Status != 403 || !strings.Contains(string(r.Body), "origin_unverified") {
			t.Fatalf("unverified origin: %s", r)
		}
		if i == 0 {
			apptest.Eventually(t, "the first refusal counted", 5*time.Second, func() (bool, string) {
				got, _ := alertKinds(t, b)
				return got["origin_unverified"], "no alert"
			})
		}
	}
	env.Clock.Advance(2 * time.Minute) // the count is written at most once a minute per host
	siteList(t, env, site, "https://files.example")
	apptest.Eventually(t, "all refusals counted", 5*time.Second, func() (bool, string) {
		_, body := alertKinds(t, b)
		return strings.Contains(body, "Requests from pages on files.example refused so far: 4."), "count not 4"
	})
	wantAlert(t, b, "origin_unverified", true, "Your reviews are not shown on files.example: verify the domain")
	expectPage(t, "turkish", b.do("GET", "/panel/", nil, map[string]string{"Accept-Language": "tr"}), 200,
		"Yorumlarınız files.example üzerinde gösterilmiyor: alan adını doğrulayın.")
	csrf := b.do("GET", "/panel/channels", nil, nil).csrf(t)
	p := b.do("POST", "/panel/channels/web/domains", url.Values{"csrf": {csrf}, "domain": {"files.example"}}, nil)
	g.proof(regexp.MustCompile(`reviewd-verification=[0-9a-f]+`).FindString(p.body))
	b.do("POST", "/panel/channels/web/domains/files.example/verify", url.Values{"csrf": {csrf}, "method": {"file"}}, nil)
	wantAlert(t, b, "origin_unverified", false, "")

	// A revoked site key still in use; it clears once its use stops.
	old, err := a.Access.CreateKey(ctx, core.Console(), access.NewKey{Kind: access.KindSite, ChannelCode: "web", Label: "old"})
	if err != nil {
		t.Fatal(err)
	}
	siteList(t, env, old.Secret, "https://files.example")
	if err := a.Access.RevokeKey(ctx, core.Console(), old.PublicID); err != nil {
		t.Fatal(err)
	}
	if r := siteList(t, env, old.Secret, "https://files.example"); r.Status != 403 {
		t.Fatalf("revoked key: %s", r)
	}
	apptest.Eventually(t, "the revoked key's use counted", 5*time.Second, func() (bool, string) {
		got, _ := alertKinds(t, b)
		return got["revoked_key_used"], "no alert"
	})
	wantAlert(t, b, "revoked_key_used", true, "A revoked site key is still in use: "+old.PublicID)

	// A site key never used a week after it was made; its first use ends it. The
	// revoked key's refusals are older than the window by then.
	siteList(t, env, site, "https://files.example") // the first key is in use
	env.Clock.Advance(8 * 24 * time.Hour)
	b.signIn("olive", "owner-password-1") // the session ran out meanwhile
	unused, err := a.Access.CreateKey(ctx, core.Console(), access.NewKey{Kind: access.KindSite, ChannelCode: "web", Label: "new"})
	if err != nil {
		t.Fatal(err)
	}
	wantAlert(t, b, "revoked_key_used", false, "")
	wantAlert(t, b, "key_unused", false, "")
	env.Clock.Advance(8 * 24 * time.Hour)
	b.signIn("olive", "owner-password-1")
	wantAlert(t, b, "key_unused", true, "Site key "+unused.PublicID+" has not been used in 8 days.")
	siteList(t, env, unused.Secret, "https://files.example")
	apptest.Eventually(t, "the key's use", 5*time.Second, func() (bool, string) {
		got, _ := alertKinds(t, b)
		return !got["key_unused"], "alert stays"
	})

	// clamd and ffmpeg, as the configuration and the server have them.
	wantAlert(t, b, "clamd_missing", true, "Virus scanning of photos and videos is off.")
	a.SetScanner(&media.Scanner{Address: "tcp:127.0.0.1:3310"})
	wantAlert(t, b, "clamd_missing", false, "")
	a.SetProbe(media.Probe{FFmpeg: "/nonexistent/ffmpeg", FFprobe: "/nonexistent/ffprobe"})
	wantAlert(t, b, "ffmpeg_missing", true, "Videos cannot be processed: ffmpeg is missing.")
	a.SetProbe(media.Probe{FFmpeg: "/bin/sh", FFprobe: "/bin/sh"}) // found: what the alert checks
	wantAlert(t, b, "ffmpeg_missing", false, "")

	// The replica's last sync.
	var last time.Time
	a.GoLive.Replica = func() (time.Time, bool) { return last, true }
	last = env.Clock.Now().Add(-time.Hour)
	wantAlert(t, b, "replica_lag", true, "The replica is 60 minutes behind.")
	last = env.Clock.Now()
	wantAlert(t, b, "replica_lag", false, "")
	a.GoLive.Replica = nil

	// A store connection whose reads fail, until one succeeds.
	ch, _ := a.DB.Read().ChannelByCode(ctx, "web")
	var src store.OrderSource
	read := func(errCode string) {
		if err := a.DB.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			if src.ID == 0 {
				if src, err = tx.CreateOrderSource(ctx, store.OrderSource{Platform: "woocommerce", ChannelID: ch.ID,
					BaseURL: "https://files.example", BackfillDays: 30, IntervalMinutes: 60, Enabled: true, NextRunAt: tx.Now}); err != nil {
					return err
				}
			}
			return tx.FinishOrderSourceRead(ctx, src.ID, store.OrderSourceRead{LastRunAt: tx.Now, NextRunAt: tx.Now.Add(time.Hour),
				LastError: errCode, Failed: errCode != ""})
		}); err != nil {
			t.Fatal(err)
		}
	}
	read("credentials_refused")
	wantAlert(t, b, "connection_failing", true, "The store connection "+orders.OrderSourcePublicID(src.ID)+" keeps failing")
	read("")
	wantAlert(t, b, "connection_failing", false, "")

	// Someone who may not change settings sees no alerts.
	env.User(access.NewUser{Username: "vera", Email: "vera@example.com", Role: "viewer", Password: "viewer-password-1"})
	viewer := newBrowser(t, env)
	viewer.signIn("vera", "viewer-password-1")
	if got, _ := alertKinds(t, viewer); len(got) != 0 {
		t.Fatalf("a viewer sees alerts %v", got)
	}

	// By e-mail: to the owners only, at most once a day per kind, through the
	// cleanup job once sending works.
	a.SetScanner(&media.Scanner{})
	job := jobs.Cleanup{DB: a.DB, Alerts: a.GoLive}
	if d, err := job.Run(ctx, env.Clock.Now()); err != nil || strings.Contains(d, "owner_alerts_mailed") {
		t.Fatalf("without sending: %q %v", d, err)
	}
	a.SetMailer(g.smtp.Mailer())
	d, err := job.Run(ctx, env.Clock.Now())
	if err != nil || !strings.Contains(d, "owner_alerts_mailed=clamd_missing") {
		t.Fatalf("mailed: %q %v", d, err)
	}
	msgs := g.smtp.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "olive@example.com" || !strings.Contains(msgs[0].Text, "Virus scanning of photos and videos is off.") ||
		!strings.Contains(msgs[0].Text, "Fotoğraf ve videoların virüs taraması kapalı.") {
		t.Fatalf("alert e-mails: %+v", msgs)
	}
	env.Clock.Advance(12 * time.Hour)
	if d, _ := job.Run(ctx, env.Clock.Now()); strings.Contains(d, "owner_alerts_mailed") || len(g.smtp.Messages()) != 1 {
		t.Fatalf("mailed twice in a day: %q", d)
	}
	env.Clock.Advance(13 * time.Hour)
	if d, _ := job.Run(ctx, env.Clock.Now()); !strings.Contains(d, "owner_alerts_mailed=clamd_missing") || len(g.smtp.Messages()) != 2 {
		t.Fatalf("not mailed the next day: %q", d)
	}
}

// TestMailServerSettings: the owner sets the mail server in the panel; it is
// stored sealed (the raw row holds neither the password nor the host), the
// password is never shown back, the test message reaches the server or the page
// says why not in plain words, invitations waiting for mail go out through it
// without a restart, and only the owner may see or change it.
func TestMailServerSettings(t *testing.T) {
	g := newGoLive(t)
	ctx, a, env := context.Background(), g.env.App, g.env
	manager := newBrowser(t, env)
	mcsrf := manager.signIn("mona", "manager-password-1")
	expectPage(t, "manager page", manager.do("GET", "/panel/mail", nil, nil), 403, "scope_missing")
	expectPage(t, "manager save", manager.do("POST", "/panel/mail", url.Values{"csrf": {mcsrf}, "host": {"evil.example"},
		"from": {"a@evil.example"}}, nil), 403, "scope_missing")
	expectPage(t, "manager test", manager.do("POST", "/panel/mail/test", url.Values{"csrf": {mcsrf}}, nil), 403, "scope_missing")

	// Invitations wait: no mail server yet.
	server := env.Key(access.KindServer, "web")
	srvKey, _, _ := a.Access.LookupKey(ctx, server)
	now := env.Clock.Now()
	delivered := now.Add(-10 * 24 * time.Hour)
	if _, err := a.Orders.IngestOrders(ctx, access.KeyActor(srvKey, core.ViaServerKey), orders.OrderRequest{Channel: "web",
		Orders: []orders.OrderInput{{ExternalID: "GB-1", PaymentState: core.PaymentPaid, PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339),
			CustomerEmail: "buyer@example.com", Language: "en", Items: []orders.LineInput{{LineReference: "1", VariantKey: "SKU-1",
				CatalogID: "SKU-1", Title: "Travel mug", FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}}}}}); err != nil {
		t.Fatal(err)
	}
	if run, err := a.Sending.RunInvitations(ctx, now); err != nil || run.Deferred != 1 {
		t.Fatalf("invitations without mail: %+v %v", run, err)
	}

	b := newBrowser(t, env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "mail page", b.do("GET", "/panel/mail", nil, nil), 200, "No mail server is set")
	expectPage(t, "refused", b.do("POST", "/panel/mail", url.Values{"csrf": {csrf}, "host": {"127.0.0.1"}, "port": {"nope"},
		"security": {"none"}, "from": {"reviews@files.example"}}, nil), 400, "The port is a number")
	const password = "very-secret-smtp-password"
	posted(t, "save", b.do("POST", "/panel/mail", url.Values{"csrf": {csrf}, "host": {"127.0.0.1"}, "port": {strconv.Itoa(g.smtp.Port)},
		"security": {"none"}, "password": {password}, "from": {"reviews@files.example"}}, nil),
		"/panel/mail?notice=mail_saved")

	// At rest: one sealed value; the keyring opens it. (The test server takes no
	// login: a username would make the mailer log in, which it refuses without TLS.)
	var raw []byte
	file, err := sql.Open("sqlite", "file:"+a.DB.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if err := file.QueryRowContext(ctx, `SELECT sealed FROM mail_settings WHERE id = 1`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(password)) || bytes.Contains(raw, []byte("127.0.0.1")) || bytes.Contains(raw, []byte("files.example")) {
		t.Fatal("the mail server is stored in clear")
	}
	plain, err := a.Keys.Decrypt(raw)
	var stored map[string]any
	if err != nil || json.Unmarshal(plain, &stored) != nil || stored["password"] != password {
		t.Fatalf("sealed row: %v %v", err, stored)
	}

	// Shown back without the password.
	p := b.do("GET", "/panel/mail", nil, nil)
	expectPage(t, "placeholder", p, 200, `placeholder="set"`)
	expectPage(t, "in use", p, 200, "In use: the mail server set on this page.")
	if strings.Contains(p.body, password) {
		t.Fatal("the password is shown back")
	}

	// The waiting invitation goes out through it at its next attempt, no restart.
	env.Clock.Advance(16 * time.Minute)
	if run, err := a.Sending.RunInvitations(ctx, env.Clock.Now()); err != nil || run.Sent != 1 {
		t.Fatalf("invitations with the panel's mail server: %+v %v", run, err)
	}
	if msgs := g.smtp.Messages(); len(msgs) != 1 || msgs[0].To[0] != "buyer@example.com" || msgs[0].From != "reviews@files.example" {
		t.Fatalf("invitation e-mails: %+v", msgs)
	}

	// The test message reaches the server; the owner's own address.
	p = b.do("POST", "/panel/mail/test", url.Values{"csrf": {csrf}}, nil)
	expectPage(t, "test ok", p, 200, "The test message was handed to the mail server for olive@example.com.")
	if msgs := g.smtp.Messages(); len(msgs) != 2 || msgs[1].To[0] != "olive@example.com" || msgs[1].DecodedHeader("Subject") != "reviewd: test message" {
		t.Fatalf("test message: %+v", msgs)
	}
	// Saving without a password keeps the stored one.
	posted(t, "save again", b.do("POST", "/panel/mail", url.Values{"csrf": {csrf}, "host": {"127.0.0.1"}, "port": {strconv.Itoa(g.smtp.Port)},
		"security": {"none"}, "from": {"reviews@files.example"}}, nil), "/panel/mail?notice=mail_saved")
	if v, _ := a.Sending.MailServerOf(ctx); !v.PasswordSet {
		t.Fatal("an empty password field dropped the stored password")
	}

	// A refusing server: the page says so in plain words, with its reply.
	g.smtp.FailData(554)
	p = b.do("POST", "/panel/mail/test", url.Values{"csrf": {csrf}}, nil)
	expectPage(t, "refused by server", p, 200, "The mail server refused the message")
	expectPage(t, "server words", p, 200, "554")
	g.smtp.FailData(0)
	// A server that does not answer.
	posted(t, "save down", b.do("POST", "/panel/mail", url.Values{"csrf": {csrf}, "host": {"127.0.0.1"}, "port": {"1"},
		"security": {"none"}, "from": {"reviews@files.example"}}, nil), "/panel/mail?notice=mail_saved")
	expectPage(t, "no connection", b.do("POST", "/panel/mail/test", url.Values{"csrf": {csrf}}, nil), 200,
		"reviewd could not connect or sign in to the mail server")

	// Stored: a process opening the data folder (serve after a restart, a console
	// command) uses it too.
	other, err := app.Open(ctx, a.Config, storetest.SchemaSQL(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !other.Sending.Mailer.Enabled() || !other.Sending.Mailer.Overridden() {
		t.Fatal("a new process does not use the mail server set in the panel")
	}
	other.Close()

	// Cleared: the configuration applies again (no host: sending off).
	posted(t, "clear", b.do("POST", "/panel/mail/clear", url.Values{"csrf": {csrf}}, nil), "/panel/mail?notice=mail_cleared")
	if a.Sending.Mailer.Enabled() {
		t.Fatal("the configuration's (empty) mail server does not apply again")
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/buyer"
	"reviewd/app/core/channels"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/store"
	"reviewd/store/storetest"
)

func openTestApp(t *testing.T, dir string) *app.App {
	t.Helper()
	cfg := app.Config{Listen: "127.0.0.1:8080", PublicURL: "http://127.0.0.1:8080", DataDir: dir,
		SMTP: app.SMTP{Security: "none"}, Log: app.Log{Level: "error", Format: "text"}}
	a, err := app.Open(context.Background(), cfg, storetest.SchemaSQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func TestSeedDemo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openTestApp(t, dir)
	info, err := seedDemo(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if info.Reused || len(info.Channels) != 2 || info.Channels[0].Code != "demo-tr" || info.Channels[1].Code != "demo-en" {
		t.Fatalf("info = %+v", info)
	}
	chs, err := a.DB.Read().ListChannels(ctx)
	if err != nil || len(chs) != 2 {
		t.Fatalf("channels %v, %v", chs, err)
	}
	for _, c := range chs {
		want := map[string][2]string{"demo-tr": {"TR", "tr"}, "demo-en": {"GB", "en"}}[c.Code]
		if c.Market != want[0] || c.Language != want[1] || strings.Join(c.Domains, ",") != "localhost" {
			t.Fatalf("channel %+v", c)
		}
	}
	for _, c := range info.Channels {
		for _, secret := range []string{c.ServerKey, c.SiteKey} {
			if k, detail, err := a.Access.LookupKey(ctx, secret); err != nil || detail != "" || k.ChannelID == 0 {
				t.Fatalf("demo key %s: %s %v", secret, detail, err)
			}
		}
	}
	k, detail, err := a.Access.LookupKey(ctx, info.APIKey)
	if err != nil || detail != "" || k.Kind != access.KindAPI || k.Scopes != "read,moderate,export,write" {
		t.Fatalf("api key %+v %s %v", k, detail, err)
	}
	u, err := a.DB.Read().UserByUsername(ctx, "demo")
	if err != nil || u.Role != "owner" || !access.CheckPassword(u.PasswordHash, info.Password) {
		t.Fatalf("demo user %+v %v", u, err)
	}
	st, err := os.Stat(filepath.Join(dir, demoFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("demo.json: %v %v", st, err)
	}

	checkDemoContent(t, a, info)

	// Each channel has a delivered order nobody reviewed yet: its order check passes.
	for _, c := range info.Channels {
		if c.TryOrder == "" || c.TryEmail == "" {
			t.Fatalf("channel %s has no order to try: %+v", c.Code, c)
		}
		ch, err := a.DB.Read().ChannelByCode(ctx, c.Code)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := a.Access.VerifySiteKey(ctx, c.SiteKey, "http://localhost", "", true)
		if err != nil {
			t.Fatal(err)
		}
		if el, err := a.Buyer.CheckEligibility(ctx, access.KeyActor(acc.Key, core.ViaSiteKey), ch,
			buyer.EligibilityInput{Order: c.TryOrder, Email: c.TryEmail}); err != nil || el.Mode != buyer.ModeWrite {
			t.Fatalf("order check of %s %s: %+v %v", c.TryOrder, c.TryEmail, el, err)
		}
	}
	if raw, err := os.ReadFile(filepath.Join(dir, demoFile)); err != nil || !bytes.Contains(raw, []byte(`"try_order": "`+info.Channels[0].TryOrder+`"`)) {
		t.Fatalf("demo.json lacks the order to try: %s %v", raw, err)
	}

	again, err := seedDemo(ctx, a)
	if err != nil || !again.Reused || again.Password != info.Password || again.APIKey != info.APIKey {
		t.Fatalf("second seed = %+v, %v", again, err)
	}
	if chs, _ := a.DB.Read().ListChannels(ctx); len(chs) != 2 {
		t.Fatalf("second seed added channels")
	}
	if st, _ := a.DB.Read().ProductStatsOf(ctx, "variant", "demo-mug-blue", "TR"); st.Reviews != 7 {
		t.Fatalf("second seed changed the reviews: %d", st.Reviews)
	}

	// Data without demo.json is not silently mixed with a new demo.
	other := openTestApp(t, t.TempDir())
	if _, err := other.Domain.Channels.CreateChannel(ctx, core.Console(), channels.NewChannel{Code: "x", Market: "TR", Language: "tr", Label: "x", BrandName: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := seedDemo(ctx, other); err == nil || !strings.Contains(err.Error(), "remove the folder") {
		t.Fatalf("seed over foreign data: %v", err)
	}
}

// checkDemoContent asserts what the seeded demo shows: published reviews with a
// spread of ratings on every product page, processed photos, helpful votes,
// published questions with brand and buyer answers, and a question and a review
// held for a moderator in each channel.
func checkDemoContent(t *testing.T, a *app.App, info demoInfo) {
	t.Helper()
	ctx := context.Background()
	q := a.DB.Read()
	if len(info.Catalog) != 8 {
		t.Fatalf("catalog = %+v", info.Catalog)
	}
	var ratings [5]int
	photos := 0
	for _, p := range info.Catalog {
		st, err := q.ProductStatsOf(ctx, p.Scope, p.Code, p.Market)
		if err != nil || st.Reviews < 5 || st.Verified != st.Reviews {
			t.Fatalf("%s %s: %+v %v", p.Channel, p.Code, st, err)
		}
		if p.Code == "demo-candle" && st.Reviews != 6 { // the seventh, with a link, waits for a moderator
			t.Fatalf("%s candle reviews = %d", p.Channel, st.Reviews)
		}
		for i, n := range st.Ratings {
			ratings[i] += n
		}
		var gallery []readmodel.GalleryItem
		if err := json.Unmarshal([]byte(st.Gallery), &gallery); err != nil {
			t.Fatalf("gallery %s: %v", st.Gallery, err)
		}
		for _, g := range gallery {
			m, err := q.MediaByPublicID(ctx, g.ID)
			if err != nil || m.State != store.MediaReady || !strings.Contains(g.Srcset, "320w") {
				t.Fatalf("gallery item %+v: %+v %v", g, m, err)
			}
			photos++
		}
	}
	if photos < 4 || ratings[0] == 0 || ratings[1] == 0 || ratings[3]+ratings[4] < 30 {
		t.Fatalf("photos %d, ratings %v", photos, ratings)
	}
	for _, dc := range info.Channels {
		ch, err := q.ChannelByCode(ctx, dc.Code)
		if err != nil {
			t.Fatal(err)
		}
		list, err := a.QA.PublishedQuestions(ctx, ch, qa.QuestionQuery{Product: "demo-mug-blue"})
		if err != nil || list.Total != 2 {
			t.Fatalf("%s questions: %+v %v", dc.Code, list, err)
		}
		kinds := map[string]bool{}
		for _, x := range list.Questions {
			for _, ans := range x.Answers {
				kinds[ans.Kind] = true
			}
		}
		if !kinds[qa.AnswerBrand] || !kinds[qa.AnswerBuyer] {
			t.Fatalf("%s answers: %+v", dc.Code, list.Questions)
		}
		group, err := a.QA.PublishedQuestions(ctx, ch, qa.QuestionQuery{Product: "demo-tshirt", Scope: "group"})
		if err != nil || group.Total != 2 {
			t.Fatalf("%s t-shirt questions: %+v %v", dc.Code, group, err)
		}
		held, err := a.QA.ListQuestions(ctx, core.Console(), qa.QuestionFilter{State: qa.QAPending, Channel: dc.Code,
			ListQuery: core.ListQuery{Page: 1, PageSize: 50}})
		if err != nil || held.Total != 1 {
			t.Fatalf("%s questions awaiting approval: %+v %v", dc.Code, held, err)
		}
	}
	if set, err := a.Brand.SettingsOf(ctx); err != nil || !set.QuestionsEnabled || set.PublishingMethod != core.PublishAutomatic {
		t.Fatalf("settings %+v %v", set, err)
	}
}

func TestDemoSurface(t *testing.T) {
	a := openTestApp(t, t.TempDir())
	info, err := seedDemo(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	srv := app.NewServer(a.Config, a.Clock, a.Log, a.Access, func(s *app.Server) []app.Surface {
		return append(Surfaces(a, s), &demoSurface{info: info, base: "http://demo.test", db: a.DB, acc: a.Access, read: a.Read, buyer: a.Buyer})
	})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	get := func(path string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		req.Header.Set("Origin", "http://localhost")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, body
	}
	status, body := get("/demo/index.json")
	var idx struct {
		Channels []map[string]string `json:"channels"`
		Products []demoIndexProduct  `json:"products"`
		Panel    string              `json:"panel"`
	}
	if status != 200 || json.Unmarshal(body, &idx) != nil || len(idx.Channels) != 2 || len(idx.Products) != 8 ||
		idx.Panel != "http://demo.test/admin/v1/session" || idx.Channels[0]["site_key"] != info.Channels[0].SiteKey ||
		idx.Channels[1]["try_order"] != info.Channels[1].TryOrder || idx.Channels[1]["try_email"] != info.Channels[1].TryEmail ||
		info.Channels[1].TryOrder == "" {
		t.Fatalf("GET /demo/index.json = %d %s", status, body)
	}
	for _, p := range idx.Products {
		if p.Reviews < 5 || p.Average < 3 || p.Average > 5 || !strings.HasPrefix(p.List, "http://demo.test/v1/reviews/list?key=") {
			t.Fatalf("GET /demo/ product %+v", p)
		}
	}
	for _, secret := range []string{info.APIKey, info.Password, info.Channels[0].ServerKey, info.Channels[0].SigningPassword} {
		if bytes.Contains(body, []byte(secret)) {
			t.Fatalf("GET /demo/ shows a secret: %s", body)
		}
	}

	// The storefront list shows the seeded reviews to a page on localhost.
	for _, p := range idx.Products {
		status, body := get(strings.TrimPrefix(p.List, "http://demo.test"))
		if status == http.StatusNotFound {
			t.Skipf("GET /v1/reviews/list answers 404: the list endpoint is not mounted yet")
		}
		var list struct {
			Reviews []struct {
				Rating       int    `json:"rating"`
				Language     string `json:"language"`
				Verified     bool   `json:"verified"`
				HelpfulCount int    `json:"helpful_count"`
				Media        []any  `json:"media"`
			} `json:"reviews"`
			Aggregate struct {
				Count int `json:"count"`
			} `json:"aggregate"`
		}
		if status != 200 || json.Unmarshal(body, &list) != nil || len(list.Reviews) != p.Reviews || list.Aggregate.Count != p.Reviews {
			t.Fatalf("GET %s = %d %s", p.List, status, body)
		}
		helpful, media := 0, 0
		for _, r := range list.Reviews {
			want := map[string]string{"demo-tr": "tr", "demo-en": "en"}[p.Channel]
			if r.Language != want || !r.Verified {
				t.Fatalf("%s review %+v", p.List, r)
			}
			helpful += r.HelpfulCount
			media += len(r.Media)
		}
		if helpful == 0 || media == 0 {
			t.Fatalf("%s: helpful %d, media %d", p.List, helpful, media)
		}
	}
}

// syncBuffer is a writer the test can read while the command writes; it signals once
// the demo printed its panel address.
type syncBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if strings.Contains(b.buf.String(), "stop with Ctrl-C") {
		b.once.Do(func() { close(b.ready) })
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDemoCommand starts `reviewd demo` in ./demo-data of a temporary working folder,
// reads the printed addresses, fetches the demo index and stops it; a second start
// reuses the data and prints the same sign-in.
func TestDemoCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("REVIEWD_JOBS_ENABLED", "false")
	t.Setenv("REVIEWD_LOG_LEVEL", "error")
	run := func() string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		root := NewRoot(storetest.SchemaSQL(t))
		out := &syncBuffer{ready: make(chan struct{})}
		root.SetOut(out)
		root.SetErr(io.Discard)
		root.SetArgs([]string{"demo", "--listen", "127.0.0.1:0"})
		done := make(chan error, 1)
		go func() { done <- root.ExecuteContext(ctx) }()
		select {
		case <-out.ready:
		case err := <-done:
			t.Fatalf("demo ended early: %v\n%s", err, out.String())
		}
		text := out.String()
		m := regexp.MustCompile(`demo product page\s+(http://\S+)/demo/`).FindStringSubmatch(text)
		if m == nil || !strings.Contains(text, m[1]+"/admin/v1/session") {
			t.Fatalf("demo output:\n%s", text)
		}
		res, err := http.Get(m[1] + "/demo/")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET /demo/: %v %v", res, err)
		}
		res.Body.Close()
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("demo stop: %v", err)
		}
		return text
	}
	first := run()
	if _, err := os.Stat(filepath.Join("demo-data", "reviewd.db")); err != nil {
		t.Fatalf("demo did not use ./demo-data: %v", err)
	}
	second := run()
	signIn := regexp.MustCompile(`panel sign-in\s+(.*)`)
	if !regexp.MustCompile(`order to review\s+GB-\d+, e-mail \S+@example.com`).MatchString(first) {
		t.Fatalf("demo prints no order to review:\n%s", first)
	}
	if !strings.Contains(first, "created data folder") || !strings.Contains(second, "reused data folder") ||
		signIn.FindString(first) != signIn.FindString(second) {
		t.Fatalf("second start does not reuse the demo:\n%s\n---\n%s", first, second)
	}
}

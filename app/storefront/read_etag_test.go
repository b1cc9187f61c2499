package storefront_test

import (
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/store"
)

// cachedPath is one storefront read answer with an ETag.
type cachedPath struct {
	name string
	get  func(hdr map[string]string) apptest.Response
}

// TestConditionalAnswersFollowWrites: list, SSR (with its structured data) and
// questions answer with an ETag known before rendering and 304 to a caller holding
// it; after every kind of write that changes what is shown (publish, hide, a
// helpful vote, settings, theme, market rule, method statement, a question and an
// answer's moderation) the very next request through every cached path, sent with
// the old ETag, gets the new content and a new ETag.
func TestConditionalAnswersFollowWrites(t *testing.T) {
	f := newFx(t)
	f.questionsOn()
	ids := f.seed(seedRev{title: "First mug"}, seedRev{title: "Second mug", ago: 2 * time.Hour})
	ch, err := f.App.DB.Read().ChannelByCode(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	paths := []cachedPath{
		{"list", func(h map[string]string) apptest.Response {
			hh := map[string]string{"Origin": "https://shop.example"}
			for k, v := range h {
				hh[k] = v
			}
			return f.Do("GET", "/v1/reviews/list?key="+f.site+"&product=SKU-1", nil, hh)
		}},
		{"ssr", func(h map[string]string) apptest.Response { return f.ssr("product=SKU-1&name=Mug", h) }},
		{"questions", func(h map[string]string) apptest.Response {
			hh := map[string]string{"Origin": "https://shop.example"}
			for k, v := range h {
				hh[k] = v
			}
			return f.Do("GET", "/v1/questions?key="+f.site+"&product=SKU-1", nil, hh)
		}},
	}
	etags := map[string]string{}
	bodies := map[string]string{}
	// read takes every path once, checks that its ETag answers 304 without a body, and
	// keeps the ETag and body.
	read := func(when string) {
		t.Helper()
		for _, p := range paths {
			res := p.get(nil)
			tag := res.Header.Get("ETag")
			if res.Status != 200 || tag == "" {
				t.Fatalf("%s %s: %d ETag %q %s", when, p.name, res.Status, tag, res.Body)
			}
			again := p.get(map[string]string{"If-None-Match": tag})
			if again.Status != 304 || len(again.Body) != 0 || again.Header.Get("ETag") != tag {
				t.Fatalf("%s %s with its ETag: %d %q %s", when, p.name, again.Status, again.Header.Get("ETag"), again.Body)
			}
			etags[p.name], bodies[p.name] = tag, string(res.Body)
		}
	}
	// after checks, for a write, that each named path answers the old ETag with 200, a
	// new ETag and a body showing want (and the others still 304).
	after := func(write string, want map[string]string) {
		t.Helper()
		for _, p := range paths {
			old := etags[p.name]
			res := p.get(map[string]string{"If-None-Match": old})
			sub, changed := want[p.name]
			if !changed {
				if res.Status != 304 {
					t.Fatalf("after %s, %s: want 304 (unchanged), got %d", write, p.name, res.Status)
				}
				continue
			}
			if sub == "" { // a brand-wide change: a new ETag is allowed, the content may be the same
				if res.Status != 304 && (res.Status != 200 || res.Header.Get("ETag") == old) {
					t.Fatalf("after %s, %s: %d ETag %q (old %q)", write, p.name, res.Status, res.Header.Get("ETag"), old)
				}
				continue
			}
			if res.Status != 200 || res.Header.Get("ETag") == old || res.Header.Get("ETag") == "" {
				t.Fatalf("after %s, %s with the old ETag: %d ETag %q (old %q)", write, p.name, res.Status, res.Header.Get("ETag"), old)
			}
			if string(res.Body) == bodies[p.name] || !strings.Contains(string(res.Body), sub) {
				t.Fatalf("after %s, %s: body unchanged or without %q: %.400s", write, p.name, sub, res.Body)
			}
		}
		read("after " + write)
	}
	tx := func(fn func(tx *store.Tx) error) {
		t.Helper()
		if err := f.App.DB.WithTx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	read("start")

	// Publish: a new review is listed, rendered and counted in the structured data.
	f.Clock.Advance(time.Minute)
	third := f.seed(seedRev{title: "Third mug", ago: time.Second})[0]
	after("publish", map[string]string{"list": third, "ssr": third})
	if !strings.Contains(bodies["ssr"], `"reviewCount":"3"`) {
		t.Fatalf("structured data not renewed: %.300s", bodies["ssr"])
	}
	// Hide.
	f.moderate(third, core.ReviewHidden)
	after("hide", map[string]string{"list": `"total":2`, "ssr": `"reviewCount":"2"`})
	// A helpful vote as shown.
	if res := f.vote(ids[0], map[string]any{"vote": "up", "visitor_key": "v-etag-1"}); res.Status != 200 {
		t.Fatalf("vote: %s", res)
	}
	after("vote", map[string]string{"list": `"helpful_count":1`, "ssr": `"helpful_count":1`})
	// Settings.
	// Settings: the brand's time zone moves the shown dates.
	if !strings.Contains(bodies["ssr"], "1 Haziran 2026") {
		t.Fatalf("dates before: %.2000s", bodies["ssr"])
	}
	f.settings(map[string]any{"time_zone": "Pacific/Pago_Pago"})
	after("settings", map[string]string{"list": "", "ssr": "31 Mayıs 2026", "questions": ""})
	// Theme of the channel.
	tx(func(tx *store.Tx) error { return tx.SetChannelLook(ctx, ch.ID, "sidebar", "night") })
	after("theme", map[string]string{"list": `"theme":"night"`, "ssr": `rvw-theme-night`, "questions": ""})
	// Policy: a new market rule version in force now.
	tx(func(tx *store.Tx) error {
		_, err := tx.CreateMarketRule(ctx, store.MarketRuleVersion{Market: "TR", ReviewWindowDays: 365,
			AllowedSorts: []string{"newest", "oldest"}, DefaultSort: "oldest", ValidFrom: f.Clock.T.Add(-time.Second)})
		return err
	})
	after("policy", map[string]string{"list": `"sort":"oldest"`, "ssr": `"sort":"oldest"`, "questions": ""})
	// Method statement.
	tx(func(tx *store.Tx) error {
		return tx.SetMethodStatementURL(ctx, ch.ID, "tr", "https://shop.example/yontem")
	})
	after("method statement", map[string]string{"list": "https://shop.example/yontem", "ssr": "https://shop.example/yontem",
		"questions": ""})
	// A question published at once, then hidden by moderation: only the questions change.
	qid, state := f.mustAsk(map[string]any{"name": "Can", "body": "Does it keep tea hot?"})
	if state != "published" {
		t.Fatalf("question: %s", state)
	}
	after("question", map[string]string{"questions": qid})
	tx(func(tx *store.Tx) error {
		return tx.SetQuestionState(ctx, f.question(qid).ID, "hidden", time.Time{})
	})
	after("question hidden", map[string]string{"questions": `"total":0`})
}

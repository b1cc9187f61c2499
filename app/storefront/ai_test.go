package storefront_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/ai"
)

// newAIFx is newFx with ai.provider builtin (the default of a configured server).
func newAIFx(t *testing.T) *fx {
	t.Helper()
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.AI = ai.Config{Provider: ai.ProviderBuiltin, DailyRequests: ai.DefaultDailyRequests, MinReviews: ai.DefaultMinReviews}
	})
	env.Channel("web", "TR", "tr")
	return &fx{Env: env, server: env.Key("server", "web"), site: env.Key("site", "web")}
}

// seedProduct stores 16 favourable and 4 critical reviews of SKU-1.
func seedProduct(f *fx) []string {
	var rs []seedRev
	for i := 0; i < 16; i++ {
		rs = append(rs, seedRev{rating: 5, lang: "en", title: fmt.Sprintf("Kettle %d", i),
			body: fmt.Sprintf("The kettle boils water quickly and the handle stays cool (%d). Looks nice in the kitchen.", i)})
	}
	for i := 0; i < 4; i++ {
		rs = append(rs, seedRev{rating: 1, lang: "en", title: fmt.Sprintf("Leaks %d", i),
			body: fmt.Sprintf("The kettle started leaking from the base after a week (%d). The lid is flimsy.", i)})
	}
	return f.seed(rs...)
}

func runAIJob(t *testing.T, f *fx) {
	t.Helper()
	if err := f.App.AI.RunJob(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestAISummaryOffIsV1: with ai.provider off (and with builtin while the brand
// has not turned summaries on) the list answers ai_summary null, byte for byte the
// answer of v1, and the job builds nothing.
func TestAISummaryOffIsV1(t *testing.T) {
	off := newFx(t) // apptest's configuration has no ai.provider: off
	seedProduct(off)
	off.settings(map[string]any{"ai_summary_enabled": true})
	runAIJob(t, off)
	res := off.list("product=SKU-1")
	if res.Status != 200 || !strings.Contains(string(res.Body), `"ai_summary":null`) {
		t.Fatalf("off: %d %s", res.Status, res.Body)
	}

	on := newAIFx(t)
	seedProduct(on)
	runAIJob(t, on) // summaries are off for the brand: nothing is built
	before := on.list("product=SKU-1")
	if !strings.Contains(string(before.Body), `"ai_summary":null`) {
		t.Fatalf("builtin, summaries not enabled: %s", before.Body)
	}
	n := 0
	if err := on.App.DB.Read().QueryRowForTest(ctx, `SELECT count(*) FROM ai_summaries`, &n); err != nil || n != 0 {
		t.Fatalf("summaries built while off for the brand: %d %v", n, err)
	}
}

// TestAISummaryInList: the job builds the summary once the brand turns it on;
// the list answers it with its label, topics and citations of shown reviews, the
// ETag changes with it, and JSON-LD never carries it.
func TestAISummaryInList(t *testing.T) {
	f := newAIFx(t)
	ids := seedProduct(f)
	f.settings(map[string]any{"ai_summary_enabled": true})
	before := f.list("product=SKU-1")
	if !strings.Contains(string(before.Body), `"ai_summary":null`) {
		t.Fatalf("before the job: %s", before.Body)
	}
	runAIJob(t, f)
	after := f.list("product=SKU-1&lang=en")
	if after.Status != 200 {
		t.Fatalf("list: %d %s", after.Status, after.Body)
	}
	var l struct {
		AISummary *struct {
			Text        string `json:"text"`
			ReviewCount int    `json:"review_count"`
			CreatedAt   string `json:"created_at"`
			Topics      []struct {
				Topic, Sentiment string
				Count            int
			} `json:"topics"`
			Sentences []struct {
				Text      string   `json:"text"`
				ReviewIDs []string `json:"review_ids"`
			} `json:"sentences"`
			GeneratedBy string `json:"generated_by"`
			Label       string `json:"label"`
		} `json:"ai_summary"`
	}
	if err := json.Unmarshal(after.Body, &l); err != nil || l.AISummary == nil {
		t.Fatalf("summary: %v %s", err, after.Body)
	}
	sm := l.AISummary
	if sm.ReviewCount != 20 || sm.GeneratedBy != "builtin" || sm.Label != ai.Label("en") || sm.CreatedAt == "" || sm.Text == "" {
		t.Fatalf("summary = %+v", sm)
	}
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	critical := 0
	for _, s := range sm.Sentences {
		if len(s.ReviewIDs) == 0 {
			t.Fatalf("sentence without citation: %+v", s)
		}
		for _, id := range s.ReviewIDs {
			if !known[id] {
				t.Fatalf("sentence cites unknown review %s", id)
			}
		}
		if strings.Contains(s.Text, "leaking") || strings.Contains(s.Text, "flimsy") {
			critical++
		}
	}
	if critical != 1 {
		t.Errorf("4 of 20 reviews are critical, the summary has %d critical sentences: %+v", critical, sm.Sentences)
	}
	topics := map[string]string{}
	for _, tp := range sm.Topics {
		topics[tp.Topic] = tp.Sentiment
	}
	if topics["kettle"] == "" || topics["handle"] != ai.Positive {
		t.Errorf("topics = %+v", sm.Topics)
	}
	if before.Header.Get("ETag") == after.Header.Get("ETag") && before.Header.Get("ETag") != "" {
		t.Error("the ETag did not change with the summary")
	}
	tr := f.mustList("product=SKU-1&lang=tr")
	if obj(tr["ai_summary"])["label"] != ai.Label("tr") {
		t.Errorf("tr label = %v", obj(tr["ai_summary"])["label"])
	}
	// A second run within the hour builds nothing new.
	runAIJob(t, f)
	again := f.list("product=SKU-1&lang=en")
	if string(again.Body) != string(after.Body) {
		t.Error("the answer changed without a change of the reviews")
	}
	// A review the summary quotes is hidden: the next run rebuilds it at once (not
	// an hour later) and no sentence quotes that review any more.
	gone := sm.Sentences[len(sm.Sentences)-1].ReviewIDs[0]
	f.moderate(gone, "hidden")
	runAIJob(t, f)
	if body := f.list("product=SKU-1&lang=en").Body; strings.Contains(string(body), `"`+gone+`"`) {
		t.Errorf("the summary still cites hidden review %s: %s", gone, body)
	}
	// SSR: text, label, citations; JSON-LD without the summary.
	ssr := f.ssr("product=SKU-1&lang=en", nil)
	if ssr.Status != 200 {
		t.Fatalf("ssr: %d %s", ssr.Status, ssr.Body)
	}
	var page struct {
		HTML           string          `json:"html"`
		StructuredData json.RawMessage `json:"structured_data"`
	}
	if err := json.Unmarshal(ssr.Body, &page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.HTML, ai.Label("en")) || !strings.Contains(page.HTML, `href="#`+sm.Sentences[0].ReviewIDs[0]+`-h"`) ||
		!strings.Contains(page.HTML, `data-review-sentiment="positive"`) {
		t.Errorf("SSR lacks the summary: %s", page.HTML)
	}
	if ld := string(page.StructuredData); ld == "" || strings.Contains(ld, ai.Label("en")) || strings.Contains(ld, sm.Text) {
		t.Errorf("JSON-LD carries the summary: %s", ld)
	}
}

// TestListTopicsSkipNonTopics: the list's topics chips (v1's feature, with the
// AI package's stop words) leave out comparisons, body parts of idioms,
// ordinals, verbs and praise.
func TestListTopicsSkipNonTopics(t *testing.T) {
	f := newFx(t)
	f.seed(
		seedRev{lang: "en", body: "Better than the old blender; the second jar I bought. Jar lid fits, on hand every morning."},
		seedRev{lang: "en", body: "Much better motor. Second blender, jar is glass, always at hand."},
		seedRev{lang: "tr", body: "İkinci kez aldım, motor sessiz, hazne cam."},
		seedRev{lang: "tr", body: "İkinci sipariş, hazne sağlam, motor güçlü."},
	)
	var got []string
	for _, tp := range f.mustList("product=SKU-1")["topics"].([]any) {
		got = append(got, obj(tp)["topic"].(string))
	}
	for _, stop := range []string{"better", "hand", "second", "ikinci", "bought", "aldım"} {
		for _, g := range got {
			if g == stop {
				t.Errorf("topic %q in %v", stop, got)
			}
		}
	}
	if len(got) == 0 || got[0] != "motor" {
		t.Errorf("topics %v, want motor first", got)
	}
}

package storefront_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// TestListErrors: every refusal of GET /v1/reviews/list with its code.
func TestListErrors(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{})
	for _, c := range []struct{ query, want string }{
		{"", "invalid / product"},
		{"product=" + strings.Repeat("p", 129), "invalid / product"},
		{"product=SKU-1&scope=sku", "invalid / scope"},
		{"product=SKU-1&rating=0", "invalid / rating"},
		{"product=SKU-1&rating=6", "invalid / rating"},
		{"product=SKU-1&rating=five", "invalid / rating"},
		{"product=SKU-1&q=" + strings.Repeat("a", 101), "invalid / q_too_long"},
		{"product=SKU-1&topic=" + strings.Repeat("a", 41), "invalid / topic_too_long"},
		{"product=SKU-1&topic=two+words", "invalid / topic"},
		{"product=SKU-1&topic=abc1", "invalid / topic"},
		{"product=SKU-1&sort=helpful", "sort_not_allowed / sort_not_allowed"}, // TR allows newest only
		{"product=SKU-1&sort=random", "sort_not_allowed / sort_not_allowed"},
		{"product=SKU-1&q=%00", "invalid / invalid"},
	} {
		res := f.list(c.query)
		if res.Status != 400 || res.Code() != c.want {
			t.Errorf("%s: %d %s, want 400 %s", c.query, res.Status, res.Body, c.want)
		}
	}
	// Access: a site key from a verified domain, or a server key with its channel.
	wantCode(t, f.Do("GET", "/v1/reviews/list?product=SKU-1", nil, map[string]string{"Origin": "https://shop.example"}),
		403, "refused / unknown_site_key")
	wantCode(t, f.Do("GET", "/v1/reviews/list?product=SKU-1&key="+f.site, nil, map[string]string{"Origin": "https://evil.example"}),
		403, "refused / origin_unverified: evil.example")
	wantCode(t, f.Do("GET", "/v1/reviews/list?product=SKU-1&channel=nope", nil, map[string]string{"Authorization": "Bearer " + f.server}),
		403, "refused / unknown_channel")
	res := f.Do("GET", "/v1/reviews/list?product=SKU-1&channel=web", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if res.Status != 200 || num(res.JSON["total"]) != 1 {
		t.Fatalf("server key: want 200, got %s", res)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "private, max-age=30" {
		t.Fatalf("Cache-Control %q", cc)
	}
}

// TestListPagingAndLanguage: page and page_size are clamped, lang picks tr or en
// (anything else is the channel's language), and the fixed parts of the answer.
func TestListPagingAndLanguage(t *testing.T) {
	f := newFx(t)
	var seeded []seedRev
	for i := 0; i < 23; i++ {
		seeded = append(seeded, seedRev{ago: time.Duration(i+1) * time.Hour})
	}
	all := f.seed(seeded...)
	for _, c := range []struct {
		query                  string
		page, size, pages, got int
	}{
		{"", 1, 10, 3, 10},
		{"&page=3", 3, 10, 3, 3},
		{"&page=0", 1, 10, 3, 10},
		{"&page=5000", 1000, 10, 3, 0},
		{"&page=x&page_size=y", 1, 10, 3, 10},
		{"&page_size=0", 1, 1, 23, 1},
		{"&page_size=99", 1, 50, 1, 23},
		{"&page_size=5&page=2", 2, 5, 5, 5},
	} {
		l := f.mustList("product=SKU-1" + c.query)
		if num(l["page"]) != c.page || num(l["page_size"]) != c.size || num(l["pages"]) != c.pages ||
			len(l["reviews"].([]any)) != c.got || num(l["total"]) != 23 {
			t.Errorf("%s: page %v size %v pages %v reviews %d", c.query, l["page"], l["page_size"], l["pages"], len(l["reviews"].([]any)))
		}
	}
	wantIDs(t, ids(f.mustList("product=SKU-1&page_size=5&page=2")), all[5:10]...)

	l := f.mustList("product=SKU-1&lang=en")
	if l["language"] != "en" || obj(l["words"])["verified_purchase"] != "Verified buyer" || l["sort"] != "newest" {
		t.Fatalf("en: %v %v", l["language"], obj(l["words"])["verified_purchase"])
	}
	l = f.mustList("product=SKU-1&lang=de")
	if l["language"] != "tr" || obj(l["words"])["verified_purchase"] != "Doğrulanmış alıcı" {
		t.Fatalf("fallback: %v", l["language"])
	}
	for _, k := range []string{"verified_purchase", "experience_process", "privacy_notice", "origin_syndicated", "origin_imported"} {
		if obj(l["words"])[k] == "" || obj(f.mustList("product=SKU-1&lang=en")["words"])[k] == "" {
			t.Errorf("word %s missing", k)
		}
	}
	var reasons []string
	for _, r := range l["report_reasons"].([]any) {
		reasons = append(reasons, obj(r)["code"].(string)+"="+obj(r)["label"].(string))
	}
	if len(reasons) != 6 || !strings.HasPrefix(reasons[0], "spam=") || !strings.HasPrefix(reasons[5], "other=") {
		t.Fatalf("report_reasons %v", reasons)
	}
	limits, _ := json.Marshal(l["limits"])
	if string(limits) != `{"alt_text_length":300,"body_length":5000,"email_length":254,"image_bytes":12582912,`+
		`"media_count":6,"name_length":120,"order_reference_length":128,"report_note_length":1000,"reviews_per_call":20,`+
		`"title_length":200,"video_bytes":209715200,"video_seconds":60}` {
		t.Fatalf("limits %s", limits)
	}
	if l["ai_summary"] != nil || l["style"] != "cards" || l["theme"] != "warm" || l["questions_enabled"] != false ||
		l["privacy_url"] != "" || num(l["shared"]) != 0 {
		t.Fatalf("fixed fields: %v %v %v %v %v", l["ai_summary"], l["style"], l["theme"], l["questions_enabled"], l["privacy_url"])
	}
	core := obj(l["core"])
	ms := obj(core["method_statement"])
	if ms["url"] != "http://reviewd.test/v1/method-statement?channel=web&lang=tr" ||
		ms["required"] != true || obj(core["sort"])["locked"] != true || obj(core["verification_badge"])["required"] != true ||
		core["policy_version"] != "TR-2026-10" || core["market"] != "TR" || core["source_label_required"] != true ||
		core["streams_together"] != false || core["resolution_inline"] != true {
		t.Fatalf("core %v", core)
	}
}

// TestListSortsAndFilters on a market that allows every sort: each sort's order,
// the rating, verified and media filters, and that filters leave the summary alone.
func TestListSortsAndFilters(t *testing.T) {
	f := newFx(t)
	gb := f.channel("gb", "GB", "en")
	list := func(q string) map[string]any { return f.listWith(gb, "product=MUG&"+q) }
	r := f.seed(
		seedRev{market: "GB", variant: "MUG", rating: 4, ago: 1 * time.Hour, lang: "en"},
		seedRev{market: "GB", variant: "MUG", rating: 2, ago: 2 * time.Hour, lang: "en"},
		seedRev{market: "GB", variant: "MUG", rating: 5, ago: 3 * time.Hour, lang: "en", imported: true, source: "Trendyol"},
		seedRev{market: "GB", variant: "MUG", rating: 5, ago: 4 * time.Hour, lang: "en"},
		seedRev{market: "GB", variant: "MUG", rating: 1, ago: 5 * time.Hour, lang: "en", noProof: true},
		seedRev{market: "TR", variant: "MUG", rating: 3, ago: 30 * time.Minute},
	)
	f.addMedia(r[1], store.MediaReady)
	f.addMedia(r[3], store.MediaProcessing) // not ready: no media
	// Helpful votes from two visitors.
	for _, v := range []struct{ id, vote, key, ip string }{{r[3], "up", "a", "192.0.2.1"}, {r[3], "up", "b", "192.0.2.2"}, {r[0], "up", "a", "192.0.2.1"}} {
		res := f.Do("POST", "/v1/reviews/"+v.id+"/helpful", map[string]any{"vote": v.vote, "visitor_key": v.key},
			map[string]string{"X-Service-Site-Key": gb, "Origin": "https://shop.example", "X-Forwarded-For": v.ip})
		if res.Status != 200 {
			t.Fatalf("vote: want 200, got %s", res)
		}
	}
	l := list("")
	if l["sort"] != "newest" {
		t.Fatalf("default sort %v", l["sort"])
	}
	var sorts []string
	for _, s := range l["sorts"].([]any) {
		sorts = append(sorts, obj(s)["code"].(string))
	}
	if strings.Join(sorts, ",") != "newest,helpful,rating_high,rating_low,oldest" {
		t.Fatalf("sorts %v", sorts)
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"sort=newest", []string{r[0], r[1], r[2], r[3], r[4]}},
		{"sort=oldest", []string{r[4], r[3], r[2], r[1], r[0]}},
		{"sort=rating_high", []string{r[2], r[3], r[0], r[1], r[4]}},
		{"sort=rating_low", []string{r[4], r[1], r[0], r[2], r[3]}},
		{"sort=helpful", []string{r[3], r[0], r[1], r[2], r[4]}},
		{"rating=5", []string{r[2], r[3]}},
		{"verified=1", []string{r[0], r[1], r[3]}},
		{"media=1", []string{r[1]}},
		{"rating=5&verified=1", []string{r[3]}},
		{"verified=1&media=1&sort=oldest", []string{r[1]}},
		{"rating=3", nil},
	} {
		got := list(c.query)
		wantIDs(t, ids(got), c.want...)
		if num(got["total"]) != len(c.want) {
			t.Errorf("%s: total %v", c.query, got["total"])
		}
		// Filters change neither the summary nor the gallery.
		agg := obj(got["aggregate"])
		if num(agg["count"]) != 5 || num(got["media_reviews"]) != 1 || len(got["gallery"].([]any)) != 1 {
			t.Errorf("%s: aggregate %v media_reviews %v", c.query, agg, got["media_reviews"])
		}
	}
	applied := obj(list("rating=5&verified=1&media=1&q=hot&topic=mug")["applied"])
	if num(applied["rating"]) != 5 || applied["verified"] != true || applied["media"] != true || applied["q"] != "hot" ||
		applied["topic"] != "mug" {
		t.Fatalf("applied %v", applied)
	}
	if a := obj(list("")["applied"]); a["rating"] != nil || a["q"] != "" || a["media"] != false {
		t.Fatalf("applied %v", a)
	}
}

// TestListSearch: q matches all its words in title and text, ignoring case and the
// Turkish dotted and dotless i (and other diacritics); topic matches a word start.
func TestListSearch(t *testing.T) {
	f := newFx(t)
	r := f.seed(
		seedRev{title: "Renk", body: "KIRMIZI kupa, çok şık", ago: time.Hour},
		seedRev{title: "Kırmızı ve büyük", body: "Çay için ideal", ago: 2 * time.Hour},
		seedRev{title: "Mavi", body: "İnce işçilik, kırmızımsı değil", ago: 3 * time.Hour},
		seedRev{variant: "SKU-2", body: "kırmızı", ago: 4 * time.Hour},
		seedRev{body: "kirmizi", ago: 5 * time.Hour, state: "hidden"},
	)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"q=kırmızı", []string{r[0], r[1]}},
		{"q=kirmizi", []string{r[0], r[1]}},
		{"q=KIRMIZI", []string{r[0], r[1]}},
		{"q=K%C4%B0RM%C4%B0Z%C4%B0", []string{r[0], r[1]}}, // KİRMİZİ
		{"q=kırmızı+kupa", []string{r[0]}},
		{"q=kupa+kırmızı", []string{r[0]}},
		{"q=kırmızı+mavi", nil},
		{"q=cay", []string{r[1]}},
		{"q=ince+iscilik", []string{r[2]}},
		{"q=kırm", nil}, // q matches whole words
		{"q=...", []string{r[0], r[1], r[2]}},
		{"topic=kırm", []string{r[0], r[1], r[2]}},
		{"topic=KIRMIZIMSI", []string{r[2]}},
		{"topic=kirmizi&q=kupa", []string{r[0]}},
		{"topic=mavi&rating=5", []string{r[2]}},
	} {
		got := f.mustList("product=SKU-1&" + c.query)
		wantIDs(t, ids(got), c.want...)
		if num(got["total"]) != len(c.want) {
			t.Errorf("%s: total %v", c.query, got["total"])
		}
	}
	// A review leaving the published state leaves the search.
	f.moderate(r[0], "hidden")
	wantIDs(t, ids(f.mustList("product=SKU-1&q=kirmizi")), r[1])
	f.moderate(r[0], "published")
	wantIDs(t, ids(f.mustList("product=SKU-1&q=kirmizi")), r[0], r[1])
}

// TestListTopics: up to 5 words of at least 4 letters found in at least 2
// reviews, most frequent first, each usable as the topic parameter.
func TestListTopics(t *testing.T) {
	f := newFx(t)
	f.seed(
		seedRev{body: "Seramik kupa, kulp sağlam, renk canlı. Kargo hızlı."},
		seedRev{body: "Kulp rahat, seramik kaliteli, kargo geç geldi."},
		seedRev{body: "SERAMİK güzel, kulp iyi, renk soluk, paketleme özenli"},
		seedRev{body: "Paketleme iyi, renk tam fotoğraftaki gibi, kupa çok güzel ve ürün harika."},
		seedRev{body: "Seramik seramik seramik; tek kelime: kulp. Çay içmek için."},
		seedRev{body: "Ayrı bir ürün", variant: "SKU-2"},
	)
	l := f.mustList("product=SKU-1")
	var got []string
	for _, tp := range l["topics"].([]any) {
		got = append(got, obj(tp)["topic"].(string)+":"+itoa(num(obj(tp)["count"])))
	}
	// kupa, renk, kulp have 4 letters; "çok", "ve", "iyi" are too short; "güzel" and
	// "için" are stop words; words of one review only are left out.
	want := "kulp:4,seramik:4,renk:3,kargo:2,kupa:2"
	if strings.Join(got, ",") != want {
		t.Fatalf("topics %v, want %s", got, want)
	}
	for _, tp := range l["topics"].([]any) {
		topic := obj(tp)["topic"].(string)
		if n := num(f.mustList("product=SKU-1&topic=" + url.QueryEscape(topic))["total"]); n != num(obj(tp)["count"]) {
			t.Errorf("topic %s: %d reviews, topics says %v", topic, n, obj(tp)["count"])
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestListCacheInvalidation: answers, verified callers and channel configuration
// are cached, yet every change shows in the very next request: a revoked key, a
// channel switched off, a new domain, settings, an own method-statement page, a
// market rule version coming into force, and review changes.
func TestListCacheInvalidation(t *testing.T) {
	f := newFx(t)
	gb := f.channel("gb", "GB", "en")
	f.seed(seedRev{market: "GB", variant: "MUG"})
	q := "product=MUG"
	l := f.listWith(gb, q)
	if l["questions_enabled"] != false || len(l["sorts"].([]any)) != 5 {
		t.Fatalf("before: %v %v", l["questions_enabled"], l["sorts"])
	}
	f.settings(map[string]any{"questions_enabled": true})
	if l = f.listWith(gb, q); l["questions_enabled"] != true {
		t.Fatalf("settings change not seen")
	}
	ch, _ := f.App.DB.Read().ChannelByCode(ctx, "gb")
	tx := func(fn func(tx *store.Tx) error) {
		t.Helper()
		if err := f.App.DB.WithTx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	tx(func(tx *store.Tx) error {
		return tx.SetMethodStatementURL(ctx, ch.ID, "en", "https://shop.example/how")
	})
	if l = f.listWith(gb, q); obj(obj(l["core"])["method_statement"])["url"] != "https://shop.example/how" {
		t.Fatalf("method statement change not seen: %v", obj(l["core"])["method_statement"])
	}
	// A brand rule version scheduled for later takes over when it comes into force.
	tx(func(tx *store.Tx) error {
		_, err := tx.CreateMarketRule(ctx, store.MarketRuleVersion{Market: "GB", ReviewWindowDays: 365,
			AllowedSorts: []string{"newest", "oldest"}, DefaultSort: "oldest", ValidFrom: f.Clock.T.Add(time.Hour)})
		return err
	})
	if l = f.listWith(gb, q); len(l["sorts"].([]any)) != 5 {
		t.Fatalf("future rule applied early")
	}
	f.Clock.Advance(2 * time.Hour)
	if l = f.listWith(gb, q); len(l["sorts"].([]any)) != 2 || l["sort"] != "oldest" {
		t.Fatalf("rule in force not seen: %v %v", l["sorts"], l["sort"])
	}
	// Domains, channels and keys.
	other := map[string]string{"Origin": "https://other.example"}
	wantCode(t, f.Do("GET", "/v1/reviews/list?key="+gb+"&"+q, nil, other), 403, "refused / origin_unverified: other.example")
	tx(func(tx *store.Tx) error { return tx.AddDomain(ctx, ch.ID, "other.example", true) })
	if res := f.Do("GET", "/v1/reviews/list?key="+gb+"&"+q, nil, other); res.Status != 200 {
		t.Fatalf("new domain: want 200, got %s", res)
	}
	tx(func(tx *store.Tx) error { return tx.SetChannelActive(ctx, ch.ID, false) })
	wantCode(t, f.Do("GET", "/v1/reviews/list?key="+gb+"&"+q, nil, other), 403, "refused / channel_inactive")
	tx(func(tx *store.Tx) error { return tx.SetChannelActive(ctx, ch.ID, true) })
	f.listWith(gb, q)
	keys, _ := f.App.DB.Read().ListKeys(ctx)
	for _, k := range keys {
		if k.Kind == "site" && k.ChannelID == ch.ID {
			if err := f.App.Access.RevokeKey(ctx, core.Console(), k.PublicID); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantCode(t, f.Do("GET", "/v1/reviews/list?key="+gb+"&"+q, nil, other), 403, "refused / revoked_site_key")
}

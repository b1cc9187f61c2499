package storefront_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"reviewd/store"
)

// TestListAggregate: the counting rules of spec 2. Own and imported reviews (both
// experiences) count in count, average and distribution; verified_count leaves
// imported ones out; structured_* counts own product reviews only; another
// market's and unpublished reviews count nowhere.
func TestListAggregate(t *testing.T) {
	f := newFx(t)
	f.Channel("de", "DE", "en")
	f.seed(
		seedRev{rating: 5}, seedRev{rating: 4}, seedRev{rating: 4},
		seedRev{rating: 3, noProof: true},
		seedRev{rating: 1, imported: true, source: "Trendyol"},
		seedRev{rating: 2, process: true},
		seedRev{rating: 5, market: "DE"},
		seedRev{rating: 1, state: "hidden"},
		seedRev{rating: 1, state: "pending"},
	)
	agg := obj(f.mustList("product=SKU-1")["aggregate"])
	got, _ := json.Marshal(agg)
	want := `{"average":3.2,"count":6,"distribution":{"1":1,"2":1,"3":1,"4":2,"5":1},"imported_count":1,` +
		`"imported_label":"1 değerlendirme Trendyol sitesinden aktarıldı","stars_filled":3,"structured_average":4,` +
		`"structured_count":4,"verified_count":4}`
	if string(got) != want {
		t.Fatalf("aggregate\n got %s\nwant %s", got, want)
	}
	// Syndication shows the other market's review but leaves the figures alone.
	f.settings(map[string]any{"syndication_enabled": true})
	l := f.mustList("product=SKU-1")
	if g, _ := json.Marshal(l["aggregate"]); string(g) != want || num(l["total"]) != 7 || num(l["shared"]) != 1 {
		t.Fatalf("with syndication: total %v shared %v aggregate %s", l["total"], l["shared"], g)
	}
	// No reviews: zeros and an empty label.
	agg = obj(f.mustList("product=NONE")["aggregate"])
	if num(agg["count"]) != 0 || agg["average"] != 0.0 || agg["stars_filled"] != 0.0 || agg["imported_label"] != "" ||
		num(obj(agg["distribution"])["5"]) != 0 {
		t.Fatalf("empty aggregate %v", agg)
	}
	// Halves of stars are rounded up: 4.25 -> 4.5, 4.2 -> 4.
	f.seed(seedRev{variant: "H", rating: 5}, seedRev{variant: "H", rating: 4}, seedRev{variant: "H", rating: 4},
		seedRev{variant: "H", rating: 4})
	if agg := obj(f.mustList("product=H")["aggregate"]); agg["stars_filled"] != 4.5 || agg["average"] != 4.3 {
		t.Fatalf("4.25: %v", agg)
	}
	f.seed(seedRev{variant: "H", rating: 4})
	if agg := obj(f.mustList("product=H")["aggregate"]); agg["stars_filled"] != 4.0 || agg["average"] != 4.2 {
		t.Fatalf("4.2: %v", agg)
	}
	// Several import sources: a general label.
	f.seed(seedRev{variant: "H", rating: 4, imported: true, source: "A"}, seedRev{variant: "H", rating: 4, imported: true, source: "B"})
	if agg := obj(f.mustList("product=H")["aggregate"]); agg["imported_label"] != "2 değerlendirme başka sitelerden aktarıldı" {
		t.Fatalf("label %v", agg["imported_label"])
	}
}

// TestListScopes: scope group reads every variant of the group; a review counts
// in both its variant and its group.
func TestListScopes(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{variant: "MUG-RED", group: "MUG", rating: 5, ago: time.Hour},
		seedRev{variant: "MUG-BLUE", group: "MUG", rating: 3, ago: 2 * time.Hour},
		seedRev{variant: "MUG-RED", rating: 1, ago: 3 * time.Hour})
	wantIDs(t, ids(f.mustList("product=MUG&scope=group")), r[0], r[1])
	wantIDs(t, ids(f.mustList("product=MUG-RED")), r[0], r[2])
	wantIDs(t, ids(f.mustList("product=MUG-RED&scope=variant")), r[0], r[2])
	wantIDs(t, ids(f.mustList("product=MUG")))
	if agg := obj(f.mustList("product=MUG&scope=group")["aggregate"]); num(agg["count"]) != 2 || agg["average"] != 4.0 {
		t.Fatalf("group aggregate %v", agg)
	}
}

// TestListRows: the fields of a review row.
func TestListRows(t *testing.T) {
	f := newFx(t)
	r := f.seed(
		seedRev{author: "Ayşe Nur Yılmaz", hide: true, title: "Güzel", body: "Çok iyi", ago: time.Hour,
			template: "general", aspects: `{"quality":4,"value":2}`},
		seedRev{author: "Mehmet", ago: 2 * time.Hour},
		seedRev{ago: 3 * time.Hour, process: true, rating: 2},
		seedRev{ago: 4 * time.Hour, imported: true, source: "Trendyol", author: "Can",
			sourceURL: "https://www.trendyol.com/p/1"},
		seedRev{ago: 5 * time.Hour, imported: true},
	)
	m := f.addMedia(r[0], store.MediaReady)
	l := f.mustList("product=SKU-1")
	rows := map[string]map[string]any{}
	for _, x := range l["reviews"].([]any) {
		rows[obj(x)["id"].(string)] = obj(x)
	}
	a := rows[r[0]]
	if a["author"] != "A*** N*** Y***" || a["anonymous"] != false || a["verified"] != true ||
		a["verification_method"] != "tokenized_invite" || a["origin"] != "own" || a["origin_label"] != "" ||
		a["experience"] != "product" || a["language"] != "tr" || a["title"] != "Güzel" || a["body"] != "Çok iyi" ||
		num(a["rating"]) != 5 || a["published_at"] != f.Clock.T.Add(-time.Hour).Format(time.RFC3339) ||
		len(obj(a["translations"])) != 0 || a["aspect_template"] != "general" || a["seller_response"] != nil {
		t.Fatalf("row %v", a)
	}
	if s, _ := json.Marshal(a["aspect_scores"]); string(s) != `{"quality":4,"value":2}` {
		t.Fatalf("aspect_scores %s", s)
	}
	asp, _ := json.Marshal(a["aspects"])
	if string(asp) != `[{"key":"quality","label":"Kalite","position":0.75,"scale":5,"step_label":"İyi","value":4},`+
		`{"key":"value","label":"Fiyat/performans","position":0.25,"scale":5,"step_label":"Kötü","value":2}]` {
		t.Fatalf("aspects %s", asp)
	}
	media := a["media"].([]any)
	base := "http://reviewd.test/media/" + m + "/"
	if len(media) != 1 || obj(media[0])["url"] != base+"image.jpg" || obj(media[0])["kind"] != "image" ||
		obj(media[0])["srcset"] != base+"image-320.jpg 320w, "+base+"image-640.jpg 640w, "+base+"image.jpg 1000w" ||
		num(obj(media[0])["width"]) != 1000 || num(obj(media[0])["height"]) != 800 || obj(media[0])["alt_text"] != "Mug" ||
		obj(media[0])["id"] != m {
		t.Fatalf("media %v", media)
	}
	if b := rows[r[1]]; b["author"] != "Mehmet" || len(b["media"].([]any)) != 0 || len(b["aspects"].([]any)) != 0 {
		t.Fatalf("row %v", b)
	}
	if c := rows[r[2]]; c["experience"] != "process" || c["anonymous"] != true || c["author"] != "" {
		t.Fatalf("process row %v", c)
	}
	if d := rows[r[3]]; d["origin"] != "imported" || d["verified"] != false || d["verification_method"] != "" ||
		d["origin_label"] != "Trendyol sitesinden aktarıldı" || d["origin_url"] != "https://www.trendyol.com/p/1" ||
		d["origin_market"] != "" {
		t.Fatalf("imported row %v", d)
	}
	if e := rows[r[4]]; e["origin_label"] != "trendyol sitesinden aktarıldı" || e["origin_url"] != "" {
		t.Fatalf("imported row without source name %v", e)
	}
	if en := f.mustList("product=SKU-1&lang=en")["reviews"].([]any); obj(en[3])["origin_label"] != "Imported from Trendyol" {
		t.Fatalf("en label %v", obj(en[3])["origin_label"])
	}
}

// TestListAspects: stepped-scale averages of the product's rating topics; filters
// do not change them.
func TestListAspects(t *testing.T) {
	f := newFx(t)
	f.seed(
		seedRev{template: "general", aspects: `{"quality":4,"value":2}`, rating: 5},
		seedRev{template: "general", aspects: `{"quality":5,"value":3}`, rating: 4},
		seedRev{template: "general", aspects: `{"quality":5}`, rating: 3},
		seedRev{template: "apparel", aspects: `{"fit":1}`, rating: 3},
	)
	for _, q := range []string{"product=SKU-1", "product=SKU-1&rating=5"} {
		got, _ := json.Marshal(f.mustList(q)["aspects"])
		want := `[{"average":4.7,"count":3,"key":"quality","label":"Kalite","position":0.917,"scale":5,` +
			`"step_label":"Mükemmel","steps":["Çok kötü","Kötü","Orta","İyi","Mükemmel"]},` +
			`{"average":2.5,"count":2,"key":"value","label":"Fiyat/performans","position":0.375,"scale":5,` +
			`"step_label":"Orta","steps":["Çok kötü","Kötü","Orta","İyi","Mükemmel"]},` +
			`{"average":1,"count":1,"key":"fit","label":"Beden uyumu","position":0,"scale":5,"step_label":"Dar kalıp",` +
			`"steps":["Dar kalıp","Biraz dar","Tam kalıp","Biraz bol","Bol kalıp"]}]`
		if string(got) != want {
			t.Fatalf("%s aspects\n got %s\nwant %s", q, got, want)
		}
	}
	en, _ := json.Marshal(obj(f.mustList("product=SKU-1&lang=en")["aspects"].([]any)[0]))
	if !strings.Contains(string(en), `"label":"Quality"`) || !strings.Contains(string(en), `"step_label":"Excellent"`) {
		t.Fatalf("en aspects %s", en)
	}
}

// TestListGallery: the 12 newest ready photos or videos, newest review first, with
// their review; media_reviews counts reviews with media; both follow the reviews'
// states.
func TestListGallery(t *testing.T) {
	f := newFx(t)
	var seeded []seedRev
	for i := 0; i < 8; i++ {
		seeded = append(seeded, seedRev{ago: time.Duration(i+1) * time.Hour, author: fmt.Sprintf("Kişi %d", i), rating: 1 + i%5})
	}
	r := f.seed(seeded...)
	var media [][]string
	for i, id := range r {
		var ms []string
		for j := 0; j < 2; j++ {
			ms = append(ms, f.addMedia(id, store.MediaReady))
		}
		if i == 0 {
			f.addMedia(id, store.MediaFailed)
		}
		media = append(media, ms)
	}
	l := f.mustList("product=SKU-1")
	g := l["gallery"].([]any)
	if len(g) != 12 || num(l["media_reviews"]) != 8 {
		t.Fatalf("gallery %d media_reviews %v", len(g), l["media_reviews"])
	}
	for i, item := range g {
		it := obj(item)
		rev := i / 2
		if it["id"] != media[rev][i%2] || it["review_id"] != r[rev] || num(it["rating"]) != 1+rev%5 ||
			it["author"] != fmt.Sprintf("Kişi %d", rev) || it["anonymous"] != false || it["kind"] != "image" ||
			!strings.HasSuffix(it["url"].(string), "/image.jpg") {
			t.Fatalf("gallery[%d] = %v", i, it)
		}
	}
	f.moderate(r[0], "hidden")
	l = f.mustList("product=SKU-1&rating=1")
	g = l["gallery"].([]any)
	if len(g) != 12 || obj(g[0])["review_id"] != r[1] || num(l["media_reviews"]) != 7 {
		t.Fatalf("after hiding: %d %v %v", len(g), obj(g[0])["review_id"], l["media_reviews"])
	}
}

// TestListStateChanges: publication, hiding and removal move a review in and out of
// the list and every figure, and the answer changes at once.
func TestListStateChanges(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{rating: 5, body: "harika renkler ve sağlam kulp"}, seedRev{rating: 1, body: "kulp kırık geldi renkler soluk"})
	l := f.mustList("product=SKU-1")
	if num(obj(l["aggregate"])["count"]) != 2 || len(l["topics"].([]any)) != 2 {
		t.Fatalf("before: %v %v", l["aggregate"], l["topics"])
	}
	for _, state := range []string{"hidden", "removed", "rejected", "pending"} {
		f.moderate(r[1], state)
		l = f.mustList("product=SKU-1")
		if num(obj(l["aggregate"])["count"]) != 1 || obj(l["aggregate"])["average"] != 5.0 ||
			len(l["topics"].([]any)) != 0 || num(l["total"]) != 1 {
			t.Fatalf("%s: %v %v", state, l["aggregate"], l["topics"])
		}
		wantIDs(t, ids(l), r[0])
		f.moderate(r[1], "published")
		if l = f.mustList("product=SKU-1"); num(l["total"]) != 2 || obj(l["aggregate"])["average"] != 3.0 {
			t.Fatalf("republished: %v", l["aggregate"])
		}
	}
}

// TestListSyndication: with syndication_enabled, verified product reviews of the
// same product from the brand's other markets join the list (origin syndicated,
// origin_market, a label) but no figure; markets whose rule keeps streams apart
// list their own reviews first.
func TestListSyndication(t *testing.T) {
	f := newFx(t)
	gb := f.channel("gb", "GB", "en")
	tr := f.seed(seedRev{ago: 3 * time.Hour, rating: 4}, seedRev{ago: 5 * time.Hour, rating: 4})
	other := f.seed(
		seedRev{market: "GB", ago: 1 * time.Hour, lang: "en", rating: 1},
		seedRev{market: "GB", ago: 4 * time.Hour, lang: "en", rating: 2},
		seedRev{market: "GB", ago: 2 * time.Hour, imported: true},
		seedRev{market: "GB", ago: 2 * time.Hour, process: true},
		seedRev{market: "GB", ago: 2 * time.Hour, noProof: true},
	)
	f.addMedia(other[0], store.MediaReady)
	wantIDs(t, ids(f.mustList("product=SKU-1")), tr...)

	f.settings(map[string]any{"syndication_enabled": true})
	l := f.mustList("product=SKU-1")
	// TR keeps streams apart: own reviews first.
	wantIDs(t, ids(l), tr[0], tr[1], other[0], other[1])
	if num(l["total"]) != 4 || num(l["shared"]) != 2 || num(obj(l["aggregate"])["count"]) != 2 ||
		obj(l["aggregate"])["average"] != 4.0 || num(l["media_reviews"]) != 1 || len(l["gallery"].([]any)) != 0 {
		t.Fatalf("syndicated list: total %v shared %v %v media %v", l["total"], l["shared"], l["aggregate"], l["media_reviews"])
	}
	s := obj(l["reviews"].([]any)[2])
	if s["origin"] != "syndicated" || s["origin_market"] != "GB" || s["origin_label"] != "GB mağazamızdaki bir müşteriden" ||
		s["verified"] != true || len(s["media"].([]any)) != 1 {
		t.Fatalf("syndicated row %v", s)
	}
	// Filters and counts include the syndicated reviews.
	l = f.mustList("product=SKU-1&verified=1&rating=1")
	wantIDs(t, ids(l), other[0])
	if num(l["total"]) != 1 || num(l["shared"]) != 1 {
		t.Fatalf("filtered: %v %v", l["total"], l["shared"])
	}
	// GB shows both streams together, newest first.
	l = f.listWith(gb, "product=SKU-1")
	wantIDs(t, ids(l), other[0], other[4], other[3], other[2], tr[0], other[1], tr[1])
	if num(l["shared"]) != 2 || num(obj(l["aggregate"])["count"]) != 5 {
		t.Fatalf("gb: shared %v aggregate %v", l["shared"], l["aggregate"])
	}
}

// TestRebuildMatchesIncremental: rebuilding every figure from the reviews gives
// exactly what the review-state hook kept up to date, and moves the revisions on.
func TestRebuildMatchesIncremental(t *testing.T) {
	f := newFx(t)
	f.Channel("gb", "GB", "en")
	r := f.seed(
		seedRev{variant: "A", group: "G", body: "seramik kupa kulp sağlam", template: "general", aspects: `{"quality":4}`},
		seedRev{variant: "A", group: "G", body: "seramik kupa renk", rating: 3, imported: true, source: "X"},
		seedRev{variant: "B", group: "G", body: "kulp kırık seramik", rating: 1, process: true},
		seedRev{variant: "B", group: "G", market: "GB", body: "ceramic mug handle", rating: 4},
		seedRev{variant: "A", group: "G", body: "gizli yorum", state: "hidden"},
		seedRev{variant: "A", group: "G", body: "kaldırılacak yorum kupa"},
	)
	f.addMedia(r[0], store.MediaReady)
	f.moderate(r[5], "removed")
	snapshot := func() map[string]string {
		out := map[string]string{}
		for _, scope := range []string{"variant", "group"} {
			for _, key := range []string{"A", "B", "G"} {
				all, err := f.App.DB.Read().ProductStatsAllMarkets(ctx, scope, key)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range all {
					s.Revision, s.UpdatedAt = 0, time.Time{}
					b, _ := json.Marshal(s)
					out[scope+"/"+key+"/"+s.Market] = string(b)
				}
			}
		}
		return out
	}
	before := snapshot()
	revBefore, _ := f.App.DB.Read().ProductStatsOf(ctx, "group", "G", "TR")
	listBefore := f.mustList("product=G&scope=group&q=seramik")
	n, err := f.App.Read.RebuildProductStats(ctx)
	if err != nil || n != 4 {
		t.Fatalf("rebuild: %d %v", n, err)
	}
	after := snapshot()
	if len(before) != 5 {
		t.Fatalf("%d product rows", len(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s\nincremental %s\nrebuilt     %s", k, v, after[k])
		}
	}
	if revAfter, _ := f.App.DB.Read().ProductStatsOf(ctx, "group", "G", "TR"); revAfter.Revision <= revBefore.Revision {
		t.Fatalf("revision %d -> %d", revBefore.Revision, revAfter.Revision)
	}
	if l := f.mustList("product=G&scope=group&q=seramik"); !reflectEqualJSON(l, listBefore) {
		t.Fatalf("list changed by the rebuild")
	}
}

func reflectEqualJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

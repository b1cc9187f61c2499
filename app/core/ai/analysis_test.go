package ai

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPolarityNegation(t *testing.T) {
	cases := []struct {
		text string
		want int // sign
	}{
		{"The fabric is not bad at all", 1},
		{"Kumaşı hiç kötü değil", 1},
		{"Hiç beğenmedim", -1},
		{"Çok beğendim", 1},
		{"Kargoda sorun yok", 1},
		{"It broke after two days", -1},
		{"Bu ürünü tavsiye etmem", -1},
		{"I would not recommend it", -1},
		{"Great battery", 1},
	}
	for _, c := range cases {
		got := Polarity(Words(Fold(c.text)))
		if (got > 0) != (c.want > 0) || (got < 0) != (c.want < 0) || got == 0 {
			t.Errorf("%q: polarity %d, want sign %d", c.text, got, c.want)
		}
	}
}

func TestTopicsSkipStopWordsAndCarrySentiment(t *testing.T) {
	docs := []Doc{
		{ID: "r_1", Rating: 5, Body: "The battery lasts two days. Better than my old one, I had it on hand."},
		{ID: "r_2", Rating: 5, Body: "Battery is great and the screen is bright."},
		{ID: "r_3", Rating: 2, Body: "The screen scratched in a week. Battery is fine though, better than expected."},
		{ID: "r_4", Rating: 4, Body: "Screen is not bad. Second one I bought, better hand feel."},
		{ID: "r_5", Language: "tr", Rating: 5, Body: "İkinci kez aldım, batarya harika. Ekran çok güzel."},
		{ID: "r_6", Language: "tr", Rating: 2, Body: "Batarya hiç iyi değil. İkinci gün bozuldu, ekran kırık geldi."},
	}
	topics := Topics(docs)
	got := map[string]Topic{}
	for _, tp := range topics {
		got[tp.Topic] = tp
	}
	for _, stop := range []string{"better", "hand", "second", "ikinci", "bought", "aldım"} {
		if _, ok := got[stop]; ok {
			t.Errorf("topic %q is a stop word: %+v", stop, topics)
		}
	}
	if b := got["battery"]; b.Count != 3 || b.Sentiment != Positive {
		t.Errorf("battery = %+v, want 3 reviews, positive", b)
	}
	if s := got["screen"]; s.Count != 3 || s.Sentiment != Mixed {
		t.Errorf("screen = %+v, want 3 reviews, mixed", s)
	}
	if p := got["batarya"]; p.Count != 2 || p.Sentiment != Mixed {
		t.Errorf("batarya = %+v, want 2 reviews, mixed", p)
	}
	if e := got["ekran"]; e.Count != 2 {
		t.Errorf("ekran = %+v, want 2 reviews", e)
	}
}

// product builds n reviews: favourable ones praising the fit and fabric,
// critical ones about the zipper.
func product(fav, crit int) []Doc {
	var docs []Doc
	for i := 0; i < fav; i++ {
		docs = append(docs, Doc{ID: fmt.Sprintf("r_f%d", i), Rating: 5, Language: "en",
			Body: fmt.Sprintf("The fit is excellent and the fabric feels soft on the skin (%d). Washing it was easy.", i)})
	}
	for i := 0; i < crit; i++ {
		docs = append(docs, Doc{ID: fmt.Sprintf("r_c%d", i), Rating: 1, Language: "en",
			Body: fmt.Sprintf("The zipper broke on the first day of wearing it (%d). Stitching is poor.", i)})
	}
	return docs
}

func TestSummaryIsGroundedAndFollowsTheRatings(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if Summarize(product(9, 0), 10, now) != nil {
		t.Fatal("a summary under min_reviews")
	}
	docs := product(18, 2)
	sm := Summarize(docs, 10, now)
	if sm == nil || sm.ReviewCount != 20 || sm.GeneratedBy != ByBuiltin || len(sm.Sentences) == 0 {
		t.Fatalf("summary = %+v", sm)
	}
	byID := map[string]Doc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	crit := 0
	for _, s := range sm.Sentences {
		if len(s.ReviewIDs) == 0 {
			t.Fatalf("sentence %q cites no review", s.Text)
		}
		for _, id := range s.ReviewIDs {
			if !strings.Contains(byID[id].Body, s.Text) {
				t.Errorf("sentence %q is not quoted from %s", s.Text, id)
			}
			if byID[id].Rating <= 2 {
				crit++
			}
		}
		if !strings.Contains(sm.Text, s.Text) {
			t.Errorf("text lacks sentence %q", s.Text)
		}
	}
	// 2 of 20 critical: one of five sentences, never none.
	if crit != 1 {
		t.Errorf("critical sentences %d, want 1: %+v", crit, sm.Sentences)
	}
	// Half critical: half the sentences (near-identical ones are quoted once).
	sm = Summarize(product(10, 10), 10, now)
	crit = 0
	for _, s := range sm.Sentences {
		if strings.HasPrefix(s.ReviewIDs[0], "r_c") {
			crit++
		}
	}
	if crit == 0 || crit*2 != len(sm.Sentences) {
		t.Errorf("half critical reviews gave %d critical sentences of %d", crit, len(sm.Sentences))
	}
}

func TestSummaryCitesEveryReviewWithTheSameSentence(t *testing.T) {
	var docs []Doc
	for i := 0; i < 12; i++ {
		docs = append(docs, Doc{ID: fmt.Sprintf("r_%d", i), Rating: 5, Body: "The blender motor is strong and quiet."})
	}
	sm := Summarize(docs, 10, time.Now())
	if sm == nil || len(sm.Sentences) != 1 || len(sm.Sentences[0].ReviewIDs) != 12 {
		t.Fatalf("summary = %+v", sm)
	}
}

func TestGroundKeepsOnlyQuotedSentences(t *testing.T) {
	docs := product(8, 4)
	model := &Summary{Sentences: []Cited{
		{Text: "Buyers like the fit.", ReviewIDs: []string{"r_f1", "r_f2"}, Quotes: []string{"the fit is excellent", "fabric feels soft"}},
		{Text: "Some zippers broke.", ReviewIDs: []string{"r_c0"}, Quotes: []string{"The zipper broke on the first day"}},
		{Text: "It glows in the dark.", ReviewIDs: []string{"r_f3"}, Quotes: []string{"glows in the dark"}},
		{Text: "Cites nobody.", ReviewIDs: []string{"r_x"}, Quotes: []string{"the fit is excellent"}},
		{Text: "No quote.", ReviewIDs: []string{"r_f1"}},
	}}
	g := Ground(model, docs)
	if g == nil || len(g.Sentences) != 2 || g.GeneratedBy != ByModel || g.Text != "Buyers like the fit. Some zippers broke." {
		t.Fatalf("grounded = %+v", g)
	}
	model.Sentences = model.Sentences[2:]
	if Ground(model, docs) != nil {
		t.Fatal("an ungrounded summary was kept")
	}
}

func TestContentReasons(t *testing.T) {
	cases := map[string][]string{
		"Fits well, the fabric is soft and the colour is as shown.":                  nil,
		"Use my code SAVE20 for a discount, click here www.a.com www.b.com":          {ReasonSpam},
		"Call me on 0532 123 45 67 if you want to buy mine":                          {ReasonPersonalData},
		"IBAN TR33 0006 1005 1978 6457 8413 26 ödeme için":                           {ReasonPersonalData},
		"The election results are a scandal and the president must resign":           {ReasonOffTopic},
		"As an AI language model, I think this jacket is warm and well made.":        {ReasonMachineGenerated},
		"GREAT GREAT GREAT GREAT GREAT GREAT GREAT GREAT GREAT GREAT GREAT GREAT!!!": {ReasonSpam},
		"Harika bir ürün, kumaşı yumuşak ve rengi fotoğraftaki gibi.":                nil,
		"Hiç beğenmedim, kötü bir ürün. 1 yıldız.":                                   nil, // sentiment is never a reason
	}
	for text, want := range cases {
		got := ContentReasons(CheckInput{Body: text})
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%q: reasons %v, want %v", text, got, want)
		}
	}
}

func TestSimHashNearDuplicates(t *testing.T) {
	a, _ := SimHash("The jacket is warm and light, the hood fits well and the zipper runs smoothly every time.")
	b, _ := SimHash("The jacket is warm and light, the hood fits well and the zipper runs smoothly every time!!")
	c, _ := SimHash("Shoes arrived late and the left sole came off after a week of walking in the city.")
	if d := Distance(a, b); d > NearDuplicateBits {
		t.Errorf("near duplicates differ by %d bits", d)
	}
	if d := Distance(a, c); d <= NearDuplicateBits {
		t.Errorf("different texts differ by only %d bits", d)
	}
	if _, ok := SimHash("too short"); ok {
		t.Error("a short text got a fingerprint")
	}
}

func TestTemplateDrafts(t *testing.T) {
	d := TemplateDraft(DraftInput{Rating: 5, Language: "tr", Tone: ToneWarm, AuthorName: "Ayşe", Brand: "Moda"})
	if !strings.HasPrefix(d, "Merhaba Ayşe!") || !strings.Contains(d, "Moda") {
		t.Errorf("tr warm draft: %q", d)
	}
	d = TemplateDraft(DraftInput{Rating: 1, Language: "en", Tone: ToneFormal})
	if !strings.HasPrefix(d, "Dear customer,") || !strings.Contains(d, "sorry") || strings.Contains(d, "{") {
		t.Errorf("en formal draft: %q", d)
	}
}

// TestTopicsAreThings: an English word used as a verb ("it boils", "boils
// water") is no topic even when no list names it; the nouns around it stay.
func TestTopicsAreThings(t *testing.T) {
	docs := []Doc{
		{ID: "r_1", Rating: 5, Body: "The kettle boils water quickly and the handle stays cool."},
		{ID: "r_2", Rating: 4, Body: "Works as expected. The handle feels solid and it boils quietly."},
		{ID: "r_3", Rating: 2, Body: "It leaks from the base. The lid is flimsy and it squeaks."},
		{ID: "r_4", Rating: 3, Body: "Lid is loose, it squeaks when it boils. The base is fine."},
	}
	got := map[string]bool{}
	for _, tp := range Topics(docs) {
		got[tp.Topic] = true
	}
	for _, verb := range []string{"boils", "squeaks"} {
		if got[verb] {
			t.Errorf("verb %q is a topic: %v", verb, got)
		}
	}
	for _, noun := range []string{"handle", "base"} {
		if !got[noun] {
			t.Errorf("noun %q is missing from the topics: %v", noun, got)
		}
	}
}

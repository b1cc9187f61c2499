package ai

import (
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Doc is one published own review as the AI package reads it.
type Doc struct {
	ID       string // public id
	Rating   int
	Title    string
	Body     string
	Language string
}

// Topic is one topic of a product's reviews: the phrase as first written, the
// number of reviews mentioning it and the sentiment of the sentences that do.
type Topic struct {
	Topic     string `json:"topic"`
	Sentiment string `json:"sentiment"`
	Count     int    `json:"count"`
}

// Cited is one sentence of a summary with the reviews it rests on.
type Cited struct {
	Text      string   `json:"text"`
	ReviewIDs []string `json:"review_ids"`
	// Quotes are a model's verbatim quotes, one per cited review (not stored).
	Quotes []string `json:"-"`
}

// Summary is the ai_summary object of the list answer (CONTRACT "AI package").
// Label is set when it is shown, in the answer's language.
type Summary struct {
	Text        string    `json:"text"`
	ReviewCount int       `json:"review_count"`
	CreatedAt   time.Time `json:"created_at"`
	Topics      []Topic   `json:"topics"`
	Sentences   []Cited   `json:"sentences"`
	GeneratedBy string    `json:"generated_by"`
	Label       string    `json:"label"`
}

// Generated-by values.
const (
	ByBuiltin = "builtin"
	ByModel   = "model"
)

// Limits of the builtin analysis.
const (
	MaxTopics        = 10
	MinTopicReviews  = 2
	SummarySentences = 5
	minQuoteRunes    = 25
	maxQuoteRunes    = 220
)

// sentence is one analysed sentence of a review.
type sentence struct {
	doc      int
	text     string
	folded   string
	words    []string
	polarity int
	topics   []string // folded topic words, distinct
}

// analysis is a product's reviews split into sentences with their topic words.
type analysis struct {
	docs      []Doc
	sentences []sentence
	forms     map[string]string // folded topic -> form first written
	counts    map[string]int    // folded topic -> reviews mentioning it
	// verbish is, per folded word, how many more of its English uses read as a
	// verb than as a noun (verbCue): a topic names a thing.
	verbish map[string]int
}

func analyse(docs []Doc) *analysis {
	a := &analysis{docs: docs, forms: map[string]string{}, counts: map[string]int{}, verbish: map[string]int{}}
	seen := map[string]int{}
	for i, d := range docs {
		parts := Sentences(d.Body)
		if t := strings.TrimSpace(d.Title); t != "" {
			parts = append([]string{t}, parts...)
		}
		for k, p := range parts {
			f := Fold(p)
			ws := Words(f)
			s := sentence{doc: i, folded: f, words: ws, polarity: Polarity(ws)}
			if k > 0 || d.Title == "" {
				s.text = p // titles are never quoted
			}
			var orig []string
			for j, w := range ws {
				if !TopicWord(w) {
					continue
				}
				if d.Language != "tr" {
					a.verbish[w] += verbCue(ws, j)
				}
				if contains(s.topics, w) {
					continue
				}
				s.topics = append(s.topics, w)
				if seen[w] != i+1 {
					seen[w] = i + 1
					a.counts[w]++
				}
				if _, ok := a.forms[w]; !ok {
					if orig == nil {
						orig = originalWords(p, d.Language)
					}
					a.forms[w] = formOf(orig, w)
				}
			}
			a.sentences = append(a.sentences, s)
		}
	}
	return a
}

// originalWords are a sentence's words as written, lower case by the language.
func originalWords(s, lang string) []string {
	if lang == "tr" {
		s = strings.ToLowerSpecial(unicode.TurkishCase, s)
	} else {
		s = strings.ToLower(s)
	}
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

func formOf(orig []string, folded string) string {
	for _, o := range orig {
		if Fold(o) == folded {
			return o
		}
	}
	return folded
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// opinion is a sentence's leaning: its words' polarity, else its review's rating.
func (a *analysis) opinion(s sentence) int {
	if s.polarity != 0 {
		return s.polarity
	}
	switch r := a.docs[s.doc].Rating; {
	case r >= 4:
		return 1
	case r <= 2:
		return -1
	}
	return 0
}

// topics lists up to MaxTopics topics mentioned in at least MinTopicReviews
// reviews, the most mentioned first, each with its sentiment.
func (a *analysis) topics() []Topic {
	type cand struct {
		word  string
		count int
	}
	var cs []cand
	for w, n := range a.counts {
		if n >= MinTopicReviews && a.verbish[w] <= 0 {
			cs = append(cs, cand{w, n})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].count != cs[j].count {
			return cs[i].count > cs[j].count
		}
		return cs[i].word < cs[j].word
	})
	if len(cs) > MaxTopics {
		cs = cs[:MaxTopics]
	}
	idx := map[string]int{}
	pos, neg := make([]int, len(cs)), make([]int, len(cs))
	for i, c := range cs {
		idx[c.word] = i
	}
	for _, s := range a.sentences {
		var op int
		decided := false
		for _, w := range s.topics {
			i, ok := idx[w]
			if !ok {
				continue
			}
			if !decided {
				op, decided = a.opinion(s), true
			}
			switch {
			case op > 0:
				pos[i]++
			case op < 0:
				neg[i]++
			}
		}
	}
	out := make([]Topic, 0, len(cs))
	for i, c := range cs {
		out = append(out, Topic{Topic: a.forms[c.word], Sentiment: sentimentOf(pos[i], neg[i]), Count: c.count})
	}
	return out
}

// Topics lists the topics of a product's reviews with their sentiment.
func Topics(docs []Doc) []Topic { return analyse(docs).topics() }

// Summarize builds the grounded extractive summary of a product's reviews: up to
// SummarySentences sentences quoted verbatim from reviews, each citing the reviews
// whose text holds it. Favourable and critical sentences are chosen in the share
// of favourable (4-5 stars) and critical (1-2 stars) reviews, and a product with
// any critical review gets at least one critical sentence when one can be quoted.
// Fewer than minReviews reviews give nil.
func Summarize(docs []Doc, minReviews int, now time.Time) *Summary {
	if len(docs) == 0 || len(docs) < minReviews {
		return nil
	}
	a := analyse(docs)
	topics := a.topics()
	weight := map[string]float64{}
	for _, t := range topics {
		weight[Fold(t.Topic)] = float64(t.Count)
	}
	favourable, critical := 0, 0
	for _, d := range docs {
		switch {
		case d.Rating >= 4:
			favourable++
		case d.Rating <= 2:
			critical++
		}
	}
	nCrit := int(math.Round(float64(SummarySentences) * float64(critical) / float64(len(docs))))
	if critical > 0 && nCrit == 0 {
		nCrit = 1
	}
	nFav := SummarySentences - nCrit
	if favourable == 0 {
		nFav = 0
	}

	// Candidate quotes: body sentences of a readable length; the same text in
	// several reviews is one candidate citing them all.
	type cand struct {
		s     sentence
		score float64
		ids   []string
	}
	byText := map[string]*cand{}
	var cands []*cand
	for _, s := range a.sentences {
		if s.text == "" {
			continue
		}
		n := utf8.RuneCountInString(s.text)
		if n < minQuoteRunes || n > maxQuoteRunes || len(s.topics) == 0 {
			continue
		}
		key := strings.Join(s.words, " ")
		id := a.docs[s.doc].ID
		if c, ok := byText[key]; ok {
			if !contains(c.ids, id) {
				c.ids = append(c.ids, id)
			}
			continue
		}
		score := 0.0
		for _, w := range s.topics {
			score += weight[w]
		}
		score /= math.Sqrt(float64(len(s.words)) + 1)
		c := &cand{s: s, score: score, ids: []string{id}}
		byText[key] = c
		cands = append(cands, c)
	}
	for _, c := range cands {
		c.score *= 1 + math.Log(float64(len(c.ids)))
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })

	var chosen []*cand
	containsCand := func(list []*cand, c *cand) bool {
		for _, x := range list {
			if x == c {
				return true
			}
		}
		return false
	}
	covered := map[string]bool{}
	usedDoc := map[int]bool{}
	// A sentence nearly the same as one chosen (most words shared) adds nothing.
	similarToChosen := func(ws []string) bool {
		for _, x := range chosen {
			if jaccard(ws, x.s.words) >= 0.6 {
				return true
			}
		}
		return false
	}
	pick := func(n int, want func(c *cand) bool) {
		for pass := 0; pass < 2 && n > 0; pass++ {
			for _, c := range cands {
				if n == 0 {
					break
				}
				if !want(c) || usedDoc[c.s.doc] || containsCand(chosen, c) || similarToChosen(c.s.words) {
					continue
				}
				fresh := false
				for _, w := range c.s.topics {
					if weight[w] > 0 && !covered[w] {
						fresh = true
					}
				}
				if !fresh && pass == 0 {
					continue // first pass: every sentence adds a topic
				}
				chosen = append(chosen, c)
				usedDoc[c.s.doc] = true
				for _, w := range c.s.topics {
					covered[w] = true
				}
				n--
			}
		}
	}
	pick(nFav, func(c *cand) bool { return a.docs[c.s.doc].Rating >= 4 && c.s.polarity >= 0 })
	pick(nCrit, func(c *cand) bool { return a.docs[c.s.doc].Rating <= 2 && c.s.polarity <= 0 })
	if len(chosen) == 0 {
		return nil
	}
	// Favourable first, then critical, each in their order of weight.
	out := &Summary{ReviewCount: len(docs), CreatedAt: now.UTC(), Topics: topics, GeneratedBy: ByBuiltin}
	var texts []string
	for _, c := range chosen {
		out.Sentences = append(out.Sentences, Cited{Text: c.s.text, ReviewIDs: c.ids})
		texts = append(texts, c.s.text)
	}
	out.Text = strings.Join(texts, " ")
	return out
}

// jaccard is the share of distinct words two word lists have in common.
func jaccard(a, b []string) float64 {
	set := map[string]int{}
	for _, w := range a {
		set[w] |= 1
	}
	for _, w := range b {
		set[w] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	if len(set) == 0 {
		return 0
	}
	return float64(both) / float64(len(set))
}

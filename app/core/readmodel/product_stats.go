package readmodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"
	"strings"
	"time"
	"unicode"

	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Product figures of the storefront list (spec 2, "Review list response"): the
// aggregate, aspects, topics, gallery and media_reviews of every product are kept
// precomputed in product_stats, per scope (variant, group) and market. Each
// published review has a review_listing row holding its contribution (what it adds
// to the figures); when a review changes (afterReviewStateChange) the old
// contribution is taken out and the new one added, so the work is proportional to
// one review, never to the product's review count. The same rows feed the search
// index (review_search) over the normalised title and body.

// Topic and gallery limits (spec 2, "Limits").
const (
	MaxTopics        = 5
	topicSlack       = 15 // words read beyond MaxTopics, for the ones no longer topics
	MinTopicLetters  = 4
	MinTopicReviews  = 2
	MaxGalleryItems  = 12
	maxTopicWordRune = 40
)

// SearchFold is THE normalisation of search and topic text, used both when reviews
// are indexed and for the q and topic parameters: lower case, the Turkish dotted and
// dotless i (İ, I, ı, i) all become i, and diacritics are removed (ç->c, ş->s,
// ğ->g, ö->o, ü->u, é->e, ß->ss).
func SearchFold(s string) string { return ai.Fold(s) }

// searchTokens splits folded text into the words the index holds (runs of letters
// and digits, as the unicode61 tokenizer does).
func searchTokens(folded string) []string {
	return strings.FieldsFunc(folded, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// topicWords lists the distinct topic words of a review's title and body: runs of
// at least 4 letters that can name a topic (ai.TopicWord: no stop word, no
// praise or blame), folded, each with the form first
// written (lower case by the review's language).
func topicWords(title, body, lang string) map[string]string {
	out := map[string]string{}
	text := title + "\n" + body
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		n := 0
		for range w {
			n++
		}
		if n < MinTopicLetters || n > maxTopicWordRune {
			continue
		}
		f := SearchFold(w)
		if !ai.TopicWord(f) {
			continue
		}
		if _, seen := out[f]; seen {
			continue
		}
		form := strings.ToLower(w)
		if lang == "tr" {
			form = strings.ToLowerSpecial(unicode.TurkishCase, w)
		}
		out[f] = form
	}
	return out
}

// productToken names a product in the search index: one alphanumeric token per
// scope, key and market ("" market: every market).
func productToken(scope, key, market string) string {
	h := fnv.New64a()
	h.Write([]byte(scope + "\x00" + key + "\x00" + market))
	p := "v"
	if scope == store.ScopeGroup {
		p = "g"
	}
	if market == "" {
		p += "a"
	} else {
		p += "m"
	}
	return p + strconv.FormatUint(h.Sum64(), 36)
}

// productTokens are the product tokens of a review.
func productTokens(r store.Review) string {
	ts := []string{productToken(store.ScopeVariant, r.VariantKey, r.Market), productToken(store.ScopeVariant, r.VariantKey, "")}
	if r.GroupKey != "" {
		ts = append(ts, productToken(store.ScopeGroup, r.GroupKey, r.Market), productToken(store.ScopeGroup, r.GroupKey, ""))
	}
	return strings.Join(ts, " ")
}

// contribution is what one published review adds to its product's figures; it is
// stored with the review's listing row.
type contribution struct {
	Rating     int               `json:"rating"`
	Verified   bool              `json:"verified,omitempty"`
	Imported   bool              `json:"imported,omitempty"`
	Structured bool              `json:"structured,omitempty"`
	Syndicable bool              `json:"syndicable,omitempty"`
	Media      bool              `json:"media,omitempty"`
	Source     string            `json:"source,omitempty"`
	Aspects    map[string][2]int `json:"aspects,omitempty"` // "template/key" -> value, scale
	Words      map[string]string `json:"words,omitempty"`
	Text       uint64            `json:"text,omitempty"` // hash of the indexed text
}

// aspectStat is one topic of a product's aspects figures.
type aspectStat struct {
	Sum      int                 `json:"sum"`
	Count    int                 `json:"count"`
	Scale    int                 `json:"scale"`
	Template string              `json:"template"`
	Key      string              `json:"key"`
	Order    int                 `json:"order"`
	Label    map[string]string   `json:"label,omitempty"`
	Steps    map[string][]string `json:"steps,omitempty"`
}

// Structured reports whether a review counts in structured data: an own
// product-experience review (imported, syndicated and shopping-experience reviews
// never do).
func Structured(r store.Review) bool {
	return r.Origin == core.OriginOwn && r.Experience == core.ExperienceProduct
}

// Syndicable reports whether other markets may show a review when syndication is
// on: an own product review with proof of purchase.
func Syndicable(r store.Review) bool {
	return core.Verified(r) && r.Experience == core.ExperienceProduct
}

func searchText(r store.Review) string { return SearchFold(r.Title + "\n" + r.Body) }

func textHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// contributionOf computes what a published review adds.
func (c *Service) contributionOf(ctx context.Context, q *store.Q, r store.Review, media []store.Media) (contribution, error) {
	ct := contribution{Rating: r.Rating, Verified: core.Verified(r), Imported: r.Origin == core.OriginImported,
		Structured: Structured(r), Syndicable: Syndicable(r), Words: topicWords(r.Title, r.Body, r.Language),
		Text: textHash(searchText(r))}
	if ct.Imported {
		ct.Source = r.SourceName
		if ct.Source == "" {
			ct.Source = r.SourcePlatform
		}
	}
	for _, m := range media {
		if m.State == store.MediaReady {
			ct.Media = true
			break
		}
	}
	vals := brand.StoredAspects(r.Aspects)
	if len(vals) > 0 && r.AspectTemplate != "" {
		tpl, ok, err := c.Brand.AspectTemplateByKey(ctx, q, r.AspectTemplate)
		if err != nil {
			return ct, err
		}
		if ok {
			for _, d := range tpl.Aspects {
				if v, has := vals[d.Key]; has && v >= 1 && v <= d.Scale {
					if ct.Aspects == nil {
						ct.Aspects = map[string][2]int{}
					}
					ct.Aspects[tpl.Key+"/"+d.Key] = [2]int{v, d.Scale}
				}
			}
		}
	}
	return ct, nil
}

// productRef names one product_stats row.
type productRef struct{ Scope, Key, Market string }

func RefsOf(variant, group, market string) []productRef {
	out := []productRef{{store.ScopeVariant, variant, market}}
	if group != "" {
		out = append(out, productRef{store.ScopeGroup, group, market})
	}
	return out
}

// statsWork is one product row being updated in a transaction.
type statsWork struct {
	st       store.ProductStats
	aspects  map[string]aspectStat
	sources  map[string]int
	words    map[string]string // words added (+1)
	unwords  map[string]string // words removed (-1)
	gallery  bool              // the gallery must be rebuilt
	topics   bool              // the topics must be rebuilt
	dirtyAsp bool
}

func newStatsWork(st store.ProductStats) *statsWork {
	w := &statsWork{st: st, aspects: map[string]aspectStat{}, sources: map[string]int{}}
	_ = json.Unmarshal([]byte(st.Aspects), &w.aspects)
	_ = json.Unmarshal([]byte(st.ImportedSources), &w.sources)
	return w
}

// apply adds (sign +1) or takes out (sign -1) one contribution.
func (w *statsWork) apply(ct contribution, sign int) {
	s := &w.st
	s.Reviews += sign
	s.RatingSum += sign * ct.Rating
	if ct.Rating >= 1 && ct.Rating <= 5 {
		s.Ratings[ct.Rating-1] += sign
	}
	add := func(cond bool, n *int) {
		if cond {
			*n += sign
		}
	}
	add(ct.Verified, &s.Verified)
	add(ct.Imported, &s.Imported)
	add(ct.Structured, &s.Structured)
	if ct.Structured {
		s.StructuredSum += sign * ct.Rating
	}
	add(ct.Media, &s.MediaReviews)
	add(ct.Syndicable, &s.Syndicable)
	add(ct.Syndicable && ct.Media, &s.SyndicableMedia)
	if ct.Imported {
		w.sources[ct.Source] += sign
		if w.sources[ct.Source] <= 0 {
			delete(w.sources, ct.Source)
		}
	}
	for k, vs := range ct.Aspects {
		a := w.aspects[k]
		a.Sum += sign * vs[0]
		a.Count += sign
		a.Scale = vs[1]
		if a.Count <= 0 {
			delete(w.aspects, k)
			continue
		}
		w.aspects[k] = a
		w.dirtyAsp = true
	}
	if ct.Media {
		w.gallery = true
	}
}

// refreshReviewStats brings the listing, search entry and product figures of one
// review up to date with its current state, in tx. It is called by
// afterReviewStateChange for every change of a review or of its media.
func (c *Service) RefreshReviewStats(ctx context.Context, tx *store.Tx, reviewID int64) error {
	return c.RefreshReviewsStats(ctx, tx, []int64{reviewID})
}

// RefreshReviewsStats is RefreshReviewStats for many reviews changed in one
// transaction (a marketplace import batch): each review's listing, search and word
// rows are refreshed, and each product's figures are saved once at the end.
func (c *Service) RefreshReviewsStats(ctx context.Context, tx *store.Tx, reviewIDs []int64) error {
	work := map[productRef]*statsWork{}
	get := func(ref productRef) (*statsWork, error) {
		if w := work[ref]; w != nil {
			return w, nil
		}
		st, err := tx.ProductStatsOf(ctx, ref.Scope, ref.Key, ref.Market)
		if errors.Is(err, store.ErrNotFound) {
			st, err = store.ProductStats{Scope: ref.Scope, ProductKey: ref.Key, Market: ref.Market}, nil
		}
		if err != nil {
			return nil, err
		}
		w := newStatsWork(st)
		work[ref] = w
		return w, nil
	}
	for _, id := range reviewIDs {
		if err := c.stageReviewStats(ctx, tx, id, get); err != nil {
			return err
		}
	}
	for ref, w := range work {
		if err := c.refreshProductStats(ctx, tx, ref, w); err != nil {
			return err
		}
	}
	return nil
}

// stageReviewStats refreshes one review's listing, search and word rows and
// applies its change to the product figures handed out by get.
func (c *Service) stageReviewStats(ctx context.Context, tx *store.Tx, reviewID int64, get func(productRef) (*statsWork, error)) error {
	r, err := tx.ReviewByID(ctx, reviewID)
	if err != nil {
		return fmt.Errorf("core: refresh review stats: %w", err)
	}
	old, err := tx.ListingOf(ctx, reviewID)
	hadOld := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var oldC contribution
	if hadOld {
		_ = json.Unmarshal([]byte(old.Contribution), &oldC)
	}
	listed := r.State == core.ReviewPublished
	var newC contribution
	if listed {
		media, err := tx.MediaOfReview(ctx, r.ID)
		if err != nil {
			return err
		}
		if newC, err = c.contributionOf(ctx, tx.Q, r, media); err != nil {
			return err
		}
	}
	// words and unwords of this review per product (the product figures may
	// collect many reviews).
	type wordDiff struct{ words, unwords map[string]string }
	diffs := map[productRef]*wordDiff{}
	var refs []productRef
	diff := func(ref productRef) *wordDiff {
		if d := diffs[ref]; d != nil {
			return d
		}
		d := &wordDiff{}
		diffs[ref] = d
		refs = append(refs, ref)
		return d
	}
	if hadOld {
		for _, ref := range RefsOf(old.VariantKey, old.GroupKey, old.Market) {
			w, err := get(ref)
			if err != nil {
				return err
			}
			w.apply(oldC, -1)
			diff(ref).unwords = oldC.Words
		}
	}
	if listed {
		for _, ref := range RefsOf(r.VariantKey, r.GroupKey, r.Market) {
			w, err := get(ref)
			if err != nil {
				return err
			}
			w.apply(newC, +1)
			diff(ref).words = newC.Words
			if r.ProductName != "" && w.st.ProductName == "" {
				w.st.ProductName = r.ProductName
			}
		}
	}
	for _, ref := range refs {
		d := diffs[ref]
		if maps.Equal(d.words, d.unwords) {
			continue
		}
		w, err := get(ref)
		if err != nil {
			return err
		}
		if len(d.unwords) > 0 {
			if err := tx.AddProductWords(ctx, ref.Scope, ref.Key, ref.Market, d.unwords, -1); err != nil {
				return err
			}
			w.topics = true
		}
		if len(d.words) > 0 {
			if err := tx.AddProductWords(ctx, ref.Scope, ref.Key, ref.Market, d.words, +1); err != nil {
				return err
			}
			w.topics = true
		}
	}
	if listed {
		err = tx.SaveListing(ctx, store.Listing{ReviewID: r.ID, VariantKey: r.VariantKey, GroupKey: r.GroupKey,
			Market: r.Market, Rating: r.Rating, Verified: newC.Verified, Syndicable: newC.Syndicable, HasMedia: newC.Media,
			Helpful: r.HelpfulCount, PublishedAt: publishedAt(r), Contribution: jsonString(newC)})
		if err != nil {
			return err
		}
		if !hadOld || oldC.Text != newC.Text || old.VariantKey != r.VariantKey || old.GroupKey != r.GroupKey ||
			old.Market != r.Market {
			if err := tx.IndexReviewText(ctx, r.ID, productTokens(r), searchText(r)); err != nil {
				return err
			}
		}
	} else if hadOld {
		if err := tx.DeleteListing(ctx, r.ID); err != nil {
			return err
		}
		if err := tx.UnindexReview(ctx, r.ID); err != nil {
			return err
		}
	}
	return nil
}

// publishedAt is the time a review is listed under: its publication, else its
// submission.
func publishedAt(r store.Review) time.Time {
	if r.PublishedAt.IsZero() {
		return r.SubmittedAt
	}
	return r.PublishedAt
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("core: marshal: %v", err))
	}
	return string(b)
}

// RefreshProductStats rebuilds, in tx, the derived figures (topics, gallery, aspect
// labels) of a product in a market for both scopes and moves their revision on, so
// every cached list answer of the product is replaced. Call it after a change that
// alters how a product's listed reviews look without going through
// AfterReviewStateChange (for example a renamed rating-topic list).
func (c *Service) RefreshProductStats(ctx context.Context, tx *store.Tx, variantKey, groupKey, market string) error {
	for _, ref := range RefsOf(variantKey, groupKey, market) {
		st, err := tx.ProductStatsOf(ctx, ref.Scope, ref.Key, ref.Market)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		w := newStatsWork(st)
		w.gallery, w.topics, w.dirtyAsp = true, true, true
		if err := c.refreshProductStats(ctx, tx, ref, w); err != nil {
			return err
		}
	}
	return nil
}

// refreshProductStats finishes one product row: rebuilds what w marks as changed
// (topics from product_words, the gallery from the newest media reviews, the
// labels of the aspects), moves the revision on and saves the row.
func (c *Service) refreshProductStats(ctx context.Context, tx *store.Tx, ref productRef, w *statsWork) error {
	st := &w.st
	if w.topics || st.Revision == 0 {
		// Words indexed before the stop words grew are skipped here too (they stay
		// in product_words until the reviews are indexed again).
		top, err := tx.TopProductWords(ctx, ref.Scope, ref.Key, ref.Market, MinTopicReviews, MaxTopics+topicSlack)
		if err != nil {
			return err
		}
		list := make([]TopicView, 0, MaxTopics)
		for _, t := range top {
			if len(list) < MaxTopics && ai.TopicWord(t.Word) {
				list = append(list, TopicView{Topic: t.Form, Count: t.Reviews})
			}
		}
		st.Topics = jsonString(list)
	}
	if w.gallery || st.Revision == 0 {
		g, err := c.buildGallery(ctx, tx.Q, ref)
		if err != nil {
			return err
		}
		st.Gallery = jsonString(g)
	}
	if w.dirtyAsp {
		if err := c.labelAspects(ctx, tx.Q, w.aspects); err != nil {
			return err
		}
	}
	st.Aspects = jsonString(w.aspects)
	st.ImportedSources = jsonString(w.sources)
	st.Revision++
	return tx.SaveProductStats(ctx, *st)
}

// labelAspects copies each topic's labels, steps and order from its list.
func (c *Service) labelAspects(ctx context.Context, q *store.Q, aspects map[string]aspectStat) error {
	lists := map[string]*brand.AspectTemplate{}
	for k, a := range aspects {
		tplKey, key, _ := strings.Cut(k, "/")
		tpl, seen := lists[tplKey]
		if !seen {
			t, ok, err := c.Brand.AspectTemplateByKey(ctx, q, tplKey)
			if err != nil {
				return err
			}
			if ok {
				tpl = &t
			}
			lists[tplKey] = tpl
		}
		a.Template, a.Key = tplKey, key
		if tpl != nil {
			for i, d := range tpl.Aspects {
				if d.Key == key {
					// Steps name the values only on the scale they were given on.
					a.Order, a.Label, a.Steps = i, d.Label, nil
					if d.Scale == a.Scale {
						a.Steps = d.Steps
					}
				}
			}
		}
		aspects[k] = a
	}
	return nil
}

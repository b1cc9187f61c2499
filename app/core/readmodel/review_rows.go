package readmodel

import (
	"context"
	"math"
	"net/url"
	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/brand"
	"reviewd/store"
	"sort"
	"strconv"
	"strings"
)

// revisionKey names the figures an answer is built from.
func revisionKey(revs []store.ProductRevision) string {
	var b strings.Builder
	for _, r := range revs {
		b.WriteString(r.Market + ":" + strconv.FormatInt(r.Revision, 36) + ";")
	}
	return b.String()
}

// round1 rounds to one decimal, halves up.
func round1(f float64) float64 { return math.Floor(f*10+0.5) / 10 }

// StarsFilled is the number of filled stars of an average, in halves, halves
// rounded up (4.24 -> 4, 4.25 -> 4.5, 4.75 -> 5).
func StarsFilled(avg float64) float64 { return math.Floor(avg*2+0.5) / 2 }

// aggregateOf builds the aggregate of a product's figures in a market; it also
// returns the unrounded structured average (for structured data).
func aggregateOf(s store.ProductStats, lang string) (Aggregate, float64) {
	a := Aggregate{Count: s.Reviews, Distribution: map[string]int{}, VerifiedCount: s.Verified,
		ImportedCount: s.Imported, StructuredCount: s.Structured}
	for i := 0; i < 5; i++ {
		a.Distribution[strconv.Itoa(i+1)] = s.Ratings[i]
	}
	if s.Reviews > 0 {
		avg := float64(s.RatingSum) / float64(s.Reviews)
		a.Average, a.StarsFilled = round1(avg), StarsFilled(avg)
	}
	var structAvg float64
	if s.Structured > 0 {
		structAvg = float64(s.StructuredSum) / float64(s.Structured)
		a.StructuredAverage = round1(structAvg)
	}
	if s.Imported > 0 {
		var sources map[string]int
		_ = jsonUnmarshal(s.ImportedSources, &sources)
		if len(sources) == 1 {
			for name := range sources {
				if name != "" {
					a.ImportedLabel = brand.Word(lang, "imported_label_source", "n", strconv.Itoa(s.Imported), "source", name)
				}
			}
		}
		if a.ImportedLabel == "" {
			a.ImportedLabel = brand.WordN(lang, "imported_label", s.Imported)
		}
	}
	return a, structAvg
}

// aspectSummaries turns the stored aspect figures into the list's aspects: topics
// of the same key and scale from different lists are merged; the list with the
// most ratings comes first, each list's topics in its order.
func aspectSummaries(stored, lang string) []AspectSummary {
	out := []AspectSummary{}
	var m map[string]aspectStat
	if err := jsonUnmarshal(stored, &m); err != nil || len(m) == 0 {
		return out
	}
	perTemplate := map[string]int{}
	for _, a := range m {
		perTemplate[a.Template] += a.Count
	}
	list := make([]aspectStat, 0, len(m))
	for _, a := range m {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if perTemplate[a.Template] != perTemplate[b.Template] {
			return perTemplate[a.Template] > perTemplate[b.Template]
		}
		if a.Template != b.Template {
			return a.Template < b.Template
		}
		return a.Order < b.Order
	})
	merged := []aspectStat{}
	for _, a := range list {
		found := false
		for i := range merged {
			if merged[i].Key == a.Key && merged[i].Scale == a.Scale {
				merged[i].Sum += a.Sum
				merged[i].Count += a.Count
				found = true
			}
		}
		if !found {
			merged = append(merged, a)
		}
	}
	for _, a := range merged {
		if a.Count == 0 || a.Scale < 1 {
			continue
		}
		avg := float64(a.Sum) / float64(a.Count)
		s := AspectSummary{Key: a.Key, Label: brand.PickLang(a.Label, lang), Scale: a.Scale, Steps: brand.PickSteps(a.Steps, lang),
			Average: round1(avg), Count: a.Count}
		if s.Label == "" {
			s.Label = a.Key
		}
		if a.Scale > 1 {
			s.Position = math.Round((avg-1)/float64(a.Scale-1)*1000) / 1000
		}
		if i := int(math.Floor(avg+0.5)) - 1; i >= 0 && i < len(s.Steps) {
			s.StepLabel = s.Steps[i]
		}
		out = append(out, s)
	}
	return out
}

// ReviewRows builds the rows of a page (media and rating topics included).
func (c *Service) ReviewRows(ctx context.Context, q *store.Q, rows []store.Review, market, lang string, translate bool) ([]ReviewRow, error) {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	media, err := q.MediaOfReviews(ctx, ids)
	if err != nil {
		return nil, err
	}
	byReview := map[int64][]MediaItemView{}
	for _, m := range media {
		if item, ok := c.PublicMediaItem(m); ok {
			byReview[m.ReviewID] = append(byReview[m.ReviewID], item)
		}
	}
	notes, err := brandNotes(ctx, q, ids)
	if err != nil {
		return nil, err
	}
	// Translations into the answer's language (ai_translation_enabled, a model).
	tr, err := c.AI.Translations(ctx, q, ids, lang, translate)
	if err != nil {
		return nil, err
	}
	templates := map[string]*brand.AspectTemplate{}
	out := make([]ReviewRow, 0, len(rows))
	for _, r := range rows {
		author, anon := reviewAuthor(r)
		row := ReviewRow{ID: r.PublicID, Rating: r.Rating, Title: r.Title, Body: r.Body, Author: author, Anonymous: anon,
			Language: r.Language, PublishedAt: publishedAt(r), Verified: core.Verified(r), HelpfulCount: r.HelpfulCount,
			UnhelpfulCount: r.UnhelpfulCount, AspectScores: brand.StoredAspects(r.Aspects), AspectTemplate: r.AspectTemplate,
			Media: byReview[r.ID], Origin: r.Origin, Experience: r.Experience, Translations: map[string]any{},
			Aspects: []brand.AspectValue{}}
		if row.Media == nil {
			row.Media = []MediaItemView{}
		}
		if t, ok := tr[r.ID]; ok && r.Language != lang {
			row.Translations[lang] = map[string]string{"title": t[0], "body": t[1], "generated_by": ai.ByModel}
		}
		row.SellerResponse, row.Resolution = notes.responses[r.ID], notes.resolutions[r.ID]
		if r.Origin == core.OriginOwn {
			row.VerificationMethod = r.VerificationMethod
		}
		if r.Incentivized {
			row.Incentivized, row.IncentiveLabel = true, IncentiveLabel(lang)
		}
		switch {
		case r.Market != market:
			row.Origin, row.OriginMarket = OriginSyndicated, r.Market
			row.OriginLabel = brand.Word(lang, "origin_syndicated", "market", r.Market)
		case r.Origin == core.OriginImported:
			src := r.SourceName
			if src == "" {
				src = r.SourcePlatform
			}
			if src != "" {
				row.OriginLabel = brand.Word(lang, "origin_imported", "source", src)
			} else {
				row.OriginLabel = brand.Word(lang, "origin_imported_other")
			}
			if u, err := url.Parse(r.SourceURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
				row.OriginURL = r.SourceURL
			}
		}
		if r.AspectTemplate != "" && len(row.AspectScores) > 0 {
			tpl, seen := templates[r.AspectTemplate]
			if !seen {
				t, ok, err := c.Brand.AspectTemplateByKey(ctx, q, r.AspectTemplate)
				if err != nil {
					return nil, err
				}
				if ok {
					tpl = &t
				}
				templates[r.AspectTemplate] = tpl
			}
			if tpl != nil {
				row.Aspects = tpl.Values(r.Aspects, lang)
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// reviewNotes are the brand's notes of a page of reviews by review id.
type reviewNotes struct {
	responses, resolutions map[int64]*ReviewNote
}

// brandNotes reads the seller responses and resolution notes of reviews.
func brandNotes(ctx context.Context, q *store.Q, ids []int64) (reviewNotes, error) {
	out := reviewNotes{responses: map[int64]*ReviewNote{}, resolutions: map[int64]*ReviewNote{}}
	if len(ids) == 0 {
		return out, nil
	}
	responses, err := q.SellerResponsesOf(ctx, ids)
	if err != nil {
		return out, err
	}
	for _, n := range responses {
		at := n.At
		out.responses[n.ReviewID] = &ReviewNote{Body: n.Body, PublishedAt: &at}
	}
	resolutions, err := q.ResolutionsOf(ctx, ids)
	if err != nil {
		return out, err
	}
	for _, n := range resolutions {
		at := n.At
		out.resolutions[n.ReviewID] = &ReviewNote{Body: n.Body, CreatedAt: &at}
	}
	return out, nil
}

// methodStatementLink is the address of the channel's method statement in lang:
// the brand's own page (external) when one is linked, else the hosted page.
func (c *Service) methodStatementLink(ch store.Channel, lang, external string) string {
	if external != "" {
		return external
	}
	return c.HostedStatementURL(ch, lang)
}

// RatingOf is the count and average of a product's figures as the storefront's
// aggregate shows them (aggregateOf), for copies of the figures kept elsewhere
// (a store platform's product rating fields).
func RatingOf(s store.ProductStats) (count int, average float64) {
	a, _ := aggregateOf(s, "")
	return a.Count, a.Average
}

// incentiveLabels is the label of an incentivised review (FTC 16 CFR 465.4
// disclosure), per page language.
var incentiveLabels = map[string]string{
	"tr": "Teşvikli yorum: yorum karşılığında avantaj sağlandı",
	"en": "Incentivised review: a benefit was offered for reviewing",
}

// IncentiveLabel is the label of an incentivised review in lang (en when unknown).
func IncentiveLabel(lang string) string {
	if l, ok := incentiveLabels[lang]; ok {
		return l
	}
	return incentiveLabels["en"]
}

package readmodel

import (
	"strconv"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/store"
)

// Structured data of the server-rendered page (GET /v1/ssr): one schema.org
// Product with its own reviews (docs: shared/reference/structured-data.md, Part A).
// Only own product-experience reviews of the market count: imported, syndicated and
// shopping-experience reviews are left out of both aggregateRating and review, and
// no Organization or LocalBusiness rating is ever produced (self-serving reviews).

// MaxJSONLDName is the longest author name put in structured data.
const MaxJSONLDName = 100

// productJSONLD builds the JSON-LD object of a list answer for a product called
// name; nil when there is nothing to mark up (no name, or neither an aggregate nor
// a review). review lists only the eligible reviews rendered on the page, with a
// name (anonymous reviews stay in the aggregate only).
func productJSONLD(name string, l *ReviewList) map[string]any {
	if name == "" {
		return nil
	}
	out := map[string]any{"@context": "https://schema.org", "@type": "Product", "name": name}
	if l.Aggregate.StructuredCount >= 1 {
		out["aggregateRating"] = map[string]any{
			"@type":       "AggregateRating",
			"ratingValue": strconv.FormatFloat(round1(l.structAvg), 'f', 1, 64),
			"reviewCount": strconv.Itoa(l.Aggregate.StructuredCount),
			"bestRating":  "5",
			"worstRating": "1",
		}
	}
	var reviews []any
	for i, r := range l.rows {
		if !jsonLDEligible(r, l.market) {
			continue
		}
		author, anon := reviewAuthor(r)
		if anon {
			continue
		}
		if utf8.RuneCountInString(author) > MaxJSONLDName {
			author = string([]rune(author)[:MaxJSONLDName])
		}
		rv := map[string]any{
			"@type":         "Review",
			"author":        map[string]any{"@type": "Person", "name": author},
			"datePublished": publishedAt(r).UTC().Format("2006-01-02"),
			"reviewRating": map[string]any{"@type": "Rating", "ratingValue": strconv.Itoa(r.Rating),
				"bestRating": "5", "worstRating": "1"},
		}
		if r.Title != "" {
			rv["name"] = r.Title
		}
		if r.Body != "" {
			rv["reviewBody"] = r.Body
		}
		if i < len(l.Reviews) {
			if c := brandComments(l.brand, l.Reviews[i]); len(c) > 0 {
				rv["comment"] = c
			}
		}
		reviews = append(reviews, rv)
	}
	if len(reviews) > 0 {
		out["review"] = reviews
	}
	if out["aggregateRating"] == nil && out["review"] == nil {
		return nil
	}
	return out
}

// brandComments marks up the brand's notes shown under a review: schema.org has no
// reply property on Review, so each note is a Comment (a CreativeWork's comment)
// by the brand as an Organization, with its text and date.
func brandComments(brandName string, row ReviewRow) []any {
	var out []any
	note := func(n *ReviewNote, at *time.Time) {
		if n == nil || at == nil || brandName == "" {
			return
		}
		out = append(out, map[string]any{"@type": "Comment", "text": n.Body, "dateCreated": at.UTC().Format("2006-01-02"),
			"author": map[string]any{"@type": "Organization", "name": brandName}})
	}
	if row.SellerResponse != nil {
		note(row.SellerResponse, row.SellerResponse.PublishedAt)
	}
	if row.Resolution != nil {
		note(row.Resolution, row.Resolution.CreatedAt)
	}
	return out
}

// jsonLDEligible reports whether a listed review may be marked up on a page of
// market: an own product-experience review of that market.
func jsonLDEligible(r store.Review, market string) bool {
	return r.Market == market && Structured(r) && r.State == core.ReviewPublished
}

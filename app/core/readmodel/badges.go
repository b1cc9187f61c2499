package readmodel

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Star badges of listing and collection pages (GET /v1/reviews/badges, GET
// /v1/ssr/badges): the average and count of up to MaxBadgeProducts products in one
// request. Each badge is the product's list aggregate (aggregateOf over the same
// figures), so a badge never says other than the product page. A product without
// published reviews, known or not, has a badge of count 0 (the answer does not tell
// the two apart). Badges carry no structured data: aggregate ratings are not
// allowed on listing pages.

// MaxBadgeProducts is the most products one badge request may name.
const MaxBadgeProducts = 50

// BadgesInput is the query of a badge request as received.
type BadgesInput struct {
	Products string // comma-separated product codes
	Scope    string
	Lang     string
	Theme    string // SSR only; the page script takes the channel's from the answer
}

// StarBadge is one product's star badge.
type StarBadge struct {
	Product     string  `json:"product"`
	Count       int     `json:"count"`
	Average     float64 `json:"average"`
	StarsFilled float64 `json:"stars_filled"`
	// Label is the badge read out in the answer's language ("4.5 out of 5 stars,
	// 12 reviews"); empty with count 0.
	Label string `json:"label"`
	// HTML is the badge's markup (SSR answers only).
	HTML string `json:"html,omitempty"`
}

// BadgeList is the answer of a badge request: the badges in the order asked
// (duplicates once).
type BadgeList struct {
	Badges   []StarBadge `json:"badges"`
	Scope    string      `json:"scope"`
	Language string      `json:"language"`
	Theme    string      `json:"theme"` // the channel's, or the one asked (SSR)
}

// badgeQuery is a validated BadgesInput.
type badgeQuery struct {
	products           []string
	scope, lang, theme string
}

// parseBadges validates a badge request: invalid / products_required,
// products_too_long: 50 (more than 50 products), product_too_long (a code over 128
// characters), scope, theme.
func parseBadges(in BadgesInput, ch store.Channel, ssr bool) (badgeQuery, error) {
	bq := badgeQuery{scope: in.Scope, lang: core.Language(in.Lang, ch)}
	if bq.lang != "tr" && bq.lang != "en" {
		bq.lang = "en"
	}
	switch bq.scope {
	case "":
		bq.scope = store.ScopeVariant
	case store.ScopeVariant, store.ScopeGroup:
	default:
		return bq, core.Invalid("scope")
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(in.Products, ",") {
		p = strings.TrimSpace(p)
		if p == "" || seen[p] {
			continue
		}
		if utf8.RuneCountInString(p) > core.MaxProductKey {
			return bq, core.Invalid("product_too_long")
		}
		if len(bq.products) == MaxBadgeProducts {
			return bq, core.Invalidf("products_too_long", MaxBadgeProducts)
		}
		seen[p] = true
		bq.products = append(bq.products, p)
	}
	if len(bq.products) == 0 {
		return bq, core.Invalid("products_required")
	}
	bq.theme = orDefault(ch.Theme, core.Themes[0])
	if ssr {
		if in.Theme != "" {
			if !contains(core.Themes, in.Theme) {
				return bq, core.Invalid("theme")
			}
			bq.theme = in.Theme
		}
	}
	return bq, nil
}

// BadgeOf is a product's badge from its figures in a market: the count, average
// and filled stars of the list aggregate (aggregateOf).
func BadgeOf(product string, s store.ProductStats, lang string) StarBadge {
	a, _ := aggregateOf(s, lang)
	b := StarBadge{Product: product, Count: a.Count, Average: a.Average, StarsFilled: a.StarsFilled}
	if a.Count > 0 {
		b.Label = StarsOf(a.Average, lang, false).Label + ", " + ReviewCount(lang, a.Count)
	}
	return b
}

// CachedBadges answers a badge request of channel ch read in generation gen: the
// ETag names the generation, the channel, the request and the revision of each
// product's figures in the channel's market (read from memory, store.ReadStamp),
// so If-None-Match with unchanged badges reads no figures (NotModified), and an
// unchanged answer is served from the cache. ssr adds each badge's HTML.
func (c *Service) CachedBadges(ctx context.Context, ch store.Channel, in BadgesInput, gen int64, ssr bool, held func(etag string) bool) (Answer, error) {
	bq, err := parseBadges(in, ch, ssr)
	if err != nil {
		return Answer{}, err
	}
	var k strings.Builder
	k.Grow(64 + 40*len(bq.products))
	k.WriteString(strconv.FormatInt(gen, 10))
	for _, s := range []string{strconv.FormatInt(ch.ID, 10), ch.Market, bq.scope, bq.lang, bq.theme} {
		k.WriteByte(0)
		k.WriteString(s)
	}
	for _, p := range bq.products {
		st, err := c.DB.ReadStamp(ctx, bq.scope, p)
		if err != nil {
			return Answer{}, err
		}
		k.WriteByte(0)
		k.WriteString(p)
		k.WriteByte(1)
		for _, r := range st.Revisions {
			if r.Market == ch.Market {
				k.WriteString(strconv.FormatInt(r.Revision, 36))
			}
		}
	}
	key := k.String()
	kind := "badges"
	if ssr {
		kind = "ssr-badges"
	}
	etag := answerETag(kind, key)
	if held != nil && held(etag) {
		return Answer{ETag: etag, ETagHeader: []string{etag}, NotModified: true}, nil
	}
	caches := c.caches()
	if v, ok := caches.badges.get(key); ok && v.etag == etag {
		return v.answer(), nil
	}
	bctx := context.WithoutCancel(ctx)
	v, err := caches.flight.do(kind+"\x00"+key, func() (cachedAnswer, error) {
		out, err := c.buildBadges(bctx, ch, bq, ssr)
		if err != nil {
			return cachedAnswer{}, err
		}
		body, err := json.Marshal(out)
		if err != nil {
			return cachedAnswer{}, err
		}
		v := newCachedAnswer(append(body, '\n'), etag)
		caches.badges.put(key, v)
		return v, nil
	})
	if err != nil {
		return Answer{}, err
	}
	return v.answer(), nil
}

// buildBadges reads the figures of the request's products in the channel's market.
func (c *Service) buildBadges(ctx context.Context, ch store.Channel, bq badgeQuery, ssr bool) (*BadgeList, error) {
	q := c.DB.Read()
	out := &BadgeList{Badges: make([]StarBadge, 0, len(bq.products)), Scope: bq.scope, Language: bq.lang, Theme: bq.theme}
	for _, p := range bq.products {
		s, err := q.ProductStatsOf(ctx, bq.scope, p, ch.Market)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		b := BadgeOf(p, s, bq.lang)
		if ssr {
			b.HTML = badgeHTML(b, bq.scope, bq.theme, bq.lang)
		}
		out.Badges = append(out.Badges, b)
	}
	return out, nil
}

// badgeHTML is the markup of a badge, as the page script draws it (themed by the
// --rvw-* properties of the theme's class): the stars and the count, or nothing
// visible for a product without reviews. No structured data.
func badgeHTML(b StarBadge, scope, theme, lang string) string {
	var s strings.Builder
	s.WriteString(`<span class="rvw rvw-rating rvw-theme-`)
	s.WriteString(html.EscapeString(theme))
	s.WriteString(`" data-review-badge="stars" data-review-product="`)
	s.WriteString(html.EscapeString(b.Product))
	s.WriteString(`" data-review-scope="`)
	s.WriteString(scope)
	s.WriteString(`">`)
	if b.Count > 0 {
		s.WriteString(`<span class="rvw-stars" data-stars="`)
		s.WriteString(strconv.FormatFloat(b.StarsFilled, 'f', -1, 64))
		s.WriteString(`" role="img" aria-label="`)
		s.WriteString(html.EscapeString(b.Label))
		s.WriteString(`"><span class="rvw-stars-fill" aria-hidden="true"></span></span> <span class="rvw-rating-n" aria-hidden="true">`)
		s.WriteString(localNumber(b.Average, lang))
		s.WriteString(` (`)
		s.WriteString(strconv.Itoa(b.Count))
		s.WriteString(`)</span>`)
	}
	s.WriteString(`</span>`)
	return s.String()
}

// ReviewCount is "1 review", "12 reviews" ("12 değerlendirme") in lang: THE count
// label of server-rendered text, choosing the plural form as the page script does
// with Intl.PluralRules (brand.PluralKey).
func ReviewCount(lang string, n int) string { return CountWord(lang, "review_count", n) }

// CountWord is the label key with {n} set to n, in the plural form the language
// takes for n (brand.PluralKey): "1 star", "2 stars".
func CountWord(lang, key string, n int) string {
	return brand.WordN(lang, brand.PluralKey(lang, key, n), n)
}

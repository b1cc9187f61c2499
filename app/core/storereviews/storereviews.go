// Package storereviews owns the channel-wide review answers: the store-wide review
// page and the home page carousel, built over the read model's review rows.
package storereviews

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/readmodel"
	"reviewd/store"
)

// The channel's reviews across products: the store-wide review page (GET
// /v1/reviews/all, GET /v1/ssr/all) and the home page carousel (GET
// /v1/reviews/carousel, GET /v1/ssr/carousel). Both read the published reviews of
// the channel's market newest first (syndicated reviews of other markets are not
// the channel's). Neither carries structured data: a store-wide rating is a
// self-serving review snippet (docs/decisions.md).

// Service answers the channel-wide reads over the read model.
type Service struct {
	Read *readmodel.Service
}

// Limits of the channel-wide answers.
const (
	DefaultAllPageSize = 20
	MaxAllPageSize     = 50
	MaxCarousel        = 12
	// CarouselMinRating is the lowest rating of the carousel's fallback (no pins).
	CarouselMinRating = 4
)

// Carousel sources: the brand's featured reviews, or (none pinned) recent
// published 4 and 5 star reviews with text.
const (
	CarouselFeatured = "featured"
	CarouselRecent   = "recent"
)

// AllInput is the query of a store page request as received.
type AllInput struct {
	Page, PageSize, Rating, Verified, Media, Lang, Theme string
	ProductURL                                           string
}

// CarouselInput is the query of a carousel request as received.
type CarouselInput struct {
	Lang, Theme, ProductURL string
}

// MaxProductURL is the longest product address template (product_url).
const MaxProductURL = 300

// productURLOf checks a product address template: an absolute http(s) address or
// a path of the store's site, with {product} (the variant key) or {group} (the
// group key, else the variant key). Errors: invalid / product_url.
func productURLOf(tpl string) (string, error) {
	if tpl == "" {
		return "", nil
	}
	ok := len(tpl) <= MaxProductURL && (strings.Contains(tpl, "{product}") || strings.Contains(tpl, "{group}")) &&
		(strings.HasPrefix(tpl, "https://") || strings.HasPrefix(tpl, "http://") || strings.HasPrefix(tpl, "/") && !strings.HasPrefix(tpl, "//"))
	if !ok || strings.ContainsAny(tpl, "\"<>\x00 ") {
		return "", core.Invalid("product_url")
	}
	return tpl, nil
}

// fillProductURL is a template's address of a review's product.
func fillProductURL(tpl string, r store.Review) string {
	group := r.GroupKey
	if group == "" {
		group = r.VariantKey
	}
	return strings.NewReplacer("{product}", url.PathEscape(r.VariantKey), "{group}", url.PathEscape(group)).Replace(tpl)
}

// ProductRef is a review's product as the catalogue (or the review) names it:
// name and page address may be empty.
type ProductRef struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// ChannelReviewRow is a review row with its product.
type ChannelReviewRow struct {
	readmodel.ReviewRow
	Product ProductRef `json:"product"`
}

// AllApplied lists the store page's filters in effect.
type AllApplied struct {
	Rating   *int `json:"rating"`
	Media    bool `json:"media"`
	Verified bool `json:"verified"`
}

// AllReviews is the answer of GET /v1/reviews/all.
type AllReviews struct {
	Reviews  []ChannelReviewRow `json:"reviews"`
	Total    int                `json:"total"`
	Page     int                `json:"page"`
	Pages    int                `json:"pages"`
	PageSize int                `json:"page_size"`
	Applied  AllApplied         `json:"applied"`
	Language string             `json:"language"`
	Theme    string             `json:"theme"`
	HTML     string             `json:"html,omitempty"`
}

// Carousel is the answer of GET /v1/reviews/carousel.
type Carousel struct {
	Reviews  []ChannelReviewRow `json:"reviews"`
	Source   string             `json:"source"`
	Language string             `json:"language"`
	Theme    string             `json:"theme"`
	HTML     string             `json:"html,omitempty"`
}

// channelQuery is a validated store page or carousel request.
type channelQuery struct {
	lang, theme     string
	productURL      string
	page, pageSize  int
	rating          int
	verified, media bool
}

// parseChannelTheme validates the language and (SSR) the theme.
func parseChannelTheme(lang, theme, productURL string, ch store.Channel, ssr bool) (channelQuery, error) {
	cq := channelQuery{lang: core.Language(lang, ch), theme: cmp.Or(ch.Theme, core.Themes[0])}
	var err error
	if cq.productURL, err = productURLOf(productURL); err != nil {
		return cq, err
	}
	if cq.lang != "tr" && cq.lang != "en" {
		cq.lang = "en"
	}
	if ssr && theme != "" {
		if !slices.Contains(core.Themes, theme) {
			return cq, core.Invalid("theme")
		}
		cq.theme = theme
	}
	return cq, nil
}

// parseAll validates a store page request: invalid / rating, theme.
func parseAll(in AllInput, ch store.Channel, ssr bool) (channelQuery, error) {
	cq, err := parseChannelTheme(in.Lang, in.Theme, in.ProductURL, ch, ssr)
	if err != nil {
		return cq, err
	}
	cq.page = readmodel.ClampInt(in.Page, 1, 1, readmodel.MaxPage)
	cq.pageSize = readmodel.ClampInt(in.PageSize, DefaultAllPageSize, 1, MaxAllPageSize)
	if in.Rating != "" {
		n, err := strconv.Atoi(strings.TrimSpace(in.Rating))
		if err != nil || n < 1 || n > 5 {
			return cq, core.Invalid("rating")
		}
		cq.rating = n
	}
	cq.verified, cq.media = readmodel.FlagOn(in.Verified), readmodel.FlagOn(in.Media)
	return cq, nil
}

// channelRows builds the rows of reviews of the channel's market with their
// products (name from the catalogue, else as the review was written; the
// catalogue's page address) and featured flags.
func (c *Service) channelRows(ctx context.Context, q *store.Q, ch store.Channel, rows []store.Review, cq channelQuery, translate bool) ([]ChannelReviewRow, error) {
	out := make([]ChannelReviewRow, 0, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	lang := cq.lang
	base, err := c.Read.ReviewRows(ctx, q, rows, ch.Market, lang, translate)
	if err != nil {
		return nil, err
	}
	ids, keys := make([]int64, len(rows)), make([]string, 0, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		keys = append(keys, r.VariantKey)
	}
	pinned, err := q.PinnedAmong(ctx, ids)
	if err != nil {
		return nil, err
	}
	links, err := q.ProductLinks(ctx, keys)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		row := ChannelReviewRow{ReviewRow: base[i], Product: ProductRef{Key: r.VariantKey, Name: r.ProductName}}
		if p, ok := links[r.VariantKey]; ok {
			row.Product.Name = cmp.Or(p.Name, r.ProductName)
			row.Product.URL = safeURL(p.URL)
		}
		if row.Product.URL == "" && cq.productURL != "" {
			row.Product.URL = fillProductURL(cq.productURL, r)
		}
		if pinned[r.ID] {
			row.Featured, row.FeaturedLabel = true, readmodel.FeaturedLabel(lang)
		}
		out = append(out, row)
	}
	return out, nil
}

// safeURL keeps only http(s) addresses (a link on the store's page).
func safeURL(u string) string {
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return u
	}
	return ""
}

// AllReviewsAnswer answers a store page request of channel ch (read generation
// gen): its body and ETag (a hash of the body), NotModified when held reports the
// caller holds it. ssr adds the page's HTML. Errors: 400 invalid / rating, theme.
func (c *Service) AllReviewsAnswer(ctx context.Context, ch store.Channel, in AllInput, gen int64, ssr bool, held func(string) bool) (readmodel.Answer, error) {
	cq, err := parseAll(in, ch, ssr)
	if err != nil {
		return readmodel.Answer{}, err
	}
	st, err := c.Read.ChannelSettings(ctx, ch, cq.lang, gen)
	if err != nil {
		return readmodel.Answer{}, err
	}
	q := c.Read.DB.Read()
	f := store.MarketFilter{Market: ch.Market, Rating: cq.rating, Verified: cq.verified, Media: cq.media,
		Limit: cq.pageSize, Offset: (cq.page - 1) * cq.pageSize}
	total, err := q.CountMarketPublished(ctx, f)
	if err != nil {
		return readmodel.Answer{}, err
	}
	out := &AllReviews{Total: total, Page: cq.page, PageSize: cq.pageSize, Pages: max(1, (total+cq.pageSize-1)/cq.pageSize),
		Applied: AllApplied{Media: cq.media, Verified: cq.verified}, Language: cq.lang, Theme: cq.theme}
	if cq.rating > 0 {
		r := cq.rating
		out.Applied.Rating = &r
	}
	var rows []store.Review
	if total > f.Offset {
		if rows, err = q.ListMarketPublished(ctx, f); err != nil {
			return readmodel.Answer{}, err
		}
	}
	return c.finish(ctx, q, ch, rows, cq, st, ssr, held, out, &out.Reviews, &out.HTML, func(rs []ChannelReviewRow) (string, error) {
		return c.renderChannel("all", rs, cq, out, nil, st.Location())
	})
}

// CarouselAnswer answers a carousel request of channel ch: the featured reviews of
// the channel's market newest first, or (none pinned) its recent published 4 and
// 5 star reviews with text; at most MaxCarousel. Errors: 400 invalid / theme.
func (c *Service) CarouselAnswer(ctx context.Context, ch store.Channel, in CarouselInput, gen int64, ssr bool, held func(string) bool) (readmodel.Answer, error) {
	cq, err := parseChannelTheme(in.Lang, in.Theme, in.ProductURL, ch, ssr)
	if err != nil {
		return readmodel.Answer{}, err
	}
	st, err := c.Read.ChannelSettings(ctx, ch, cq.lang, gen)
	if err != nil {
		return readmodel.Answer{}, err
	}
	q := c.Read.DB.Read()
	out := &Carousel{Source: CarouselFeatured, Language: cq.lang, Theme: cq.theme}
	rows, err := q.ListMarketPublished(ctx, store.MarketFilter{Market: ch.Market, Pinned: true, Limit: MaxCarousel})
	if err != nil {
		return readmodel.Answer{}, err
	}
	if len(rows) == 0 {
		out.Source = CarouselRecent
		rows, err = q.ListMarketPublished(ctx, store.MarketFilter{Market: ch.Market, MinRating: CarouselMinRating, Text: true, Limit: MaxCarousel})
		if err != nil {
			return readmodel.Answer{}, err
		}
	}
	return c.finish(ctx, q, ch, rows, cq, st, ssr, held, out, &out.Reviews, &out.HTML, func(rs []ChannelReviewRow) (string, error) {
		return c.renderChannel("carousel", rs, cq, nil, out, st.Location())
	})
}

// finish completes a channel-wide answer out: its rows (into *reviews), with ssr
// its HTML (into *html, by render), and its hashed answer.
func (c *Service) finish(ctx context.Context, q *store.Q, ch store.Channel, rows []store.Review, cq channelQuery,
	st brand.Settings, ssr bool, held func(string) bool, out any, reviews *[]ChannelReviewRow, html *string,
	render func([]ChannelReviewRow) (string, error)) (readmodel.Answer, error) {
	rs, err := c.channelRows(ctx, q, ch, rows, cq, st.AITranslationEnabled)
	if err != nil {
		return readmodel.Answer{}, err
	}
	*reviews = rs
	if ssr {
		if *html, err = render(rs); err != nil {
			return readmodel.Answer{}, err
		}
	}
	return readmodel.HashedAnswer(out, held)
}

// channelWords are the labels of the channel-wide components, per language (kept
// apart from the list's words, which list answers carry).
var channelWords = map[string]map[string]string{
	"en": {"all_title": "Customer reviews", "carousel_title": "What our customers say", "prev": "Previous reviews",
		"next": "Next reviews", "all_ratings": "All ratings", "product": "Product", "none": "No reviews yet.",
		"prev_page": "Previous page", "next_page": "Next page", "filters": "Filter reviews"},
	"tr": {"all_title": "Müşteri değerlendirmeleri", "carousel_title": "Müşterilerimiz ne diyor", "prev": "Önceki yorumlar",
		"next": "Sonraki yorumlar", "all_ratings": "Tüm puanlar", "product": "Ürün", "none": "Henüz değerlendirme yok.",
		"prev_page": "Önceki sayfa", "next_page": "Sonraki sayfa", "filters": "Yorumları filtrele"},
}

// channelView is the template view of the store page and the carousel.
type channelView struct {
	Lang, Theme, CSS string
	W, CW            map[string]string
	Cards            []cardView
	// Store page: paging and filters.
	Page, Pages, Total    int
	PageLabel, CountLabel string
	Rating                int
	Ratings               []ratingOption
	Verified, Media       bool
	Prev, Next            int
	Source                string
}

type ratingOption struct {
	Value    int
	Label    string
	Selected bool
}

// cardView is one review of the channel-wide components.
type cardView struct {
	ID, HTMLID, Lang, Title     string
	Author                      string
	Stars                       readmodel.StarsView
	Date, DateISO               string
	Verified                    bool
	Badge                       string
	FeaturedLabel               string
	IncentiveLabel, OriginLabel string
	Paragraphs                  []string
	Media                       []readmodel.MediaItemView
	ProductName, ProductURL     string
}

// renderChannel renders the store page (kind "all") or the carousel.
func (c *Service) renderChannel(kind string, rows []ChannelReviewRow, cq channelQuery, all *AllReviews, car *Carousel, loc *time.Location) (string, error) {
	w := brand.Words(cq.lang)
	v := channelView{Lang: cq.lang, Theme: cq.theme, W: w, CW: channelWords[cq.lang],
		CSS: strings.TrimRight(c.Read.PublicURL, "/") + "/static/reviews.css"}
	for _, r := range rows {
		author := r.Author
		if r.Anonymous {
			author = w["anonymous"]
		}
		published := r.PublishedAt.In(loc)
		cv := cardView{ID: r.ID, HTMLID: "rvw-" + kind + "-" + r.ID, Lang: r.Language, Title: r.Title, Author: author, Stars: readmodel.StarsOf(float64(r.Rating), cq.lang, true),
			Date: readmodel.LocalDate(published, cq.lang), DateISO: published.Format("2006-01-02"), Verified: r.Verified,
			Badge: w["verified_purchase"], FeaturedLabel: r.FeaturedLabel, IncentiveLabel: r.IncentiveLabel,
			OriginLabel: r.OriginLabel, Media: r.Media, ProductName: r.Product.Name, ProductURL: r.Product.URL}
		for _, p := range strings.Split(r.Body, "\n\n") {
			if p = strings.TrimSpace(p); p != "" {
				cv.Paragraphs = append(cv.Paragraphs, p)
			}
		}
		v.Cards = append(v.Cards, cv)
	}
	if all != nil {
		v.Page, v.Pages, v.Total, v.Verified, v.Media = all.Page, all.Pages, all.Total, all.Applied.Verified, all.Applied.Media
		v.CountLabel = readmodel.ReviewCount(cq.lang, all.Total)
		v.PageLabel = brand.Word(cq.lang, "page_of", "page", strconv.Itoa(all.Page), "pages", strconv.Itoa(all.Pages))
		if all.Applied.Rating != nil {
			v.Rating = *all.Applied.Rating
		}
		for r := 5; r >= 1; r-- {
			v.Ratings = append(v.Ratings, ratingOption{Value: r, Label: readmodel.CountWord(cq.lang, "filter_rating", r), Selected: r == v.Rating})
		}
		if all.Page > 1 {
			v.Prev = all.Page - 1
		}
		if all.Page < all.Pages {
			v.Next = all.Page + 1
		}
	}
	if car != nil {
		v.Source = car.Source
	}
	return readmodel.RenderTemplate(kind, v)
}

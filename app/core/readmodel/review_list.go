package readmodel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// GET /v1/reviews/list (spec 2): published reviews of a product with the summary
// figures, filters, required elements, labels and form limits. Everything
// product-wide comes precomputed from product_stats (product_stats.go); a request
// reads that row, one page of reviews through the listing indexes, and their media.

// List limits (spec 2, "GET /v1/reviews/list" and "Limits").
const (
	MaxPage         = 1000
	DefaultPageSize = 10
	MaxListPageSize = 50
	MaxQuery        = 100
	MaxTopic        = 40
	MaxReportNote   = 1000
)

// ErrSortNotAllowed is 400 sort_not_allowed.
var ErrSortNotAllowed = core.E(core.StatusBadRequest, "sort_not_allowed", "")

// ListInput is the query of GET /v1/reviews/list as received (strings, unparsed).
type ListInput struct {
	Product  string
	Scope    string
	Sort     string
	Page     string
	PageSize string
	Rating   string
	Verified string
	Media    string
	Q        string
	Topic    string
	Lang     string
	Via      string
}

// listQuery is a validated ListInput.
type listQuery struct {
	product, scope, sort string
	page, pageSize       int
	rating               int
	verified, media      bool
	q, topic             string
	qWords               []string
	topicWord            string
	lang                 string
}

// parseList validates what needs no database: errors invalid / product, scope,
// rating, q_too_long, topic_too_long, topic.
func parseList(in ListInput, ch store.Channel) (listQuery, error) {
	lq := listQuery{product: in.Product, scope: in.Scope, sort: in.Sort, lang: core.Language(in.Lang, ch)}
	if lq.lang != "tr" && lq.lang != "en" {
		lq.lang = "en"
	}
	if strings.TrimSpace(lq.product) == "" || utf8.RuneCountInString(lq.product) > core.MaxProductKey {
		return lq, core.Invalid("product")
	}
	switch lq.scope {
	case "":
		lq.scope = store.ScopeVariant
	case store.ScopeVariant, store.ScopeGroup:
	default:
		return lq, core.Invalid("scope")
	}
	lq.page = ClampInt(in.Page, 1, 1, MaxPage)
	lq.pageSize = ClampInt(in.PageSize, DefaultPageSize, 1, MaxListPageSize)
	if in.Rating != "" {
		n, err := strconv.Atoi(strings.TrimSpace(in.Rating))
		if err != nil || n < 1 || n > 5 {
			return lq, core.Invalid("rating")
		}
		lq.rating = n
	}
	lq.verified, lq.media = FlagOn(in.Verified), FlagOn(in.Media)
	if utf8.RuneCountInString(in.Q) > MaxQuery {
		return lq, core.Invalid("q_too_long")
	}
	lq.q = strings.TrimSpace(in.Q)
	lq.qWords = searchTokens(SearchFold(lq.q))
	if len(lq.qWords) == 0 {
		lq.q = ""
	}
	topic := strings.TrimSpace(in.Topic)
	if utf8.RuneCountInString(topic) > MaxTopic {
		return lq, core.Invalid("topic_too_long")
	}
	if topic != "" {
		for _, r := range topic {
			if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) {
				return lq, core.Invalid("topic")
			}
		}
		lq.topic, lq.topicWord = topic, SearchFold(topic)
	}
	return lq, nil
}

// ClampInt is the number s within lo..hi, def when s is not a number.
func ClampInt(s string, def, lo, hi int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return max(lo, min(hi, n))
}

// FlagOn reports whether a query flag is set (1 or true).
func FlagOn(s string) bool { return s == "1" || s == "true" }

// matchExpr is the FTS5 expression of the search and topic filters, limited to the
// product's index entries; "" when neither filter is set. Tokens are letters and
// digits only, so quoting them is enough to keep FTS syntax out.
func (lq listQuery) matchExpr(market string) string {
	if len(lq.qWords) == 0 && lq.topicWord == "" {
		return ""
	}
	parts := []string{`product : "` + productToken(lq.scope, lq.product, market) + `"`}
	for _, w := range lq.qWords {
		parts = append(parts, `text : "`+w+`"`)
	}
	if lq.topicWord != "" {
		parts = append(parts, `text : "`+lq.topicWord+`" *`)
	}
	return strings.Join(parts, " AND ")
}

// ReviewRow is one review of the list (spec 2, "Review row").
type ReviewRow struct {
	ID                 string    `json:"id"`
	Rating             int       `json:"rating"`
	Title              string    `json:"title"`
	Body               string    `json:"body"`
	Author             string    `json:"author"`
	Anonymous          bool      `json:"anonymous"`
	Language           string    `json:"language"`
	PublishedAt        time.Time `json:"published_at"`
	Verified           bool      `json:"verified"`
	VerificationMethod string    `json:"verification_method"`
	// Incentivized and its label appear only for a review written for an
	// incentive (an order line or an invitation marked so); absent otherwise.
	Incentivized   bool   `json:"incentivized,omitempty"`
	IncentiveLabel string `json:"incentive_label,omitempty"`
	// Featured and its label ("Selected by the brand") appear only for a review
	// the brand pinned; absent otherwise.
	Featured       bool                `json:"featured,omitempty"`
	FeaturedLabel  string              `json:"featured_label,omitempty"`
	HelpfulCount   int                 `json:"helpful_count"`
	UnhelpfulCount int                 `json:"unhelpful_count"`
	Aspects        []brand.AspectValue `json:"aspects"`
	AspectScores   map[string]int      `json:"aspect_scores"`
	AspectTemplate string              `json:"aspect_template"`
	Media          []MediaItemView     `json:"media"`
	SellerResponse *ReviewNote         `json:"seller_response,omitempty"`
	Resolution     *ReviewNote         `json:"resolution,omitempty"`
	Origin         string              `json:"origin"`
	OriginMarket   string              `json:"origin_market"`
	OriginLabel    string              `json:"origin_label"`
	OriginURL      string              `json:"origin_url"`
	Experience     string              `json:"experience"`
	Translations   map[string]any      `json:"translations"`
}

// ReviewNote is a seller response (body, published_at) or a resolution note (body,
// created_at).
type ReviewNote struct {
	Body        string     `json:"body"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	CreatedAt   *time.Time `json:"created_at,omitempty"`
}

// Origins of a review row.
const OriginSyndicated = "syndicated"

// Aggregate is the summary of a product's published reviews in the market.
type Aggregate struct {
	Count             int            `json:"count"`
	Average           float64        `json:"average"`
	StarsFilled       float64        `json:"stars_filled"`
	Distribution      map[string]int `json:"distribution"`
	VerifiedCount     int            `json:"verified_count"`
	ImportedCount     int            `json:"imported_count"`
	ImportedLabel     string         `json:"imported_label"`
	StructuredCount   int            `json:"structured_count"`
	StructuredAverage float64        `json:"structured_average"`
}

// AspectSummary is one stepped-scale topic average of a product.
type AspectSummary struct {
	Key       string   `json:"key"`
	Label     string   `json:"label"`
	Scale     int      `json:"scale"`
	Steps     []string `json:"steps"`
	Average   float64  `json:"average"`
	Position  float64  `json:"position"`
	StepLabel string   `json:"step_label"`
	Count     int      `json:"count"`
}

// Applied lists the filters in effect.
type Applied struct {
	Q        string `json:"q"`
	Topic    string `json:"topic"`
	Rating   *int   `json:"rating"`
	Media    bool   `json:"media"`
	Verified bool   `json:"verified"`
}

// CoreElements are the elements the market rule requires on the page.
type CoreElements struct {
	MethodStatement     MethodStatementLink `json:"method_statement"`
	Sort                SortRule            `json:"sort"`
	VerificationBadge   Badge               `json:"verification_badge"`
	SourceLabelRequired bool                `json:"source_label_required"`
	StreamsTogether     bool                `json:"streams_together"`
	ResolutionInline    bool                `json:"resolution_inline"`
	Aggregate           AggregateRule       `json:"aggregate"`
	PolicyVersion       string              `json:"policy_version"`
	Market              string              `json:"market"`
}

// MethodStatementLink is the link to the method statement.
type MethodStatementLink struct {
	URL      string `json:"url"`
	Label    string `json:"label"`
	Required bool   `json:"required"`
}

// SortRule is the sort part of the market rule.
type SortRule struct {
	Allowed []string `json:"allowed"`
	Default string   `json:"default"`
	Locked  bool     `json:"locked"`
}

// Badge is the proof-of-purchase badge.
type Badge struct {
	Label    string `json:"label"`
	Required bool   `json:"required"`
}

// AggregateRule says what the aggregate counts: it must be shown, imported reviews
// are in it, syndicated ones are not.
type AggregateRule struct {
	Required           bool `json:"required"`
	ImportedIncluded   bool `json:"imported_included"`
	SyndicatedIncluded bool `json:"syndicated_included"`
}

// ReviewList is the answer of GET /v1/reviews/list (and the state of /v1/ssr).
type ReviewList struct {
	Reviews          []ReviewRow       `json:"reviews"`
	Total            int               `json:"total"`
	Page             int               `json:"page"`
	Pages            int               `json:"pages"`
	PageSize         int               `json:"page_size"`
	Sort             string            `json:"sort"`
	Shared           int               `json:"shared"`
	AISummary        any               `json:"ai_summary"`
	Sorts            []brand.CodeLabel `json:"sorts"`
	Aggregate        Aggregate         `json:"aggregate"`
	Aspects          []AspectSummary   `json:"aspects"`
	Topics           []TopicView       `json:"topics"`
	Gallery          []GalleryItem     `json:"gallery"`
	MediaReviews     int               `json:"media_reviews"`
	Style            string            `json:"style"`
	Theme            string            `json:"theme"`
	Applied          Applied           `json:"applied"`
	Core             CoreElements      `json:"core"`
	Language         string            `json:"language"`
	Words            map[string]string `json:"words"`
	ReportReasons    []brand.CodeLabel `json:"report_reasons"`
	QuestionsEnabled bool              `json:"questions_enabled"`
	PrivacyURL       string            `json:"privacy_url"`
	Limits           core.FormLimits   `json:"limits"`
	// TimeZone is the channel's zone of the reviews' dates, sent only when the
	// channel has one (the page script then writes dates as the SSR does).
	TimeZone string `json:"time_zone,omitempty"`

	// What the answer was built from (not sent): the product, the figures'
	// revisions and the rows, for structured data and the answer caches.
	product   string
	scope     string
	market    string
	name      string
	brand     string // the channel's customer-facing name (author of the brand's notes)
	rows      []store.Review
	structAvg float64
	summary   json.RawMessage // the shown ai_summary (nil: none)
}

// fallbackRule is used for a channel whose market has no rule: every sort, newest
// first, nothing else required.
func fallbackRule(market string) brand.MarketRule {
	return brand.MarketRule{Market: market, AllowedSorts: append([]string(nil), brand.AllSorts...), DefaultSort: brand.SortNewest,
		Version: market + "-none"}
}

// ReviewList builds the list answer for channel ch. Errors: 400 invalid / product,
// scope, rating, q_too_long, topic_too_long, topic; 400 sort_not_allowed.
func (c *Service) ReviewList(ctx context.Context, ch store.Channel, in ListInput) (*ReviewList, error) {
	rs, err := c.ReadState(ctx, in.Scope, in.Product)
	if err != nil {
		return nil, err
	}
	b, err := c.listBasis(ctx, ch, in, false, rs)
	if err != nil {
		return nil, err
	}
	return c.buildList(ctx, b)
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// listBasis is everything an answer is built from that is read before the page:
// the validated query, the channel's configuration (rule in force, settings,
// method-statement link) and the revisions of the product's figures. Its key
// names the answer's content (see read_cache.go).
type listBasis struct {
	ch         store.Channel
	lq         listQuery
	rule       brand.MarketRule
	st         brand.Settings
	link       string
	revisions  []store.ProductRevision
	syndicated bool
	cfgKey     string
	until      time.Time // the rule in force ends (zero: no later version)
	rs         ReadState // as read for the request
}

// listBasis validates the query and gathers the basis of an answer. forSSR limits
// it to page 1 of the default size.
func (c *Service) listBasis(ctx context.Context, ch store.Channel, in ListInput, forSSR bool, rs ReadState) (*listBasis, error) {
	lq, err := parseList(in, ch)
	if err != nil {
		return nil, err
	}
	if forSSR {
		lq.page, lq.pageSize = 1, DefaultPageSize
	}
	cfg, err := c.channelConfig(ctx, ch, lq.lang, rs.Gen)
	if err != nil {
		return nil, err
	}
	if lq.sort == "" {
		lq.sort = cfg.rule.DefaultSort
	} else if !contains(cfg.rule.AllowedSorts, lq.sort) {
		return nil, ErrSortNotAllowed
	}
	b := &listBasis{ch: ch, lq: lq, rule: cfg.rule, st: cfg.st, link: cfg.link,
		syndicated: cfg.st.SyndicationEnabled, cfgKey: cfg.key, until: cfg.until, rs: rs}
	// The revisions of the market's figures, plus the other markets' when
	// syndication is on; the figures themselves are read only to build an answer.
	if lq.scope == rs.scope && lq.product == rs.product {
		for _, r := range rs.Revisions {
			if b.syndicated || r.Market == ch.Market {
				b.revisions = append(b.revisions, r)
			}
		}
	}
	return b, nil
}

// productFigures reads the figures of the basis's product: the market's own row
// and, with syndication, the other markets' rows.
// With withSummary it also gives the stored AI summary of the product in the
// channel's market ("" for none), in the same read where it can.
func (c *Service) productFigures(ctx context.Context, q *store.Q, b *listBasis, withSummary bool) (own store.ProductStats,
	others []store.ProductStats, summary string, err error) {
	if !b.syndicated {
		if withSummary {
			own, summary, err = q.ProductStatsAndSummary(ctx, b.lq.scope, b.lq.product, b.ch.Market)
		} else {
			own, err = q.ProductStatsOf(ctx, b.lq.scope, b.lq.product, b.ch.Market)
		}
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
		return own, nil, summary, err
	}
	if withSummary {
		row, err := q.AISummary(ctx, b.lq.scope, b.lq.product, b.ch.Market)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return own, nil, "", err
		}
		summary = row.Summary
	}
	all, err := q.ProductStatsAllMarkets(ctx, b.lq.scope, b.lq.product)
	for _, s := range all {
		if s.Market == b.ch.Market {
			own = s
		} else {
			others = append(others, s)
		}
	}
	return own, others, summary, err
}

// buildList reads the page and assembles the answer.
func (c *Service) buildList(ctx context.Context, b *listBasis) (*ReviewList, error) {
	q := c.DB.Read()
	ch, lq, rule, st := b.ch, b.lq, b.rule, b.st
	lang := lq.lang
	out := &ReviewList{Page: lq.page, PageSize: lq.pageSize, Sort: lq.sort, Language: lang, Words: brand.Words(lang),
		ReportReasons: brand.ReportReasons(lang), QuestionsEnabled: st.QuestionsEnabled, PrivacyURL: ch.PrivacyURL,
		Limits: core.ReviewFormLimits(), Style: orDefault(ch.Style, core.Styles[0]), Theme: orDefault(ch.Theme, core.Themes[0]),
		Reviews: []ReviewRow{}, product: lq.product, scope: lq.scope, market: ch.Market, TimeZone: ch.TimeZone}
	for _, s := range brand.AllSorts {
		if contains(rule.AllowedSorts, s) {
			out.Sorts = append(out.Sorts, brand.CodeLabel{Code: s, Label: brand.SortLabel(lang, s)})
		}
	}
	out.Applied = Applied{Q: lq.q, Topic: lq.topic, Media: lq.media, Verified: lq.verified}
	if lq.rating > 0 {
		r := lq.rating
		out.Applied.Rating = &r
	}
	out.Core = CoreElements{
		MethodStatement:     MethodStatementLink{URL: b.link, Label: brand.Word(lang, "method_statement"), Required: rule.MethodStatementRequired},
		Sort:                SortRule{Allowed: append([]string{}, rule.AllowedSorts...), Default: rule.DefaultSort, Locked: rule.SortLocked},
		VerificationBadge:   Badge{Label: brand.Word(lang, "verified_purchase"), Required: rule.VerificationRequired},
		SourceLabelRequired: rule.SourceLabelRequired, StreamsTogether: rule.StreamsTogether,
		ResolutionInline: rule.ResolutionInline, Aggregate: AggregateRule{Required: true, ImportedIncluded: true},
		PolicyVersion: rule.Version, Market: rule.Market,
	}
	// The stored summary (built by the job ai); saving one moves the product's
	// revision on, so this answer's cache key changes with it.
	showSummary := c.AI.On() && st.AISummaryEnabled
	own, others, summary, err := c.productFigures(ctx, q, b, showSummary)
	if err != nil {
		return nil, err
	}
	out.name = own.ProductName
	out.Aggregate, out.structAvg = aggregateOf(own, lang)
	out.Aspects = aspectSummaries(own.Aspects, lang)
	out.Topics = []TopicView{}
	_ = jsonUnmarshal(own.Topics, &out.Topics)
	out.Gallery = []GalleryItem{}
	_ = jsonUnmarshal(own.Gallery, &out.Gallery)
	out.MediaReviews = own.MediaReviews
	if sm := ai.LabelledSummary(summary, lang); showSummary && sm != nil {
		out.AISummary, out.summary = sm, sm
	}
	shared, sharedMedia := 0, 0
	for _, s := range others {
		shared += s.Syndicable
		sharedMedia += s.SyndicableMedia
	}
	if b.syndicated {
		out.MediaReviews += sharedMedia
	}

	f := store.ReviewFilter{Scope: lq.scope, Key: lq.product, Market: ch.Market, Syndicated: b.syndicated && shared > 0,
		OwnFirst: !rule.StreamsTogether, Rating: lq.rating, Verified: lq.verified, Media: lq.media, Sort: lq.sort,
		Limit: lq.pageSize, Offset: (lq.page - 1) * lq.pageSize}
	marketTok := ch.Market
	if f.Syndicated {
		marketTok = ""
	}
	f.Match = lq.matchExpr(marketTok)
	total, err := c.countList(ctx, q, f, own, shared)
	if err != nil {
		return nil, err
	}
	out.Total, out.Shared = total.total, total.shared
	out.Pages = max(1, (out.Total+lq.pageSize-1)/lq.pageSize)
	if out.Total > f.Offset {
		pinned, err := q.PinnedOf(ctx, lq.scope, lq.product, ch.Market)
		if err != nil {
			return nil, err
		}
		var rows []store.Review
		if featuredFirst(lq, rule) && len(pinned) > 0 {
			rows, err = listFeaturedFirst(ctx, q, f, pinned)
		} else {
			rows, err = q.ListPublished(ctx, f)
		}
		if err != nil {
			return nil, err
		}
		out.rows, out.brand = rows, core.BrandOf(ch)
		if out.Reviews, err = c.ReviewRows(ctx, q, rows, ch.Market, lang, st.AITranslationEnabled); err != nil {
			return nil, err
		}
		markFeatured(out.Reviews, rows, pinned, lang)
	}
	return out, nil
}

type listTotal struct{ total, shared int }

// countList finds the total and shared counts, from the figures when one simple
// filter (or none) is set, else by counting the listing.
func (c *Service) countList(ctx context.Context, q *store.Q, f store.ReviewFilter, own store.ProductStats, shared int) (listTotal, error) {
	if f.Match == "" {
		n := 0
		for _, on := range []bool{f.Rating > 0, f.Verified, f.Media} {
			if on {
				n++
			}
		}
		if !f.Syndicated && n <= 1 {
			switch {
			case f.Rating > 0:
				return listTotal{total: own.Ratings[f.Rating-1]}, nil
			case f.Verified:
				return listTotal{total: own.Verified}, nil
			case f.Media:
				return listTotal{total: own.MediaReviews}, nil
			}
			return listTotal{total: own.Reviews}, nil
		}
		if f.Syndicated && n == 0 {
			return listTotal{total: own.Reviews + shared, shared: shared}, nil
		}
	}
	total, sh, err := q.CountPublished(ctx, f)
	return listTotal{total, sh}, err
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func jsonUnmarshal(s string, v any) error {
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), v)
}

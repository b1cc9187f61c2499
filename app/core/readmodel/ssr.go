package readmodel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html/template"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/brand"
	"reviewd/assets"
	"reviewd/store"
)

// GET /v1/ssr (spec 2): the review component as ready HTML (both layouts, the
// eight themes), its state (the list answer of the same product, page 1) and the
// product's structured data. The answer body is built once per content and kept
// with its ETag, so a repeated request with If-None-Match costs the reads that
// prove nothing changed.

// SSR limits.
const (
	MaxStyleParam = 40
	MaxThemeParam = 40
	MaxSSRName    = 300
)

// ErrNoSiteKey is 409 refused / no_site_key.
var ErrNoSiteKey = core.E(core.StatusConflict, "refused", "no_site_key")

// ssrTemplates are parsed once, at start; a broken template stops the binary.
var ssrTemplates = template.Must(template.New("ssr").ParseFS(assets.Templates(), "ssr/*.html"))

// StaticCSS is the component's style sheet (served at /static/reviews.css): the
// themes and layouts plus the parts the page script drives (assets.ComponentCSS).
var StaticCSS = assets.ComponentCSS()

// SSRInput is the query of GET /v1/ssr.
type SSRInput struct {
	ListInput
	Name  string
	Style string
	Theme string
}

// SSRAnswer is the body of GET /v1/ssr. StructuredData is the JSON-LD object (put
// it in a <script type="application/ld+json"> element) or null when the product has
// nothing to mark up.
type SSRAnswer struct {
	HTML           string         `json:"html"`
	State          *ReviewList    `json:"state"`
	StructuredData map[string]any `json:"structured_data"`
}

// SSRBody is a rendered answer: the exact JSON body and its ETag.
type SSRBody struct {
	Body []byte
	ETag string
}

// parseSSR checks the layout and theme parameters: invalid / style, style_too_long,
// theme, theme_too_long, name_too_long. Empty values take the channel's.
func parseSSR(in SSRInput, ch store.Channel) (style, theme string, err error) {
	style, theme = in.Style, in.Theme
	switch {
	case utf8.RuneCountInString(style) > MaxStyleParam:
		return "", "", core.Invalid("style_too_long")
	case style == "":
		style = orDefault(ch.Style, core.Styles[0])
	case !contains(core.Styles, style):
		return "", "", core.Invalid("style")
	}
	switch {
	case utf8.RuneCountInString(theme) > MaxThemeParam:
		return "", "", core.Invalid("theme_too_long")
	case theme == "":
		theme = orDefault(ch.Theme, core.Themes[0])
	case !contains(core.Themes, theme):
		return "", "", core.Invalid("theme")
	}
	if utf8.RuneCountInString(in.Name) > MaxSSRName {
		return "", "", core.Invalid("name_too_long")
	}
	return style, theme, nil
}

// RenderSSR builds the answer of GET /v1/ssr for channel ch. Errors: those of
// ReviewList, invalid / style, style_too_long, theme, theme_too_long,
// name_too_long, and 409 refused / no_site_key when the channel has no site key in
// use and no own method-statement page.
func (c *Service) RenderSSR(ctx context.Context, ch store.Channel, in SSRInput) (SSRBody, error) {
	rs, err := c.ReadState(ctx, in.Scope, in.Product)
	if err != nil {
		return SSRBody{}, err
	}
	b, style, theme, err := c.ssrBasis(ctx, ch, in, rs)
	if err != nil {
		return SSRBody{}, err
	}
	return c.renderSSR(ctx, b, in.Name, style, theme)
}

// ssrBasis validates an SSR request and gathers the basis of its answer.
func (c *Service) ssrBasis(ctx context.Context, ch store.Channel, in SSRInput, rs ReadState) (*listBasis, string, string, error) {
	lq, err := parseList(in.ListInput, ch)
	if err != nil {
		return nil, "", "", err
	}
	style, theme, err := parseSSR(in, ch)
	if err != nil {
		return nil, "", "", err
	}
	cfg, err := c.channelConfig(ctx, ch, lq.lang, rs.Gen)
	if err != nil {
		return nil, "", "", err
	}
	if !cfg.siteKeyInUse && !cfg.ownStatement {
		return nil, "", "", ErrNoSiteKey
	}
	b, err := c.listBasis(ctx, ch, in.ListInput, true, rs)
	return b, style, theme, err
}

// renderSSR builds the body of an SSR answer and its ETag.
func (c *Service) renderSSR(ctx context.Context, b *listBasis, name, style, theme string) (SSRBody, error) {
	list, err := c.buildList(ctx, b)
	if err != nil {
		return SSRBody{}, err
	}
	if name = strings.TrimSpace(name); name == "" {
		name = list.name
	}
	html, err := c.renderComponent(list, style, theme, location(b.ch, b.st))
	if err != nil {
		return SSRBody{}, err
	}
	body, err := json.Marshal(SSRAnswer{HTML: html, State: list, StructuredData: productJSONLD(name, list)})
	if err != nil {
		return SSRBody{}, err
	}
	body = append(body, '\n')
	sum := sha256.Sum256(body)
	return SSRBody{Body: body, ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
}

// Template view of the component.
type ssrView struct {
	ID, Lang, Style, Theme string
	Product, Scope, Sort   string
	Page, Pages            int
	CSS                    string
	W                      map[string]string
	Count                  int
	Average, CountLabel    string
	Stars                  StarsView
	Distribution           []distRow
	ImportedLabel          string
	Aspects                []AspectSummary
	Topics                 []TopicView
	Summary                *summaryView
	Gallery                []galleryRow
	Sorts                  []sortOption
	SortLocked             bool
	MethodURL, MethodLabel string
	PrivacyURL             string
	SharedNote             string
	Reviews                []reviewView
	More                   bool
	PageLabel              string
}

// summaryView is the shown ai_summary: heading, label, the sentences with links
// to the reviews they cite, and the topics with their sentiment.
type summaryView struct {
	Heading, Label string
	Sentences      []summarySentence
	Topics         []summaryTopic
}

type summarySentence struct {
	Text  string
	Cites []summaryCite
}

type summaryCite struct {
	ID, Label string
	N         int
}

type summaryTopic struct {
	Topic, Sentiment, Label string
	Count                   int
}

// newSummaryView builds the view of a shown summary (nil: none).
func newSummaryView(sm *ai.Summary, lang string) *summaryView {
	if sm == nil {
		return nil
	}
	v := &summaryView{Heading: ai.Word(lang, "heading"), Label: sm.Label}
	n := 0
	for _, s := range sm.Sentences {
		row := summarySentence{Text: s.Text}
		for _, id := range s.ReviewIDs {
			n++
			row.Cites = append(row.Cites, summaryCite{ID: id, N: n, Label: ai.Word(lang, "source") + " " + strconv.Itoa(n)})
		}
		v.Sentences = append(v.Sentences, row)
	}
	for _, t := range sm.Topics {
		v.Topics = append(v.Topics, summaryTopic{Topic: t.Topic, Sentiment: t.Sentiment, Count: t.Count,
			Label: ai.Word(lang, t.Sentiment)})
	}
	return v
}

// StarsView is a rating as the templates draw it.
type StarsView struct {
	Value string // 0, 0.5, ... 5 (the style sheet's data-stars values)
	Label string
}

type distRow struct {
	Rating, Count, Max int
	Label              string
}

type galleryRow struct {
	ID, ReviewID, Thumb, Srcset, Alt string
	Width, Height                    int
}

type sortOption struct {
	Code, Label string
	Selected    bool
}

type reviewView struct {
	ID, Lang, Title, Author        string
	Anonymous                      bool
	Stars                          StarsView
	Date, DateISO                  string
	Verified                       bool
	Badge                          string
	IncentiveLabel                 string
	FeaturedLabel                  string
	Origin, OriginLabel, OriginURL string
	Process                        bool
	ProcessLabel                   string
	Paragraphs                     []string
	Aspects                        []brand.AspectValue
	Media                          []MediaItemView
	Helpful, Unhelpful             int
	HelpfulQuestion, HelpfulLabel  string
	UnhelpfulLabel, ReportLabel    string
	// Seller response and resolution note with their labels (page script parity).
	SellerResponse, Resolution   *ReviewNote
	SellerLabel, ResolutionLabel string
}

// localNumber writes a one-decimal number as the language does (4,5 in Turkish).
func localNumber(f float64, lang string) string {
	s := strconv.FormatFloat(f, 'f', 1, 64)
	if lang == "tr" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// StarsOf describes an average (one decimal in its label) or, with whole, a
// rating.
func StarsOf(v float64, lang string, whole bool) StarsView {
	s := strconv.FormatFloat(StarsFilled(v), 'f', -1, 64)
	n := localNumber(v, lang)
	if whole {
		n = strconv.Itoa(int(v))
	}
	return StarsView{Value: s, Label: brand.Word(lang, "stars_label", "n", n)}
}

var monthsTR = []string{"Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim",
	"Kasım", "Aralık"}

// LocalDate writes a date as the language does (2 Ocak 2026, January 2, 2026).
func LocalDate(t time.Time, lang string) string {
	if lang == "tr" {
		return fmt.Sprintf("%d %s %d", t.Day(), monthsTR[t.Month()-1], t.Year())
	}
	return t.Format("January 2, 2006")
}

// location is the zone of a channel's review dates: its own time_zone, else the
// brand's.
func location(ch store.Channel, st brand.Settings) *time.Location {
	if ch.TimeZone != "" {
		if loc, err := time.LoadLocation(ch.TimeZone); err == nil {
			return loc
		}
	}
	return st.Location()
}

// componentID is the prefix of the element ids of one component (unique per
// product on a page).
func componentID(scope, product string) string {
	h := fnv.New32a()
	h.Write([]byte(scope + "\x00" + product))
	return "rvw-" + strconv.FormatUint(uint64(h.Sum32()), 36)
}

// renderComponent renders the component HTML of a list answer.
func (c *Service) renderComponent(l *ReviewList, style, theme string, loc *time.Location) (string, error) {
	lang := l.Language
	v := ssrView{ID: componentID(l.scope, l.product), Lang: lang, Style: style, Theme: theme, Product: l.product,
		Scope: l.scope, Sort: l.Sort, Page: l.Page, Pages: l.Pages, W: l.Words,
		CSS: strings.TrimRight(c.PublicURL, "/") + "/static/reviews.css", Count: l.Aggregate.Count,
		Average: localNumber(l.Aggregate.Average, lang), CountLabel: ReviewCount(lang, l.Aggregate.Count),
		Stars: StarsOf(l.Aggregate.Average, lang, false), ImportedLabel: l.Aggregate.ImportedLabel, Aspects: l.Aspects,
		Topics: l.Topics, SortLocked: l.Core.Sort.Locked, MethodURL: l.Core.MethodStatement.URL,
		MethodLabel: l.Core.MethodStatement.Label, PrivacyURL: l.PrivacyURL, More: l.Pages > l.Page,
		PageLabel: brand.Word(lang, "page_of", "page", strconv.Itoa(l.Page), "pages", strconv.Itoa(l.Pages))}
	v.Summary = newSummaryView(ai.ParseSummary(l.summary), lang)
	if l.Shared > 0 {
		v.SharedNote = brand.Word(lang, "shared_note")
	}
	for r := 5; r >= 1; r-- {
		v.Distribution = append(v.Distribution, distRow{Rating: r, Count: l.Aggregate.Distribution[strconv.Itoa(r)],
			Max: max(1, l.Aggregate.Count), Label: CountWord(lang, "filter_rating", r)})
	}
	for i, g := range l.Gallery {
		thumb := g.URL
		if g.Kind == "video" && g.PosterURL != "" {
			thumb = g.PosterURL
		}
		alt := g.AltText
		if alt == "" && !g.Anonymous {
			alt = g.Author
		}
		if alt == "" { // the gallery button's only name
			alt = l.Words["photo"] + " " + strconv.Itoa(i+1)
		}
		v.Gallery = append(v.Gallery, galleryRow{ID: g.ID, ReviewID: g.ReviewID, Thumb: thumb, Srcset: g.Srcset, Alt: alt,
			Width: g.Width, Height: g.Height})
	}
	for _, s := range l.Sorts {
		v.Sorts = append(v.Sorts, sortOption{Code: s.Code, Label: s.Label, Selected: s.Code == l.Sort})
	}
	for _, row := range l.Reviews {
		author := row.Author
		if row.Anonymous {
			author = l.Words["anonymous"]
		}
		published := row.PublishedAt.In(loc)
		rv := reviewView{ID: row.ID, Lang: row.Language, Title: row.Title, Author: author, Anonymous: row.Anonymous,
			Stars: StarsOf(float64(row.Rating), lang, true), Date: LocalDate(published, lang),
			DateISO: published.Format("2006-01-02"), Verified: row.Verified, Badge: l.Words["verified_purchase"],
			IncentiveLabel: row.IncentiveLabel, FeaturedLabel: row.FeaturedLabel,
			Origin: row.Origin, OriginLabel: row.OriginLabel, OriginURL: row.OriginURL,
			Process: row.Experience == core.ExperienceProcess, ProcessLabel: l.Words["experience_process"],
			Aspects: row.Aspects, Media: row.Media, Helpful: row.HelpfulCount, Unhelpful: row.UnhelpfulCount,
			HelpfulQuestion: l.Words["helpful_question"], HelpfulLabel: l.Words["helpful"],
			UnhelpfulLabel: l.Words["unhelpful"], ReportLabel: l.Words["report"], SellerResponse: row.SellerResponse,
			Resolution: row.Resolution, SellerLabel: l.Words["seller_response"], ResolutionLabel: l.Words["resolution"]}
		for _, p := range strings.Split(row.Body, "\n\n") {
			if p = strings.TrimSpace(p); p != "" {
				rv.Paragraphs = append(rv.Paragraphs, p)
			}
		}
		v.Reviews = append(v.Reviews, rv)
	}
	var b bytes.Buffer
	if err := ssrTemplates.ExecuteTemplate(&b, "component", v); err != nil {
		return "", fmt.Errorf("core: render component: %w", err)
	}
	return b.String(), nil
}

package readmodel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/outbound"
	"reviewd/store"
)

// StatementSection is one heading and paragraph of a method statement.
type StatementSection struct {
	Heading string `json:"heading"`
	Text    string `json:"text"`
}

// StatementSort is the sort part of a method statement.
type StatementSort struct {
	Options []string `json:"options"`
	Default string   `json:"default"`
	Locked  bool     `json:"locked"`
}

// MethodStatement is how a channel collects, checks, orders and labels reviews, in
// one language, built from the channel's market rule in force, the publishing
// method and the presence of imported and syndicated reviews (GET
// /v1/method-statement, format=json). Fingerprint is the SHA-256 (hex) of Text.
type MethodStatement struct {
	Channel              string             `json:"channel"`
	Market               string             `json:"market"`
	Language             string             `json:"language"`
	Brand                string             `json:"brand"`
	Title                string             `json:"title"`
	PolicyVersion        string             `json:"policy_version"`
	PublishingMethod     string             `json:"publishing_method"`
	VerificationRequired bool               `json:"verification_required"`
	ReviewWindowDays     int                `json:"review_window_days"`
	Sort                 StatementSort      `json:"sort"`
	ImportedReviews      bool               `json:"imported_reviews"`
	ImportedLabel        string             `json:"imported_label"`
	SyndicatedReviews    bool               `json:"syndicated_reviews"`
	SyndicatedLabel      string             `json:"syndicated_label"`
	Sections             []StatementSection `json:"sections"`
	Text                 string             `json:"text"`
	Fingerprint          string             `json:"fingerprint"`
}

var statementSortNames = map[string]map[string]string{
	"tr": {brand.SortNewest: "en yeniden eskiye", brand.SortOldest: "en eskiden yeniye", brand.SortHelpful: "en faydalı bulunandan",
		brand.SortRatingHigh: "en yüksek puandan", brand.SortRatingLow: "en düşük puandan"},
	"en": {brand.SortNewest: "newest first", brand.SortOldest: "oldest first", brand.SortHelpful: "most helpful first",
		brand.SortRatingHigh: "highest rating first", brand.SortRatingLow: "lowest rating first"},
}

// statementFacts are the inputs of a statement text.
type statementFacts struct {
	brand, lang, method  string
	rule                 brand.MarketRule
	imported, syndicated bool
}

// statementWords are the sentences of a statement in one language.
type statementWords struct {
	title, collect, collectVerified                                     string // title takes the brand, collect* the window days
	checkIntro, checkAutomatic, checkHybrid, checkManual, checkNegative string
	order, orderLocked, orderChoices                                    string // order takes the sort name, orderChoices the list
	other, importedLabel, otherImported                                 string
	syndicatedLabel, otherSyndicated                                    string
	sections                                                            [4]string
}

var statementText = map[string]statementWords{
	"tr": {
		title:           "%s: değerlendirmeler nasıl toplanıyor ve yayımlanıyor",
		collect:         "Değerlendirme yazmaya, siparişi teslim edilen müşterilerimizi davet ediyoruz. Davet bağlantısı veya sipariş doğrulaması ile yazılan değerlendirmeler satın alma kanıtı taşır ve \"Doğrulanmış alıcı\" olarak gösterilir. Değerlendirme, teslimattan sonraki %d gün içinde yazılabilir.",
		collectVerified: "Yalnızca ürünü bizden satın alan müşteriler değerlendirme yazabilir. Siparişi teslim edilen müşterilerimizi davet ediyoruz; her değerlendirme satın alma kanıtı taşır ve \"Doğrulanmış alıcı\" olarak gösterilir. Değerlendirme, teslimattan sonraki %d gün içinde yazılabilir.",
		checkIntro:      "Değerlendirmeler kişisel bilgi, bağlantı, hakaret ve sağlık iddiası bakımından otomatik olarak denetlenir. ",
		checkAutomatic:  "Denetimden geçen değerlendirmeler hemen yayımlanır; bir bulgu olanları yayımlanmadan önce ekibimiz inceler.",
		checkHybrid:     "Satın alma kanıtı olan ve denetimden geçen değerlendirmeler hemen yayımlanır; diğerlerini yayımlanmadan önce ekibimiz inceler.",
		checkManual:     "Her değerlendirmeyi yayımlanmadan önce ekibimiz okur.",
		checkNegative:   " Olumsuz değerlendirmeler puanları yüzünden geri tutulmaz veya kaldırılmaz.",
		order:           "Değerlendirmeler %s sıralanır",
		orderLocked:     "; bu sıra değiştirilemez.",
		orderChoices:    "; ziyaretçiler şu sıralamaları da seçebilir: %s.",
		other:           "Gösterilen tüm değerlendirmeler bu mağazanın müşterileri tarafından yazılmıştır.",
		importedLabel:   "Başka bir siteden aktarıldı",
		otherImported:   "Bazı değerlendirmeler pazaryerlerinde yazılmış ve buraya aktarılmıştır. Bu değerlendirmeler kaynak sitenin adıyla etiketlenir, ortalama puana dahildir, ancak bizde satın alma kanıtı taşımaz.",
		syndicatedLabel: "Diğer ülkelerdeki mağazalarımızdan",
		otherSyndicated: " Markanın diğer ülkelerdeki mağazalarından doğrulanmış değerlendirmeler de gösterilebilir; bunlar geldikleri ülke ile etiketlenir ve ortalama puana dahil edilmez.",
		sections:        [4]string{"Değerlendirmeler nasıl toplanıyor", "Denetim ve yayın", "Sıralama", "Diğer kaynaklardan değerlendirmeler"},
	},
	"en": {
		title:           "%s: how reviews are collected and published",
		collect:         "We invite customers to write a review after their order has been delivered. Reviews written with an invitation link or an order check carry proof of purchase and are shown as \"Verified buyer\". A review can be written within %d days of delivery.",
		collectVerified: "Only customers who bought the product from us can write a review. We invite customers after their order has been delivered; every review carries proof of purchase and is shown as \"Verified buyer\". A review can be written within %d days of delivery.",
		checkIntro:      "Reviews are checked automatically for personal information, links, offensive language and health claims. ",
		checkAutomatic:  "Reviews that pass the checks are published at once; our team reads the others before they are published.",
		checkHybrid:     "Reviews with proof of purchase that pass the checks are published at once; our team reads the others before they are published.",
		checkManual:     "Our team reads every review before it is published.",
		checkNegative:   " Negative reviews are never held back or removed because of their rating.",
		order:           "Reviews are shown %s",
		orderLocked:     "; this order cannot be changed.",
		orderChoices:    "; visitors can also sort them %s.",
		other:           "All reviews shown were written by customers of this store.",
		importedLabel:   "Imported from another site",
		otherImported:   "Some reviews were written on marketplaces and imported here. They are labelled with the name of the source site and count in the average rating, but carry no proof of purchase from us.",
		syndicatedLabel: "From our stores in other countries",
		otherSyndicated: " Verified reviews from the brand's stores in other countries may also be shown; they are labelled with their country and are not included in the average rating.",
		sections:        [4]string{"How reviews are collected", "Checks and publication", "Order of reviews", "Reviews from other sources"},
	},
}

// statementSections writes the statement text in the facts' language (tr, else en).
func statementSections(f statementFacts) (title string, secs []StatementSection, importedLabel, syndicatedLabel string) {
	r := f.rule
	names := statementSortNames[f.lang]
	var sorts []string
	for _, s := range r.AllowedSorts {
		sorts = append(sorts, names[s])
	}
	t := statementText["en"]
	if f.lang == "tr" {
		t = statementText["tr"]
	}
	title = fmt.Sprintf(t.title, f.brand)
	collect := fmt.Sprintf(t.collect, r.ReviewWindowDays)
	if r.VerificationRequired {
		collect = fmt.Sprintf(t.collectVerified, r.ReviewWindowDays)
	}
	check := t.checkIntro
	switch f.method {
	case core.PublishAutomatic:
		check += t.checkAutomatic
	case core.PublishHybrid:
		check += t.checkHybrid
	default:
		check += t.checkManual
	}
	check += t.checkNegative
	order := fmt.Sprintf(t.order, names[r.DefaultSort])
	if r.SortLocked || len(sorts) <= 1 {
		order += t.orderLocked
	} else {
		order += fmt.Sprintf(t.orderChoices, strings.Join(sorts, ", "))
	}
	other := t.other
	if f.imported {
		importedLabel = t.importedLabel
		other = t.otherImported
	}
	if f.syndicated {
		syndicatedLabel = t.syndicatedLabel
		other += t.otherSyndicated
	}
	secs = []StatementSection{{t.sections[0], collect}, {t.sections[1], check},
		{t.sections[2], order}, {t.sections[3], other}}
	return title, secs, importedLabel, syndicatedLabel
}

// BuildMethodStatement builds channel ch's method statement in lang (tr or en;
// anything else gives the channel's language) over q at q.Now.
func (c *Service) BuildMethodStatement(ctx context.Context, q *store.Q, ch store.Channel, lang string) (MethodStatement, error) {
	lang = core.Language(lang, ch)
	rule, ok, err := c.Brand.RuleFor(ctx, q, ch.Market, ch.ID, q.Now)
	if err != nil {
		return MethodStatement{}, err
	}
	if !ok {
		rule = brand.MarketRule{Market: ch.Market, AllowedSorts: []string{brand.SortNewest}, DefaultSort: brand.SortNewest, SortLocked: true}
	}
	st, err := c.Brand.LoadSettings(ctx, q)
	if err != nil {
		return MethodStatement{}, err
	}
	imported, err := q.CountReviewsByOrigin(ctx, ch.Market, core.OriginImported)
	if err != nil {
		return MethodStatement{}, err
	}
	f := statementFacts{brand: core.BrandOf(ch), lang: lang, method: st.PublishingMethod, rule: rule, imported: imported > 0,
		syndicated: st.SyndicationEnabled}
	title, secs, il, sl := statementSections(f)
	var b strings.Builder
	b.WriteString(title)
	for _, s := range secs {
		b.WriteString("\n\n" + s.Heading + "\n" + s.Text)
	}
	text := b.String()
	sum := sha256.Sum256([]byte(text))
	return MethodStatement{Channel: ch.Code, Market: ch.Market, Language: lang, Brand: f.brand, Title: title,
		PolicyVersion: rule.Version, PublishingMethod: st.PublishingMethod, VerificationRequired: rule.VerificationRequired,
		ReviewWindowDays: rule.ReviewWindowDays, Sort: StatementSort{Options: append([]string(nil), rule.AllowedSorts...),
			Default: rule.DefaultSort, Locked: rule.SortLocked}, ImportedReviews: f.imported, ImportedLabel: il,
		SyndicatedReviews: f.syndicated, SyndicatedLabel: sl, Sections: secs, Text: text,
		Fingerprint: hex.EncodeToString(sum[:])}, nil
}

// PublicMethodStatement builds the statement of the public page for channel ch.
func (c *Service) PublicMethodStatement(ctx context.Context, ch store.Channel, lang string) (MethodStatement, error) {
	return c.BuildMethodStatement(ctx, c.DB.Read(), ch, lang)
}

// StatementChannel finds the active channel of the public page by code (for a page
// linked without a site key): refused / unknown_channel otherwise.
func (c *Service) StatementChannel(ctx context.Context, code string) (store.Channel, error) {
	ch, err := c.DB.Read().ChannelByCode(ctx, code)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !ch.Active) {
		return store.Channel{}, core.Refused("unknown_channel")
	}
	return ch, err
}

// Method statement states in the panel.
const (
	StatementUnconfirmed = "unconfirmed" // never confirmed
	StatementConfirmed   = "confirmed"   // the current text is the confirmed one
	StatementChanged     = "changed"     // the text changed since it was confirmed
)

// StatementRow is one row of GET /admin/v1/method-statement: a channel in one
// language.
type StatementRow struct {
	Channel            string          `json:"channel"`
	ChannelLabel       string          `json:"channel_label"`
	Market             string          `json:"market"`
	Language           string          `json:"language"`
	State              string          `json:"state"`
	ExternalURL        string          `json:"external_url"`
	HostedURL          string          `json:"hosted_url"`
	EffectiveURL       string          `json:"effective_url"`
	CurrentFingerprint string          `json:"current_fingerprint"`
	Confirmed          bool            `json:"confirmed"`
	ConfirmedAt        *time.Time      `json:"confirmed_at"`
	Statement          MethodStatement `json:"statement"`
}

// StatementDomain is a verified domain an own statement page may be on.
type StatementDomain struct {
	Channel string `json:"channel"`
	Domain  string `json:"domain"`
}

// StatementList is the answer of GET /admin/v1/method-statement.
type StatementList struct {
	Items   []StatementRow    `json:"items"`
	Domains []StatementDomain `json:"domains"`
}

// HostedStatementURL is the address of the hosted page of a channel's statement.
func (c *Service) HostedStatementURL(ch store.Channel, lang string) string {
	return strings.TrimRight(c.PublicURL, "/") + "/v1/method-statement?channel=" + url.QueryEscape(ch.Code) + "&lang=" + lang
}

func (c *Service) statementRow(ctx context.Context, q *store.Q, ch store.Channel, lang string) (StatementRow, error) {
	s, err := c.BuildMethodStatement(ctx, q, ch, lang)
	if err != nil {
		return StatementRow{}, err
	}
	saved, err := q.MethodStatementOf(ctx, ch.ID, lang)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return StatementRow{}, err
	}
	row := StatementRow{Channel: ch.Code, ChannelLabel: ch.Label, Market: ch.Market, Language: lang,
		ExternalURL: saved.ExternalURL, HostedURL: c.HostedStatementURL(ch, lang), CurrentFingerprint: s.Fingerprint,
		ConfirmedAt: core.OptTime(saved.ConfirmedAt), Statement: s}
	row.EffectiveURL = row.HostedURL
	if row.ExternalURL != "" {
		row.EffectiveURL = row.ExternalURL
	}
	switch {
	case saved.ConfirmedFingerprint == "":
		row.State = StatementUnconfirmed
	case core.Equal(saved.ConfirmedFingerprint, s.Fingerprint):
		row.State, row.Confirmed = StatementConfirmed, true
	default:
		row.State = StatementChanged
	}
	return row, nil
}

// statementTarget reads a channel code and language of the admin endpoints:
// invalid / channel, language.
func statementTarget(ctx context.Context, q *store.Q, code, lang, langField string) (store.Channel, string, error) {
	ch, err := q.ChannelByCode(ctx, strings.TrimSpace(code))
	if errors.Is(err, store.ErrNotFound) {
		return ch, "", core.Invalid("channel")
	}
	if err != nil {
		return ch, "", err
	}
	lang = strings.TrimSpace(lang)
	if lang != "tr" && lang != "en" {
		return ch, "", core.Invalid(langField)
	}
	return ch, lang, nil
}

// MethodStatements lists every channel's statement in tr and en with the verified
// domains an own page may be on (GET /admin/v1/method-statement); with channel and
// lang only that statement. Errors: invalid / channel, lang.
func (c *Service) MethodStatements(ctx context.Context, channel, lang string) (StatementList, error) {
	q := c.DB.Read()
	out := StatementList{Items: []StatementRow{}, Domains: []StatementDomain{}}
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return out, err
	}
	if channel != "" || lang != "" {
		ch, l, err := statementTarget(ctx, q, channel, lang, "lang")
		if err != nil {
			return out, err
		}
		row, err := c.statementRow(ctx, q, ch, l)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, row)
		chans = []store.Channel{ch}
		if chans[0].Domains, err = q.ChannelDomains(ctx, ch.ID); err != nil {
			return out, err
		}
	} else {
		for _, ch := range chans {
			for _, l := range []string{"tr", "en"} {
				row, err := c.statementRow(ctx, q, ch, l)
				if err != nil {
					return out, err
				}
				out.Items = append(out.Items, row)
			}
		}
	}
	for _, ch := range chans {
		for _, d := range ch.Domains {
			out.Domains = append(out.Domains, StatementDomain{Channel: ch.Code, Domain: d})
		}
	}
	return out, nil
}

// StatementInput is the body of POST /admin/v1/method-statement and .../confirm.
type StatementInput struct {
	Channel     string `json:"channel"`
	Language    string `json:"language"`
	ExternalURL string `json:"external_url"`
	Fingerprint string `json:"fingerprint"`
}

// SaveMethodStatement sets the own page address of a channel's statement in a
// language (POST /admin/v1/method-statement); an empty external_url returns to the
// hosted page. The address must be a full https address (invalid / url_invalid)
// on a verified domain of the channel or a subdomain of one (invalid /
// host_unverified), and the page must be readable there: it is fetched over the
// SSRF-safe client before saving, and an answer other than 2xx or a failed call is
// 502 page_unreadable / http_status: <code> or / <outbound code>. Errors also:
// invalid / channel, language.
func (c *Service) SaveMethodStatement(ctx context.Context, a *core.Actor, in StatementInput) (StatementRow, error) {
	var row StatementRow
	if ext := strings.TrimSpace(in.ExternalURL); ext != "" {
		// Checked and fetched before the transaction: the fetch calls the network.
		ch, _, err := statementTarget(ctx, c.DB.Read(), in.Channel, in.Language, "language")
		if err != nil {
			return row, err
		}
		if err := checkStatementHost(ctx, c.DB.Read(), ch, ext); err != nil {
			return row, err
		}
		if err := c.fetchStatementPage(ctx, ext); err != nil {
			return row, err
		}
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, lang, err := statementTarget(ctx, tx.Q, in.Channel, in.Language, "language")
		if err != nil {
			return err
		}
		ext := strings.TrimSpace(in.ExternalURL)
		if ext != "" {
			if err := checkStatementHost(ctx, tx.Q, ch, ext); err != nil {
				return err
			}
		}
		if err := tx.SetMethodStatementURL(ctx, ch.ID, lang, ext); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "method_statement.saved", "channel", ch.Code,
			map[string]any{"language": lang, "external_url": ext}); err != nil {
			return err
		}
		row, err = c.statementRow(ctx, tx.Q, ch, lang)
		return err
	})
	return row, err
}

// checkStatementHost applies the address rules of an own statement page: url_invalid,
// host_unverified.
func checkStatementHost(ctx context.Context, q *store.Q, ch store.Channel, ext string) error {
	if !brand.HttpsURL(ext) {
		return core.Invalid("url_invalid")
	}
	u, _ := url.Parse(ext)
	domains, err := q.ChannelDomains(ctx, ch.ID)
	if err != nil {
		return err
	}
	if !core.DomainVerified(core.NormalizeDomain(u.Hostname()), domains) {
		return core.Invalid("host_unverified")
	}
	return nil
}

// Limits of the statement page fetch.
const (
	statementPageTimeout = 10 * time.Second
	statementPageMax     = 2 << 20
)

// fetchStatementPage reads an own statement page once: nil for a 2xx answer, else
// 502 page_unreadable / http_status: <code> or / <outbound failure code>.
func (c *Service) fetchStatementPage(ctx context.Context, ext string) error {
	if c.Outbound == nil {
		return core.E(core.StatusBadGateway, "page_unreadable", outbound.CodeUnexpected)
	}
	res, err := c.Outbound.Do(outbound.WithTarget(ctx, "method_statement"), outbound.Request{URL: ext,
		Timeout: statementPageTimeout, MaxBytes: statementPageMax})
	if err != nil {
		return core.E(core.StatusBadGateway, "page_unreadable", outbound.Code(err))
	}
	if res.Status < 200 || res.Status > 299 {
		return core.E(core.StatusBadGateway, "page_unreadable", "http_status: "+strconv.Itoa(res.Status))
	}
	return nil
}

// ErrStatementChanged is 409 statement_changed: the text was changed since the
// panel showed it.
var ErrStatementChanged = core.Conflict("statement_changed", "")

// ConfirmMethodStatement records that the brand confirmed the current text of a
// channel's statement in a language (POST /admin/v1/method-statement/confirm). The
// fingerprint sent must equal current_fingerprint, else 409 statement_changed.
// Errors also: invalid / channel, language, fingerprint_required.
func (c *Service) ConfirmMethodStatement(ctx context.Context, a *core.Actor, in StatementInput) (StatementRow, error) {
	var row StatementRow
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, lang, err := statementTarget(ctx, tx.Q, in.Channel, in.Language, "language")
		if err != nil {
			return err
		}
		fp := strings.ToLower(strings.TrimSpace(in.Fingerprint))
		if fp == "" {
			return core.Invalid("fingerprint_required")
		}
		s, err := c.BuildMethodStatement(ctx, tx.Q, ch, lang)
		if err != nil {
			return err
		}
		if !core.Equal(fp, s.Fingerprint) {
			return ErrStatementChanged
		}
		if err := tx.ConfirmMethodStatement(ctx, ch.ID, lang, fp, a.Name); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "method_statement.confirmed", "channel", ch.Code,
			map[string]any{"language": lang, "fingerprint": fp}); err != nil {
			return err
		}
		row, err = c.statementRow(ctx, tx.Q, ch, lang)
		return err
	})
	return row, err
}

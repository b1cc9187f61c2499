package catalogue

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Product feed formats (docs/catalogue.md).
const (
	FeedGoogleXML = "google_xml"
	FeedGoogleTSV = "google_tsv"
	FeedJSON      = "json"
)

// Product feed limits: 100 pages of at most 50 MB each.
const (
	ProductFeedPageLimit = 100
	productFeedPageBytes = 50 << 20
)

// ErrFeedExists: a feed with this address is already read.
var ErrFeedExists = core.Conflict("feed_exists", "")

// FeedID is the public id of a product feed.
func FeedID(id int64) string { return "pf_" + strconv.FormatInt(id, 10) }

// FeedView is a product feed as the API shows it.
type FeedView struct {
	ID              string     `json:"id"`
	URL             string     `json:"url"`
	Format          string     `json:"format"`
	IntervalMinutes int        `json:"interval_minutes"`
	Enabled         bool       `json:"enabled"`
	NextRunAt       time.Time  `json:"next_run_at"`
	LastRunAt       *time.Time `json:"last_run_at"`
	LastError       string     `json:"last_error"`
	LastProducts    int        `json:"last_products"`
	LastPages       int        `json:"last_pages"`
	CreatedAt       time.Time  `json:"created_at"`
}

func feedView(f store.ProductFeed) FeedView {
	v := FeedView{ID: FeedID(f.ID), URL: f.URL, Format: f.Format, IntervalMinutes: f.IntervalMinutes, Enabled: f.Enabled,
		NextRunAt: f.NextRunAt, LastError: f.LastError, LastProducts: f.LastProducts, LastPages: f.LastPages, CreatedAt: f.CreatedAt,
		LastRunAt: core.OptTime(f.LastRunAt)}
	return v
}

// FeedList is the answer of GET /admin/v1/product-feeds.
type FeedList struct {
	Items    []FeedView `json:"items"`
	Products int        `json:"products"`
}

// Feeds lists the product feeds and the size of the catalogue.
func (c *Service) Feeds(ctx context.Context) (FeedList, error) {
	q := c.DB.Read()
	fs, err := q.ProductFeeds(ctx)
	if err != nil {
		return FeedList{}, err
	}
	out := FeedList{Items: make([]FeedView, len(fs))}
	for i, f := range fs {
		out.Items[i] = feedView(f)
	}
	out.Products, err = q.CountProducts(ctx)
	return out, err
}

// FeedInput is the body of POST /admin/v1/product-feeds.
type FeedInput struct {
	URL             string `json:"url"`
	Format          string `json:"format"`
	IntervalMinutes int    `json:"interval_minutes"`
}

// CreateFeed saves a product feed, due at once (201). url must be https
// (invalid / url_invalid); format google_xml, google_tsv or json (invalid / format);
// interval_minutes 60–10080, default 360 (invalid / interval_minutes).
func (c *Service) CreateFeed(ctx context.Context, a *core.Actor, in FeedInput) (FeedView, error) {
	u := strings.TrimSpace(in.URL)
	if u == "" || len(u) > 2048 || outbound.CheckURL(u) != nil {
		return FeedView{}, core.Invalid("url_invalid")
	}
	switch in.Format {
	case FeedGoogleXML, FeedGoogleTSV, FeedJSON:
	default:
		return FeedView{}, core.Invalid("format")
	}
	if in.IntervalMinutes == 0 {
		in.IntervalMinutes = 360
	}
	if in.IntervalMinutes < 60 || in.IntervalMinutes > 10080 {
		return FeedView{}, core.Invalid("interval_minutes")
	}
	var out FeedView
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		f, err := tx.CreateProductFeed(ctx, store.ProductFeed{URL: u, Format: in.Format, IntervalMinutes: in.IntervalMinutes, Enabled: true})
		if errors.Is(err, store.ErrConflict) {
			return ErrFeedExists
		}
		if err != nil {
			return err
		}
		out = feedView(f)
		return c.Recorder.Record(ctx, tx, a, "product_feed.created", "product_feed", out.ID, map[string]any{"format": in.Format})
	})
	return out, err
}

// DeleteFeed removes a product feed; its products stay.
func (c *Service) DeleteFeed(ctx context.Context, a *core.Actor, id string) error {
	n, ok := core.ParseID("pf_", id)
	if !ok {
		return core.ErrNotFound
	}
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteProductFeed(ctx, n); errors.Is(err, store.ErrNotFound) {
			return core.ErrNotFound
		} else if err != nil {
			return err
		}
		return c.Recorder.Record(ctx, tx, a, "product_feed.removed", "product_feed", id, nil)
	})
}

// FeedRead is the outcome of reading one feed.
type FeedRead struct {
	Products int
	Skipped  int
	Pages    int
	Failure  string
}

// ReadFeed reads every page of a product feed over the outbound client and saves
// its products, page by page (source feed). Items without an id or with invalid
// fields are skipped.
func (c *Service) ReadFeed(ctx context.Context, f store.ProductFeed) (FeedRead, error) {
	var out FeedRead
	h := map[string][]string{"User-Agent": {"reviewd"}}
	ctx = outbound.WithTarget(ctx, "product_feed")
	pages, err := FetchPages(ctx, c.Outbound, f.URL, h, ProductFeedPageLimit, productFeedPageBytes,
		func(u string, h outbound.Header, body io.Reader) (string, error) {
			items, next, err := parseFeedPage(f.Format, body)
			if err != nil {
				return "", err
			}
			var ps []store.Product
			for _, it := range items {
				p, err := ValidateProduct(it, "")
				if err != nil {
					out.Skipped++
					continue
				}
				p.Source = "feed"
				ps = append(ps, p)
			}
			err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
				for _, p := range ps {
					if err := tx.UpsertProduct(ctx, p); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return "", err
			}
			out.Products += len(ps)
			return NextPage(u, h, next)
		})
	out.Pages = pages
	if err != nil {
		var fe *FeedError
		if !errors.As(err, &fe) {
			return out, err
		}
		out.Failure = fe.Code
	}
	return out, nil
}

// RunDueFeeds reads every enabled product feed due at now and records each read
// on the feed (last_error holds the failure code). It returns how many were read
// and failed.
func (c *Service) RunDueFeeds(ctx context.Context, now time.Time) (read, failed int, err error) {
	fs, err := c.DB.Read().DueProductFeeds(ctx, now)
	if err != nil {
		return 0, 0, err
	}
	for _, f := range fs {
		// Due again before the read starts, in its own write: a read that takes the
		// process down is not repeated at every start.
		if err := c.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.DeferProductFeed(ctx, f.ID, now) }); err != nil {
			return read, failed, err
		}
		r, err := c.ReadFeed(ctx, f)
		if err != nil {
			r.Failure = "internal_error"
			c.Log.Warn("product feed read failed", "feed", FeedID(f.ID), "err", err)
		}
		read++
		if r.Failure != "" {
			failed++
		}
		if err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
			return tx.FinishProductFeedRead(ctx, f.ID, now, r.Products, r.Pages, r.Failure)
		}); err != nil {
			return read, failed, err
		}
	}
	return read, failed, nil
}

// parseFeedPage reads one page of a product feed as a stream into product inputs
// and its next address (JSON "next"; other formats page only by Link header). A
// page of more than MaxPageItems items fails with page_item_limit_reached.
func parseFeedPage(format string, body io.Reader) ([]ProductInput, string, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	switch format {
	case FeedJSON:
		return parseJSONPage(br)
	case FeedGoogleTSV:
		items, err := parseGoogleTSV(br)
		return items, "", err
	default:
		items, err := parseGoogleXML(br)
		return items, "", err
	}
}

// parseJSONPage reads {"products": [...], "next": "..."} token by token: one
// product is decoded at a time and other members are skipped without being kept.
func parseJSONPage(r io.Reader) ([]ProductInput, string, error) {
	d := json.NewDecoder(r)
	bad := func(err error) ([]ProductInput, string, error) { return nil, "", Unreadable(err, "feed_unreadable") }
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return bad(err)
	}
	var out []ProductInput
	var next string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return bad(err)
		}
		key, _ := tok.(string)
		switch {
		case strings.EqualFold(key, "products"):
			tok, err := d.Token()
			if err != nil {
				return bad(err)
			}
			if tok == nil {
				continue
			}
			if tok != json.Delim('[') {
				return bad(nil)
			}
			for d.More() {
				if len(out) == MaxPageItems {
					return nil, "", &FeedError{Code: FailPageItems}
				}
				var it ProductInput
				if err := d.Decode(&it); err != nil {
					return bad(err)
				}
				out = append(out, it)
			}
			if _, err := d.Token(); err != nil {
				return bad(err)
			}
		case strings.EqualFold(key, "next"):
			var n *string
			if err := d.Decode(&n); err != nil {
				return bad(err)
			}
			if n != nil {
				next = *n
			}
		default:
			if err := SkipJSONValue(d); err != nil {
				return bad(err)
			}
		}
	}
	if _, err := d.Token(); err != nil {
		return bad(err)
	}
	return out, next, nil
}

// SkipJSONValue reads past the next value of d token by token, holding none of it.
func SkipJSONValue(d *json.Decoder) error {
	depth := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// googleItem is an RSS item or Atom entry of a Google Merchant product feed; the
// attributes are in the g: namespace, title and link may be plain RSS/Atom ones.
type googleItem struct {
	ID     string `xml:"http://base.google.com/ns/1.0 id"`
	GTitle string `xml:"http://base.google.com/ns/1.0 title"`
	GLink  string `xml:"http://base.google.com/ns/1.0 link"`
	Image  string `xml:"http://base.google.com/ns/1.0 image_link"`
	Brand  string `xml:"http://base.google.com/ns/1.0 brand"`
	GTIN   string `xml:"http://base.google.com/ns/1.0 gtin"`
	MPN    string `xml:"http://base.google.com/ns/1.0 mpn"`
	Group  string `xml:"http://base.google.com/ns/1.0 item_group_id"`
	Title  string `xml:"title"`
	// Link is RSS's <link>text</link> or Atom's <link href="..."/>.
	Link firstLink `xml:"link"`
}

// firstLink keeps the first non-empty link of an item (its text, else its href),
// however many links the item repeats.
type firstLink string

func (l *firstLink) UnmarshalXML(d *xml.Decoder, se xml.StartElement) error {
	var x struct {
		Href string `xml:"href,attr"`
		Text string `xml:",chardata"`
	}
	if err := d.DecodeElement(&x, &se); err != nil {
		return err
	}
	if *l == "" {
		*l = firstLink(strings.TrimSpace(x.Text))
	}
	if *l == "" {
		*l = firstLink(x.Href)
	}
	return nil
}

func (g googleItem) input() ProductInput {
	name, link := g.GTitle, g.GLink
	if name == "" {
		name = g.Title
	}
	if link == "" {
		link = string(g.Link)
	}
	id := strings.TrimSpace(g.ID)
	return ProductInput{VariantKey: id, CatalogID: id, GroupKey: g.Group, Name: name, URL: link, ImageURL: g.Image,
		Brand: g.Brand, GTIN: g.GTIN, MPN: g.MPN}
}

// parseGoogleXML streams the items (RSS 2.0) or entries (Atom) of a Merchant feed.
func parseGoogleXML(body io.Reader) ([]ProductInput, error) {
	d := xml.NewDecoder(body)
	var out []ProductInput
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, Unreadable(err, "feed_unreadable")
		}
		se, ok := tok.(xml.StartElement)
		if !ok || (se.Name.Local != "item" && se.Name.Local != "entry") {
			continue
		}
		if len(out) == MaxPageItems {
			return nil, &FeedError{Code: FailPageItems}
		}
		var it googleItem
		if err := d.DecodeElement(&it, &se); err != nil {
			return nil, Unreadable(err, "feed_unreadable")
		}
		out = append(out, it.input())
	}
}

// parseGoogleTSV reads a tab-separated Merchant feed with a header line (attribute
// names with underscores or spaces).
func parseGoogleTSV(body io.Reader) ([]ProductInput, error) {
	r := csv.NewReader(body)
	r.Comma, r.FieldsPerRecord, r.LazyQuotes = '\t', -1, true
	header, err := r.Read()
	if err != nil {
		return nil, Unreadable(err, "feed_unreadable")
	}
	idx := map[string]int{}
	for i, h := range header {
		idx[strings.ReplaceAll(strings.ToLower(strings.TrimSpace(h)), " ", "_")] = i
	}
	if _, ok := idx["id"]; !ok {
		return nil, &FeedError{Code: "column_missing: id"}
	}
	get := func(rec []string, name string) string {
		if i, ok := idx[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []ProductInput
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, Unreadable(err, "feed_unreadable")
		}
		if len(out) == MaxPageItems {
			return nil, &FeedError{Code: FailPageItems}
		}
		id := get(rec, "id")
		out = append(out, ProductInput{VariantKey: id, CatalogID: id, GroupKey: get(rec, "item_group_id"), Name: get(rec, "title"),
			URL: get(rec, "link"), ImageURL: get(rec, "image_link"), Brand: get(rec, "brand"), GTIN: get(rec, "gtin"), MPN: get(rec, "mpn")})
	}
}

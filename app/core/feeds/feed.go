package feeds

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// SchemaURL is the schema the feed declares (Google Product Review Feeds 2.4, the
// only version Google accepts; a copy is in testdata/ for the tests).
const SchemaURL = "http://www.google.com/shopping/reviews/schema/product/2.4/product_reviews.xsd"

// SchemaVersion is the feed's <version>.
const SchemaVersion = "2.4"

// formatVersion changes the ETag of every feed when the output format changes.
const formatVersion = "2"

// pageSize is how many reviews are read at a time: a page is written and flushed
// before the next is read, so a feed of any size needs the memory of one page.
const pageSize = 500

// gtinPattern is the schema's GTIN pattern; other values are left out.
var gtinPattern = regexp.MustCompile(`^[\d -xX]{7,}$`)

// Stamp is what a feed answer is validated by: an ETag from what the feed is built
// of (the feed definition, every review and catalogue change, the channels and
// settings, the format) and the newest change time for Last-Modified.
type Stamp struct {
	ETag     string
	Modified time.Time
}

// Stamp reads the validators of feed f without reading a review.
func (s *Service) Stamp(ctx context.Context, f store.ReviewFeed) (Stamp, error) {
	rev, err := s.DB.Read().ReviewFeedRevision(ctx)
	if err != nil {
		return Stamp{}, err
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%d|%s|%d|%d|%s|%s", formatVersion, f.ID, f.Salt, rev.N, rev.Gen, f.Names, f.PublisherName)))
	mod := rev.At
	if f.CreatedAt.After(mod) {
		mod = f.CreatedAt
	}
	return Stamp{ETag: `"` + hex.EncodeToString(sum[:16]) + `"`, Modified: mod.Truncate(time.Second)}, nil
}

// Touch records that the feed was read, at most once a minute: a read within a
// minute of the recorded one writes nothing, and a failed write is logged, never
// the reader's error.
func (s *Service) Touch(ctx context.Context, f store.ReviewFeed) {
	if !f.LastReadAt.IsZero() && s.DB.Now().Sub(f.LastReadAt) < time.Minute {
		return
	}
	if err := s.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.TouchReviewFeed(ctx, f.ID) }); err != nil {
		s.Log.Warn("review feed: last read not recorded", "feed", FeedID(f.ID), "err", err)
	}
}

type xmlReview struct {
	XMLName  xml.Name    `xml:"review"`
	ID       string      `xml:"review_id"`
	Reviewer xmlReviewer `xml:"reviewer"`
	// 2.4: right after reviewer, in this order (Google's schema reference).
	Verified    bool         `xml:"is_verified_purchase"`
	Incentive   bool         `xml:"is_incentivized_review"`
	Timestamp   string       `xml:"review_timestamp"`
	Title       string       `xml:"title,omitempty"`
	Content     string       `xml:"content"`
	URL         xmlURL       `xml:"review_url"`
	Overall     xmlRating    `xml:"ratings>overall"`
	Products    []xmlProduct `xml:"products>product"`
	IsSpam      bool         `xml:"is_spam"`
	Method      string       `xml:"collection_method"`
	Transaction string       `xml:"transaction_id,omitempty"`
}

type xmlReviewer struct {
	Name xmlName `xml:"name"`
}

type xmlName struct {
	Anonymous bool   `xml:"is_anonymous,attr"`
	Value     string `xml:",chardata"`
}

type xmlURL struct {
	Type  string `xml:"type,attr"`
	Value string `xml:",chardata"`
}

type xmlRating struct {
	Min   int `xml:"min,attr"`
	Max   int `xml:"max,attr"`
	Value int `xml:",chardata"`
}

type xmlProduct struct {
	IDs  *xmlIDs `xml:"product_ids,omitempty"`
	Name string  `xml:"product_name,omitempty"`
	URL  string  `xml:"product_url"`
}

// xmlIDs holds the identifier lists; a nil list is left out (encoding/xml writes
// the parent of an empty "a>b" path, so each list is its own element).
type xmlIDs struct {
	GTINs  *xmlList `xml:"gtins"`
	MPNs   *xmlList `xml:"mpns"`
	SKUs   *xmlList `xml:"skus"`
	Brands *xmlList `xml:"brands"`
}

// xmlList is one identifier list; its items are named by the field (gtin, mpn, sku,
// brand).
type xmlList struct {
	Item  string // element name of each value
	Items []string
}

// MarshalXML writes the list's start element and one child per item.
func (l *xmlList) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	for _, v := range l.Items {
		if err := e.EncodeElement(v, xml.StartElement{Name: xml.Name{Local: l.Item}}); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}

// list is a one-item identifier list (item element name, value).
func list(name, value string) *xmlList { return &xmlList{Item: name, Items: []string{value}} }

// anonymous is the reviewer name of a review without one.
var anonymous = map[string]string{"tr": "Anonim", "en": "Anonymous"}

// item turns a stored review into its feed element; ok is false for a review the
// schema cannot carry (no text at all, or a product address that is not http(s)).
func (s *Service) item(f store.ReviewFeed, r store.FeedReview) (xmlReview, bool) {
	title := strings.TrimSpace(core.SingleLine(r.Title))
	content := strings.TrimSpace(r.Body)
	if content == "" {
		content = title
	}
	u := strings.TrimSpace(r.ProductURL)
	if content == "" || !(strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) || strings.ContainsAny(u, " \t\r\n") {
		return xmlReview{}, false
	}
	name := core.DisplayAuthor(strings.TrimSpace(r.AuthorName), r.HideName || f.Names == NamesMasked)
	reviewer := xmlName{Value: name, Anonymous: r.HideName || f.Names == NamesMasked}
	if strings.TrimSpace(name) == "" {
		reviewer = xmlName{Value: anonymous[r.Language], Anonymous: true}
		if reviewer.Value == "" {
			reviewer.Value = anonymous["en"]
		}
	}
	ids := &xmlIDs{SKUs: list("sku", r.VariantKey)}
	if r.CatalogID != "" {
		ids.SKUs = list("sku", r.CatalogID)
	}
	if g := strings.TrimSpace(r.GTIN); g != "" && gtinPattern.MatchString(g) {
		ids.GTINs = list("gtin", g)
	}
	if m := strings.TrimSpace(r.MPN); m != "" {
		ids.MPNs = list("mpn", m)
	}
	if b := strings.TrimSpace(r.Brand); b != "" {
		ids.Brands = list("brand", b)
	}
	method := "unsolicited"
	if r.Proof == core.VerifiedByInvite {
		method = "post_fulfillment"
	}
	out := xmlReview{ID: r.PublicID, Reviewer: xmlReviewer{Name: reviewer}, Verified: verifiedPurchase(r), Incentive: r.Incentivized,
		Timestamp: r.SubmittedAt.UTC().Format(time.RFC3339), Title: title, Content: content,
		URL:      xmlURL{Type: "group", Value: u},
		Overall:  xmlRating{Min: 1, Max: 5, Value: r.Rating},
		Products: []xmlProduct{{IDs: ids, Name: strings.TrimSpace(core.SingleLine(r.ProductName)), URL: u}},
		Method:   method}
	if r.OrderID != 0 {
		// A stable, keyed stand-in for the order: reviews of one purchase share it
		// and the store's order number stays private.
		out.Transaction = "t_" + s.Keys.Pseudonym("feed-order", strconv.FormatInt(r.OrderID, 10))
	}
	return out, true
}

// verifiedPurchase is the feed's proof of purchase: an own review written with a
// token tied to an order whose line was delivered. Imported reviews never carry it
// (they are not in the feed, and reviewd holds no proof of them).
func verifiedPurchase(r store.FeedReview) bool {
	return r.OrderID != 0 && r.Proof != "" && r.Delivered
}

// Write streams feed f to w: the header, then the reviews one page at a time (each
// page flushed before the next is read), then the end. It returns the number of
// reviews written. An error after the first byte leaves the document unfinished,
// which a reader sees as a broken feed rather than a shorter one.
func (s *Service) Write(ctx context.Context, w io.Writer, f store.ReviewFeed) (int, error) {
	q := s.DB.Read()
	publisher := f.PublisherName
	if publisher == "" {
		var ch store.Channel
		var err error
		if f.ChannelID != 0 {
			ch, err = q.ChannelByID(ctx, f.ChannelID)
		} else {
			ch, err = q.FirstChannel(ctx, f.Market)
			if errors.Is(err, store.ErrNotFound) {
				ch, err = q.FirstChannel(ctx, "")
			}
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return 0, err
		}
		publisher = strings.TrimSpace(ch.BrandName)
		if publisher == "" {
			publisher = "reviewd"
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := xml.NewEncoder(bw)
	fmt.Fprintf(bw, "%s<feed xmlns:vc=\"http://www.w3.org/2007/XMLSchema-versioning\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"%s\">\n<version>%s</version>\n<publisher><name>", xml.Header, SchemaURL, SchemaVersion)
	if err := xml.EscapeText(bw, []byte(publisher)); err != nil {
		return 0, err
	}
	bw.WriteString("</name></publisher>\n")
	n := 0
	filter := store.FeedReviewFilter{ChannelID: f.ChannelID, Market: f.Market, Limit: pageSize}
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		page, err := q.FeedReviews(ctx, filter)
		if err != nil {
			return n, err
		}
		for _, r := range page {
			filter.After = r.ID
			it, ok := s.item(f, r)
			if !ok {
				continue
			}
			if n == 0 {
				bw.WriteString("<reviews>\n")
			}
			if err := enc.EncodeElement(it, xml.StartElement{Name: xml.Name{Local: "review"}}); err != nil {
				return n, err
			}
			if err := enc.Flush(); err != nil {
				return n, err
			}
			bw.WriteByte('\n')
			n++
		}
		if err := bw.Flush(); err != nil {
			return n, err
		}
		if len(page) < pageSize {
			break
		}
	}
	if n > 0 {
		bw.WriteString("</reviews>\n")
	}
	bw.WriteString("</feed>\n")
	return n, bw.Flush()
}

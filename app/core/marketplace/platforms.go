package marketplace

import (
	"net/url"
	"strings"
)

// Canonical file columns (docs/marketplace.md). review_id, barcode and rating are
// required.
const (
	ColReviewID  = "review_id"
	ColBarcode   = "barcode"
	ColRating    = "rating"
	ColTitle     = "title"
	ColBody      = "body"
	ColAuthor    = "author"
	ColWrittenAt = "written_at"
	ColURL       = "url"
	ColPhotos    = "photos"
	ColSellerID  = "seller_id"
)

// Columns lists the canonical columns in file order.
var Columns = []string{ColReviewID, ColBarcode, ColRating, ColTitle, ColBody, ColAuthor, ColWrittenAt, ColURL, ColPhotos, ColSellerID}

// requiredColumns must be present in a file's header.
var requiredColumns = []string{ColReviewID, ColBarcode, ColRating}

// Platform is one supported marketplace: its code, the name shown with its
// reviews, its own domains (origin_url is kept only on them) and the column names of
// its seller-panel review export where they differ from the canonical ones.
type Platform struct {
	Code    string            `json:"code"`
	Name    string            `json:"name"`
	Domains []string          `json:"domains"`
	Columns map[string]string `json:"columns"`
}

// Platforms are the five supported marketplaces.
var Platforms = []Platform{
	{Code: "trendyol", Name: "Trendyol", Domains: []string{"trendyol.com"}, Columns: map[string]string{
		ColReviewID: "Yorum ID", ColBarcode: "Barkod", ColRating: "Puan", ColTitle: "Yorum Başlığı", ColBody: "Yorum",
		ColAuthor: "Kullanıcı Adı", ColWrittenAt: "Yorum Tarihi", ColURL: "Yorum Linki", ColPhotos: "Fotoğraflar",
		ColSellerID: "Satıcı ID"}},
	{Code: "hepsiburada", Name: "Hepsiburada", Domains: []string{"hepsiburada.com"}, Columns: map[string]string{
		ColReviewID: "Değerlendirme No", ColBarcode: "Barkod", ColRating: "Puan", ColTitle: "Başlık",
		ColBody: "Değerlendirme", ColAuthor: "Müşteri", ColWrittenAt: "Değerlendirme Tarihi", ColURL: "Değerlendirme Linki",
		ColPhotos: "Görseller", ColSellerID: "Mağaza ID"}},
	{Code: "n11", Name: "n11", Domains: []string{"n11.com"}, Columns: map[string]string{
		ColReviewID: "Yorum No", ColBarcode: "Barkod", ColRating: "Puan", ColTitle: "Başlık", ColBody: "Yorum",
		ColAuthor: "Üye", ColWrittenAt: "Tarih", ColURL: "Link", ColPhotos: "Fotoğraflar", ColSellerID: "Mağaza No"}},
	{Code: "amazon", Name: "Amazon", Domains: []string{"amazon.com.tr", "amazon.com", "amazon.co.uk", "amazon.de"},
		Columns: map[string]string{ColReviewID: "Review ID", ColBarcode: "EAN", ColRating: "Star Rating",
			ColTitle: "Review Title", ColBody: "Review Text", ColAuthor: "Reviewer Name", ColWrittenAt: "Review Date",
			ColURL: "Review URL", ColPhotos: "Images", ColSellerID: "Merchant ID"}},
	{Code: "ciceksepeti", Name: "Çiçeksepeti", Domains: []string{"ciceksepeti.com"}, Columns: map[string]string{
		ColReviewID: "Yorum Id", ColBarcode: "Barkod", ColRating: "Puan", ColTitle: "Başlık", ColBody: "Yorum Metni",
		ColAuthor: "Müşteri Adı", ColWrittenAt: "Yorum Tarihi", ColURL: "Yorum Linki", ColPhotos: "Fotoğraf Linkleri",
		ColSellerID: "Satıcı Kodu"}},
}

// PlatformOf finds a platform by code.
func PlatformOf(code string) (Platform, bool) {
	for _, p := range Platforms {
		if p.Code == code {
			return p, true
		}
	}
	return Platform{}, false
}

// normHeader folds a column name for matching: lower case (Turkish dotted and
// dotless i folded to i), spaces, dashes and underscores removed.
func normHeader(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "\ufeff")
	s = strings.NewReplacer("İ", "i", "I", "i", "ı", "i").Replace(s)
	s = strings.ToLower(s)
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-', '.', '\u00a0':
			return -1
		}
		return r
	}, s)
}

// headerIndex maps a file's column names to canonical columns: the canonical name
// or the platform's own name. Unknown columns are ignored.
func (p Platform) headerIndex(header []string) map[string]int {
	names := map[string]string{}
	for _, col := range Columns {
		names[normHeader(col)] = col
	}
	for col, theirs := range p.Columns {
		names[normHeader(theirs)] = col
	}
	idx := map[string]int{}
	for i, h := range header {
		if col, ok := names[normHeader(h)]; ok {
			if _, dup := idx[col]; !dup {
				idx[col] = i
			}
		}
	}
	return idx
}

// OwnURL reports whether raw is an https address on the platform's own domain (or
// a subdomain of it): only such addresses are kept as origin_url (spec 2).
func (p Platform) OwnURL(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme != "https" || u.User != nil || u.Port() != "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range p.Domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

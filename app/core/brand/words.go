package brand

import (
	"strconv"
	"strings"
)

// Label texts of the storefront in tr and en: the words object of the list, viewer
// and order detail answers, sort and report-reason labels, origin labels. The page
// script shows these texts as they are; keys are stable wire names (add keys, never
// rename them).

var LabelWords = map[string]map[string]string{
	"tr": {
		"reviews":               "Değerlendirmeler",
		"review_count":          "{n} değerlendirme",
		"review_count_one":      "{n} değerlendirme",
		"average_label":         "5 üzerinden {n}",
		"stars_label":           "5 üzerinden {n} yıldız",
		"verified_purchase":     "Doğrulanmış alıcı",
		"experience_process":    "Alışveriş deneyimi: sipariş iptal edildi veya ürün iade edildi",
		"privacy_notice":        "Gizlilik bildirimi",
		"method_statement":      "Değerlendirmeler nasıl toplanıyor ve yayımlanıyor",
		"origin_syndicated":     "{market} mağazamızdaki bir müşteriden",
		"origin_imported":       "{source} sitesinden aktarıldı",
		"origin_imported_other": "Başka bir siteden aktarıldı",
		"imported_label":        "{n} değerlendirme başka sitelerden aktarıldı",
		"imported_label_source": "{n} değerlendirme {source} sitesinden aktarıldı",
		"sort_label":            "Sırala",
		"filter_all":            "Tümü",
		"filter_rating":         "{n} yıldız",
		"filter_rating_one":     "{n} yıldız",
		"filter_media":          "Fotoğraflı veya videolu",
		"filter_verified":       "Yalnızca doğrulanmış alıcılar",
		"search_placeholder":    "Değerlendirmelerde ara",
		"search_clear":          "Aramayı temizle",
		"no_results":            "Bu seçime uyan değerlendirme yok.",
		"no_reviews":            "Henüz değerlendirme yok.",
		"topics":                "Sık geçenler",
		"aspects":               "Özelliklere göre",
		"gallery":               "Müşteri fotoğrafları ve videoları",
		"distribution":          "Puan dağılımı",
		"helpful_question":      "Faydalı oldu mu?",
		"helpful":               "Evet",
		"unhelpful":             "Hayır",
		"helpful_count":         "{n} kişi faydalı buldu",
		"report":                "Bildir",
		"report_title":          "Bu değerlendirmeyi bildir",
		"report_note":           "Açıklama",
		"report_send":           "Gönder",
		"report_thanks":         "Teşekkürler, bildiriminiz alındı.",
		"seller_response":       "Satıcının yanıtı",
		"resolution":            "Çözüm notu",
		"anonymous":             "Anonim",
		"published_on":          "{date} tarihinde yayımlandı",
		"show_more":             "Daha fazla göster",
		"previous_page":         "Önceki sayfa",
		"next_page":             "Sonraki sayfa",
		"page_of":               "Sayfa {page} / {pages}",
		"write_review":          "Değerlendirme yaz",
		"shared_note":           "Diğer mağazalarımızdan doğrulanmış değerlendirmeler de gösteriliyor",
		"questions":             "Sorular ve cevaplar",
		"ask_question":          "Soru sor",
		"answer":                "Cevap yaz",
		"brand_answer":          "Markanın cevabı",
		"verified_buyer":        "Doğrulanmış alıcı",
		"close":                 "Kapat",
	},
	"en": {
		"reviews":               "Reviews",
		"review_count":          "{n} reviews",
		"review_count_one":      "{n} review",
		"average_label":         "{n} out of 5",
		"stars_label":           "{n} out of 5 stars",
		"verified_purchase":     "Verified buyer",
		"experience_process":    "Shopping experience: the order was cancelled or the item returned",
		"privacy_notice":        "Privacy notice",
		"method_statement":      "How reviews are collected and published",
		"origin_syndicated":     "From a customer of our {market} store",
		"origin_imported":       "Imported from {source}",
		"origin_imported_other": "Imported from another site",
		"imported_label":        "{n} reviews imported from other sites",
		"imported_label_source": "{n} reviews imported from {source}",
		"sort_label":            "Sort by",
		"filter_all":            "All",
		"filter_rating":         "{n} stars",
		"filter_rating_one":     "{n} star",
		"filter_media":          "With photos or videos",
		"filter_verified":       "Verified buyers only",
		"search_placeholder":    "Search reviews",
		"search_clear":          "Clear search",
		"no_results":            "No reviews match this selection.",
		"no_reviews":            "No reviews yet.",
		"topics":                "Frequently mentioned",
		"aspects":               "By feature",
		"gallery":               "Customer photos and videos",
		"distribution":          "Rating distribution",
		"helpful_question":      "Was this helpful?",
		"helpful":               "Yes",
		"unhelpful":             "No",
		"helpful_count":         "{n} people found this helpful",
		"report":                "Report",
		"report_title":          "Report this review",
		"report_note":           "Note",
		"report_send":           "Send",
		"report_thanks":         "Thank you, your report has been received.",
		"seller_response":       "Response from the seller",
		"resolution":            "Resolution note",
		"anonymous":             "Anonymous",
		"published_on":          "Published on {date}",
		"show_more":             "Show more",
		"previous_page":         "Previous page",
		"next_page":             "Next page",
		"page_of":               "Page {page} of {pages}",
		"write_review":          "Write a review",
		"shared_note":           "Verified reviews from our other stores are shown too",
		"questions":             "Questions and answers",
		"ask_question":          "Ask a question",
		"answer":                "Write an answer",
		"brand_answer":          "Answer from the brand",
		"verified_buyer":        "Verified buyer",
		"close":                 "Close",
	},
}

// Words returns a copy of the label texts of a language (tr or en; en otherwise).
func Words(lang string) map[string]string {
	src := LabelWords[lang]
	if src == nil {
		src = LabelWords["en"]
	}
	out := make(map[string]string, len(src))
	for k, v := range src {
		out[k] = v
	}
	return out
}

// Word returns one label text with {name} placeholders filled from pairs (name,
// value, name, value, ...).
func Word(lang, key string, pairs ...string) string {
	m := LabelWords[lang]
	if m == nil {
		m = LabelWords["en"]
	}
	s := m[key]
	for i := 0; i+1 < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, "{"+pairs[i]+"}", pairs[i+1])
	}
	return s
}

// PluralKey is the key of the form of a counted label for n in lang: key+"_one"
// when the language's plural rule says one and that form exists (English 1;
// Turkish counts take no plural), else key. The page script chooses the same way
// with Intl.PluralRules ("one" -> key_one).
func PluralKey(lang, key string, n int) string {
	if lang == "en" && n == 1 {
		if _, ok := LabelWords[lang][key+"_one"]; ok {
			return key + "_one"
		}
	}
	return key
}

// WordN is Word with {n} set to a count.
func WordN(lang, key string, n int) string { return Word(lang, key, "n", strconv.Itoa(n)) }

// Code and label pairs of sorts and report reasons.
type CodeLabel struct {
	Code  string `json:"code"`
	Label string `json:"label"`
}

var sortLabels = map[string]map[string]string{
	"tr": {SortNewest: "En yeni", SortOldest: "En eski", SortHelpful: "En faydalı", SortRatingHigh: "En yüksek puan",
		SortRatingLow: "En düşük puan"},
	"en": {SortNewest: "Newest", SortOldest: "Oldest", SortHelpful: "Most helpful", SortRatingHigh: "Highest rating",
		SortRatingLow: "Lowest rating"},
}

// SortLabel is the label of a sort code.
func SortLabel(lang, code string) string {
	if m := sortLabels[lang]; m != nil {
		return m[code]
	}
	return sortLabels["en"][code]
}

// Report reason codes (POST /v1/reviews/<id>/report).
const (
	ReasonSpam            = "spam"
	ReasonOffensive       = "offensive"
	ReasonPersonalData    = "personal_data"
	ReasonNotAboutProduct = "not_about_product"
	ReasonFake            = "fake"
	ReasonOther           = "other"
)

// ReportReasonCodes lists the report reasons in display order.
var ReportReasonCodes = []string{ReasonSpam, ReasonOffensive, ReasonPersonalData, ReasonNotAboutProduct, ReasonFake, ReasonOther}

var reasonLabels = map[string]map[string]string{
	"tr": {ReasonSpam: "Reklam veya istenmeyen içerik", ReasonOffensive: "Hakaret veya uygunsuz dil",
		ReasonPersonalData: "Kişisel bilgi içeriyor", ReasonNotAboutProduct: "Ürünle ilgili değil",
		ReasonFake: "Sahte veya yanıltıcı", ReasonOther: "Diğer"},
	"en": {ReasonSpam: "Advertising or spam", ReasonOffensive: "Offensive or abusive language",
		ReasonPersonalData: "Contains personal information", ReasonNotAboutProduct: "Not about the product",
		ReasonFake: "Fake or misleading", ReasonOther: "Other"},
}

// ReportReasons lists the report reasons with their labels in a language.
func ReportReasons(lang string) []CodeLabel {
	m := reasonLabels[lang]
	if m == nil {
		m = reasonLabels["en"]
	}
	out := make([]CodeLabel, 0, len(ReportReasonCodes))
	for _, c := range ReportReasonCodes {
		out = append(out, CodeLabel{Code: c, Label: m[c]})
	}
	return out
}

// validReason reports whether code is a report reason.
func ValidReason(code string) bool {
	for _, c := range ReportReasonCodes {
		if c == code {
			return true
		}
	}
	return false
}

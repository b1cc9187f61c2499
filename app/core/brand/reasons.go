package brand

// Reason lists (GET /admin/v1/reasons). Codes are what the API stores and accepts;
// labels are shown to moderators and, for review rejections, written into the
// rejection notice in the review's language.
const (
	ReasonsReviewRejection   = "review_rejection"
	ReasonsReviewRemoval     = "review_removal"
	ReasonsQuestionRejection = "question_rejection"
	ReasonsMediaRemoval      = "review_media_removal"
	ReasonsReport            = "report"
)

// ReasonKinds lists the reason lists in the order the reasons endpoint shows them.
var ReasonKinds = []string{ReasonsReviewRejection, ReasonsReviewRemoval, ReasonsQuestionRejection, ReasonsMediaRemoval,
	ReasonsReport}

type reasonDef struct {
	code   string
	tr, en string
}

// Media removal reasons (spec 3, "Media removal reasons"). source_removed is set by
// marketplace reads for imported reviews and is not offered to moderators.
const (
	MediaRemovalPersonalData = "personal_data"
	MediaRemovalProfanity    = "profanity"
	MediaRemovalDataRequest  = "data_subject_request"
	MediaRemovalLegalOrder   = "legal_order"
	MediaRemovalSource       = "source_removed"
)

var reasonLists = map[string][]reasonDef{
	ReasonsReviewRejection: {
		{"personal_data", "Kişisel bilgi içeriyor", "Contains personal information"},
		{"profanity", "Uygunsuz dil içeriyor", "Contains offensive language"},
		{"off_topic", "Ürünle veya alışverişle ilgili değil", "Not about the product or the purchase"},
		{"advertising", "Reklam veya bağlantı içeriyor", "Contains advertising or links"},
		{"health_claim", "Sağlıkla ilgili iddia içeriyor", "Contains a health claim"},
		{"wrong_product", "Başka bir ürün hakkında", "About a different product"},
		{"unintelligible", "Anlaşılır değil", "Cannot be understood"},
	},
	ReasonsReviewRemoval: {
		{"data_subject_request", "Kişisel veri talebi", "Personal data request"},
		{"legal_order", "Resmi makam kararı", "Legal order"},
		{"fake", "Sahte değerlendirme", "Fake review"},
		{"personal_data", "Kişisel bilgi içeriyor", "Contains personal information"},
		{"profanity", "Uygunsuz dil içeriyor", "Contains offensive language"},
		{"duplicate", "Yinelenen değerlendirme", "Duplicate review"},
		{"author_request", "Yazarın isteği", "The author's request"},
	},
	ReasonsQuestionRejection: {
		{"personal_data", "Kişisel bilgi içeriyor", "Contains personal information"},
		{"profanity", "Uygunsuz dil içeriyor", "Contains offensive language"},
		{"off_topic", "Ürünle ilgili değil", "Not about the product"},
		{"advertising", "Reklam veya bağlantı içeriyor", "Contains advertising or links"},
		{"not_a_question", "Soru değil", "Not a question"},
	},
	ReasonsMediaRemoval: {
		{MediaRemovalPersonalData, "Kişisel bilgi görünüyor", "Shows personal information"},
		{MediaRemovalProfanity, "Uygunsuz içerik", "Offensive content"},
		{MediaRemovalDataRequest, "Kişisel veri talebi", "Personal data request"},
		{MediaRemovalLegalOrder, "Resmi makam kararı", "Legal order"},
	},
}

// Reasons returns a reason list in lang (tr or en; anything else is en). An
// unknown list is empty.
func Reasons(kind, lang string) []CodeLabel {
	if kind == ReasonsReport {
		return ReportReasons(lang) // the storefront's list (words.go)
	}
	defs := reasonLists[kind]
	out := make([]CodeLabel, 0, len(defs))
	for _, d := range defs {
		l := d.en
		if lang == "tr" {
			l = d.tr
		}
		out = append(out, CodeLabel{Code: d.code, Label: l})
	}
	return out
}

// ReasonAllowed reports whether code is in the reason list kind.
func ReasonAllowed(kind, code string) bool {
	for _, r := range Reasons(kind, "en") {
		if r.Code == code {
			return true
		}
	}
	return false
}

// ReasonLabel returns the label of code in the list kind in lang; the code itself
// when unknown.
func ReasonLabel(kind, code, lang string) string {
	for _, r := range Reasons(kind, lang) {
		if r.Code == code {
			return r.Label
		}
	}
	return code
}

// ReasonCatalogue is the answer of GET /admin/v1/reasons: every list in every
// language, keyed by language and then by list.
func ReasonCatalogue() map[string]map[string][]CodeLabel {
	out := map[string]map[string][]CodeLabel{}
	for _, lang := range []string{"tr", "en"} {
		m := map[string][]CodeLabel{}
		for _, k := range ReasonKinds {
			m[k] = Reasons(k, lang)
		}
		out[lang] = m
	}
	return out
}

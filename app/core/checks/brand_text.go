package checks

// Checks of the text a brand publishes under its own name: brand answers to
// questions, seller responses and resolution notes (spec 3: answer_refused,
// seller_response_refused and resolution_refused with the details below). Unlike
// the review checks, a finding refuses the text.

// Refusal details of a brand's text.
const (
	TextSteering     = "text_steering"
	TextHealthClaim  = "text_health_claim"
	TextPersonalData = "text_personal_data"
	TextProfanity    = "text_profanity"
)

// steeringPhrases are what a brand may not say to a customer in public: asking for
// a better rating or for a review to be changed or removed, or offering something
// in return for a review. A word ending in * is a prefix.
var steeringPhrases = NewPhraseList([]string{
	"change your review", "change your rating", "update your review", "update your rating", "edit your review",
	"remove your review", "delete your review", "withdraw your review", "take down your review", "in exchange for a review",
	"in exchange for your review", "for a positive review", "for a better review", "for a better rating", "for a 5 star*",
	"for a five star*", "leave us 5 star*", "leave us five star*", "give us 5 star*", "give us five star*",
	"discount for your review", "discount for a review", "coupon for your review", "coupon for a review",
	"refund if you remove", "refund if you delete", "refund if you change",
	"yorumunuzu sil*", "yorumunuzu kaldır*", "yorumunuzu değiştir*", "yorumunuzu güncelle*", "yorumunuzu düzelt*",
	"puanınızı değiştir*", "puanınızı güncelle*", "puanınızı yükselt*", "puanınızı artır*", "yorum karşılığında",
	"yorumunuz karşılığında", "5 yıldız ver*", "beş yıldız ver*",
})

// Steering reports whether text steers the customer (asks for a changed, removed or
// better review, or offers something for one), in Turkish or English.
func Steering(text, lang string) bool {
	_, ok := steeringPhrases.Find(SplitWords(text, lang))
	return ok
}

// BrandTextProblem is THE rule for a brand's public text: the detail of its first
// problem in this order: steering, a health claim (only when health is true: brand
// answers), personal data (an e-mail address or phone number), profanity; "" when
// the text may be published.
func BrandTextProblem(body, lang string, health bool) (string, error) {
	if Steering(body, lang) {
		return TextSteering, nil
	}
	found, err := TextFindings(CheckText{Body: body, Language: lang}, nil)
	if err != nil {
		return "", err
	}
	order := []struct{ check, detail string }{{CheckPersonalData, TextPersonalData}, {CheckProfanity, TextProfanity}}
	if health {
		order = append([]struct{ check, detail string }{{CheckHealthClaim, TextHealthClaim}}, order...)
	}
	for _, kind := range order {
		for _, f := range found {
			if f.Kind == kind.check {
				return kind.detail, nil
			}
		}
	}
	return "", nil
}

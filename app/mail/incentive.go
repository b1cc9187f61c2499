package mail

import (
	"html"
	"regexp"
	"strings"
	"unicode"
)

// incentiveConditions are the wordings (en and tr) that tie a reward to the rating
// or to a positive review: "for a 5-star review", "if you rate us 5 stars",
// "olumlu yorum", "5 yıldız". 16 CFR 465.4 forbids conditioning an incentive on
// the sentiment of the review, so a template saying so is refused whether or not
// it is marked as carrying an incentive.
var incentiveConditions = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(?:[1-5]|four|five)[\s-]*stars?\b`),
	regexp.MustCompile(`(?i)\b(?:positive|good|great|favou?rable|glowing|top)[\s-]+(?:review|rating|feedback)s?\b`),
	regexp.MustCompile(`(?i)\brate\s+us\s+(?:[1-5]|highly|well)\b`),
	regexp.MustCompile(`(?i)\b(?:full|top|highest)\s+(?:marks|rating|score)\b`),
	regexp.MustCompile(`(?i)(?:[1-5]|dört|beş)\s*y[ıiIİ]ld[ıiIİ]z`),
	regexp.MustCompile(`(?i)(?:olumlu|[ıiIİ]y[ıiIİ]|güzel|pozitif)\s+(?:yorum|değerlendirme|puan)`),
	regexp.MustCompile(`(?i)tam\s+puan`),
}

// reTags drops the tags of a template before its text is read.
var reTags = regexp.MustCompile(`<[^>]*>`)

// reScale is a rating scale ("from 1 to 5 stars", "1-5", "1'den 5'e"): naming the
// scale conditions nothing, so it is taken out before the wordings are looked for.
var reScale = regexp.MustCompile(`(?i)\b[1-5]\s*(?:'?(?:den|dan))?\s*(?:to|-|–|ile|ila)\s*[1-5]\b(?:'?(?:e|a|ye|ya))?`)

// IncentiveConditional reports whether text (a template's subject and HTML)
// conditions a reward on the rating or on a positive review.
func IncentiveConditional(text string) bool {
	plain := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' ' // no-break and other spaces count as spaces
		}
		return r
	}, html.UnescapeString(reTags.ReplaceAllString(text, " ")))
	plain = reScale.ReplaceAllString(plain, " ")
	for _, re := range incentiveConditions {
		if re.MatchString(plain) {
			return true
		}
	}
	return false
}

package mail_test

import (
	"testing"

	"reviewd/app/mail"
)

// TestIncentiveConditional: wordings tying a reward to the rating or a positive
// review are found (tr and en, through tags and entities); a reward for any
// review and a named rating scale are not.
func TestIncentiveConditional(t *testing.T) {
	for _, s := range []string{
		"Get 10% off for a 5-star review", "a coupon for your five star rating", "Leave a <b>positive review</b> and win",
		"Rate us 5 and save", "5 yıldızlı yorum bırakana kupon", "Olumlu yorumunuza hediye", "olumlu&nbsp;değerlendirme yapana indirim",
		"Tam puan verene kargo bedava", "Beş yıldız verin, indirim kazanın",
	} {
		if !mail.IncentiveConditional(s) {
			t.Errorf("not found: %q", s)
		}
	}
	for _, s := range []string{
		"A 10% coupon for any review, good or bad.", "Rate your order from 1 to 5 stars.", "Ürünü 1'den 5'e kadar puanlayın.",
		"Her yoruma %10 indirim: olumlu ya da olumsuz.", "How do you like {{products}}?",
	} {
		if mail.IncentiveConditional(s) {
			t.Errorf("refused: %q", s)
		}
	}
}

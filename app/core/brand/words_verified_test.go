package brand_test

import (
	"testing"

	"reviewd/app/core/brand"
)

// TestVerifiedBadgeOneWording: a review with proof of purchase and a buyer's answer
// carry the same badge text in each language (the spec's "Verified buyer"), and
// the filter chip speaks of the same thing.
func TestVerifiedBadgeOneWording(t *testing.T) {
	for lang, want := range map[string][2]string{
		"en": {"Verified buyer", "Verified buyers only"},
		"tr": {"Doğrulanmış alıcı", "Yalnızca doğrulanmış alıcılar"},
	} {
		w := brand.Words(lang)
		if w["verified_purchase"] != want[0] || w["verified_buyer"] != want[0] {
			t.Errorf("%s: review badge %q, answer badge %q, want both %q", lang, w["verified_purchase"], w["verified_buyer"], want[0])
		}
		if w["filter_verified"] != want[1] {
			t.Errorf("%s: filter %q, want %q", lang, w["filter_verified"], want[1])
		}
	}
}

package core_test

import (
	"testing"

	"reviewd/app/core"
)

func TestPhoneE164(t *testing.T) {
	cases := []struct{ raw, market, want string }{
		{"0532 123 45 67", "TR", "+905321234567"},      // Turkish mobile, local form with the trunk 0
		{"532 123 4567", "TR", "+905321234567"},        // without the trunk 0
		{"+90 (532) 123-45-67", "TR", "+905321234567"}, // international form
		{"0090 532 123 45 67", "GB", "+905321234567"},  // 00 prefix: the market is not used
		{"07911 123456", "GB", "+447911123456"},        // British mobile, local form
		{"+44 7911 123456", "TR", "+447911123456"},     // international form in another market
		{"020 7946 0018", "GB", "+442079460018"},       // British landline
		{"12345", "TR", ""},                            // too short for any number
		{"not a number", "GB", ""},                     // unparseable
		{"0532 123 45 67", "", ""},                     // local form without a market
		{"", "TR", ""},
	}
	for _, c := range cases {
		if got := core.PhoneE164(c.raw, c.market); got != c.want {
			t.Errorf("PhoneE164(%q, %q) = %q, want %q", c.raw, c.market, got, c.want)
		}
	}
}

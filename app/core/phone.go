package core

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// PhoneE164 reads a customer's phone number as it arrives (local or international
// form, with spaces, dashes, brackets or a 00 prefix) and returns it in E.164
// ("+905321234567"). A number without a country code is completed from market (an
// ISO 3166 alpha-2 code). It returns "" for a number that cannot be completed to a
// valid number of its country (spec 1: such a number is dropped).
func PhoneE164(raw, market string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > MaxPhoneLen*4 {
		return ""
	}
	if strings.HasPrefix(raw, "00") {
		raw = "+" + raw[2:]
	}
	n, err := phonenumbers.Parse(raw, strings.ToUpper(market))
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return ""
	}
	return phonenumbers.Format(n, phonenumbers.E164)
}

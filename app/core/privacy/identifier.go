package privacy

import (
	"net/mail"
	"strings"
	"unicode/utf8"

	"reviewd/app/core"
)

// identifier is the person a request is about: an e-mail address (lower-cased) or a
// phone number (its digits; the last ten identify it, so the international and the
// local form are the same number).
type identifier struct {
	kind  string // email or phone
	value string // as shown: the address, or the number as sent (trimmed)
	key   string // normalised: the address, or the last ten digits
}

// parseIdentifier reads an e-mail address or a phone number (7 to 15 digits with
// spaces, dashes, dots, brackets and a leading +). Errors: invalid /
// identifier_required, identifier.
func parseIdentifier(s string) (identifier, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return identifier{}, core.Invalid("identifier_required")
	}
	if utf8.RuneCountInString(s) > 254 || !core.StorableText(s) {
		return identifier{}, core.Invalid("identifier")
	}
	if strings.Contains(s, "@") {
		addr, err := mail.ParseAddress(s)
		if err != nil || addr.Address != s || addr.Name != "" || strings.ContainsAny(s, " <>\"") {
			return identifier{}, core.Invalid("identifier")
		}
		low := strings.ToLower(s)
		return identifier{kind: "email", value: low, key: low}, nil
	}
	var digits []byte
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, byte(r))
		case r == '+' && i == 0, r == ' ', r == '-', r == '.', r == '(', r == ')', r == '/':
		default:
			return identifier{}, core.Invalid("identifier")
		}
	}
	if len(digits) < 7 || len(digits) > 15 {
		return identifier{}, core.Invalid("identifier")
	}
	key := string(digits)
	if len(key) > 10 {
		key = key[len(key)-10:]
	}
	return identifier{kind: "phone", value: s, key: key}, nil
}

// hash is the keyed hash a request is found by.
func (s *Service) hash(id identifier) string { return s.Keys.Pseudonym("subject_"+id.kind, id.key) }

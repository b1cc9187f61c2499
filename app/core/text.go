package core

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"net/mail"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Field limits shared by the order transfer and the other inputs (spec 1, "Limits").
const (
	MaxIDLen      = 128
	MaxChannelLen = 32
	MaxEmailLen   = 254
	MaxPhoneLen   = 32
	MaxTitleLen   = 300
)

// OrderPublicID is the stable id of an order shown in answers ("ord_<n>").
func OrderPublicID(id int64) string { return "ord_" + strconv.FormatInt(id, 10) }

// ParseOrderPublicID reads an id made by OrderPublicID.
func ParseOrderPublicID(s string) (int64, bool) { return ParseID("ord_", s) }

// ParseID reads a public id made of prefix and a positive decimal number
// ("conn_12"); anything else (another prefix, a sign, zero, not a number) is false.
func ParseID(prefix, s string) (int64, bool) {
	digits, ok := strings.CutPrefix(s, prefix)
	if !ok || digits == "" || digits[0] < '0' || digits[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n > 0
}

// TruncateRunes cuts s to at most n characters.
func TruncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

// StorableText reports whether s is valid UTF-8 without control characters.
func StorableText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// Text trims v and checks it, answering in spec 1's form (ingest): field_missing:
// <field> when required and empty, field_too_long: <field> over max characters,
// field_invalid: <field> for control characters or bad UTF-8.
func Text(field, v string, max int, required bool) (string, error) {
	v, problem := checkText(v, max, required)
	if problem == "" {
		return v, nil
	}
	return "", Invalidf("field_"+problem, field)
}

// FieldText is Text for the management API, answering in spec 3's form:
// <field>_required, <field>_too_long, or <field> for a value that cannot be stored.
func FieldText(field, v string, max int, required bool) (string, error) {
	v, problem := checkText(v, max, required)
	switch problem {
	case "":
		return v, nil
	case "missing":
		return "", Invalid(field + "_required")
	case "too_long":
		return "", Invalid(field + "_too_long")
	}
	return "", Invalid(field)
}

// checkText is the one text rule of Text and FieldText: the trimmed value, or the
// problem (missing, too_long, invalid).
func checkText(v string, max int, required bool) (string, string) {
	v = strings.TrimSpace(v)
	if v == "" {
		if required {
			return "", "missing"
		}
		return "", ""
	}
	if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
		return "", "invalid"
	}
	if utf8.RuneCountInString(v) > max {
		return "", "too_long"
	}
	if !StorableText(v) {
		return "", "invalid"
	}
	return v, ""
}

// Title is text that may carry line breaks or tabs from a catalogue; they become
// spaces.
func Title(v string) (string, error) {
	v = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, v)
	return Text("title", v, MaxTitleLen, false)
}

// SingleLine cleans a one-line field: line breaks and tabs become spaces, other
// control characters go, surrounding space is trimmed.
func SingleLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewPublicID returns prefix + 20 random base32 characters (100 bits).
func NewPublicID(prefix string) string {
	b := make([]byte, 13)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return prefix + idEncoding.EncodeToString(b)[:20]
}

// MultiLine cleans a text field: line breaks become \n, tabs spaces, other control
// characters go, surrounding space is trimmed.
func MultiLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\r' || r == '\u2028' || r == '\u2029':
			return '\n'
		case r == '\t':
			return ' '
		case r == '\n':
			return r
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// ParseHideName reads hide_name: absent or null is unset, else it must be a
// boolean (invalid / hide_name).
func ParseHideName(raw json.RawMessage) (v, set bool, err error) {
	if IsNull(raw) {
		return false, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, false, Invalid("hide_name")
	}
	return v, true, nil
}

func IsNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// Admin: listing, saving and retiring lists -------------------------------------

// ValidEmail reports whether s is one plain address of at most 254 characters.
func ValidEmail(s string) bool {
	if len(s) > 254 || !strings.Contains(s, "@") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// SpreadsheetSafe keeps a spreadsheet from reading a CSV cell as a formula: a cell
// that starts with = + - @, a tab or a carriage return gets a leading '. The audit
// files and the brand export use it.
func SpreadsheetSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

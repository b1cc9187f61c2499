package checks

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Marks that replace personal data in erased texts.
const (
	MarkEmail = "[email]"
	MarkPhone = "[phone]"
	MarkName  = "[name]"
)

// MaskPersonalData replaces e-mail addresses, phone numbers (10 to 15 digits with
// the usual separators) and the given names (whole words, ignoring case; each name
// and each of its words of three letters or more) in s with MarkEmail, MarkPhone
// and MarkName.
func MaskPersonalData(s string, names []string) string {
	s = reEmail.ReplaceAllString(s, MarkEmail)
	s = rePhoneRun.ReplaceAllStringFunc(s, func(m string) string {
		digits := 0
		for _, r := range m {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits >= 10 && digits <= 15 {
			return MarkPhone
		}
		return m
	})
	var parts []string
	seen := map[string]bool{}
	add := func(n string) {
		n = strings.TrimSpace(n)
		if utf8.RuneCountInString(n) < 3 || seen[strings.ToLower(n)] {
			return
		}
		seen[strings.ToLower(n)] = true
		parts = append(parts, regexp.QuoteMeta(n))
	}
	for _, n := range names {
		add(n)
		for _, w := range strings.Fields(n) {
			add(strings.Trim(w, ".,;:!?\"'()"))
		}
	}
	if len(parts) == 0 {
		return s
	}
	// Longer names first, so a full name is replaced as one mark.
	for i := 1; i < len(parts); i++ {
		for j := i; j > 0 && len(parts[j]) > len(parts[j-1]); j-- {
			parts[j], parts[j-1] = parts[j-1], parts[j]
		}
	}
	re := regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}])(` + strings.Join(parts, "|") + `)([^\p{L}\p{N}]|$)`)
	// Matches may touch (a name right after another); run until nothing changes.
	for {
		next := re.ReplaceAllString(s, "${1}"+MarkName+"${3}")
		if next == s {
			return s
		}
		s = next
	}
}

// HasPhone reports whether s holds the phone number phone (compared by its
// digits: the last ten digits of each number found in s against those of phone).
func HasPhone(s, phone string) bool {
	want := lastDigits(phone, 10)
	if len(want) < 10 {
		return false
	}
	for _, m := range rePhoneRun.FindAllString(s, -1) {
		if lastDigits(m, 10) == want {
			return true
		}
	}
	return false
}

func lastDigits(s string, n int) string {
	var d []byte
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d = append(d, s[i])
		}
	}
	if len(d) > n {
		d = d[len(d)-n:]
	}
	return string(d)
}

package privacy

import "testing"

func TestParseIdentifier(t *testing.T) {
	for in, want := range map[string]identifier{
		" Lena@Mail.Example ": {kind: "email", value: "lena@mail.example", key: "lena@mail.example"},
		"+90 532 123 45 67":   {kind: "phone", value: "+90 532 123 45 67", key: "5321234567"},
		"0532 123 45 67":      {kind: "phone", value: "0532 123 45 67", key: "5321234567"},
		"(030) 1234567":       {kind: "phone", value: "(030) 1234567", key: "0301234567"},
	} {
		got, err := parseIdentifier(in)
		if err != nil || got != want {
			t.Errorf("parseIdentifier(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, code := range map[string]string{
		"":                         "identifier_required",
		"   ":                      "identifier_required",
		"lena@":                    "identifier",
		"Lena <lena@mail.example>": "identifier",
		"12345":                    "identifier",
		"1234567890123456":         "identifier",
		"90+532":                   "identifier",
		"call me":                  "identifier",
	} {
		if _, err := parseIdentifier(in); err == nil || err.Error() != "400 invalid / "+code {
			t.Errorf("parseIdentifier(%q) = %v, want invalid / %s", in, err, code)
		}
	}
}

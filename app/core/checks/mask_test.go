package checks

import "testing"

func TestMaskPersonalData(t *testing.T) {
	cases := []struct {
		in    string
		names []string
		want  string
	}{
		{"Mail ayse@mail.example or ayse (at) mail.example", nil, "Mail [email] or [email]"},
		{"Call +90 532 123 45 67 or 0532-123-4567, code 12345", nil, "Call [phone] or [phone], code 12345"},
		{"Ayşe Yılmaz says hi; AYŞE agrees; Yılmazlar is a word", []string{"Ayşe Yılmaz"}, "[name] says hi; [name] agrees; Yılmazlar is a word"},
		{"Al is short, Alice is not", []string{"Al"}, "Al is short, Alice is not"},
		{"Ann Ann", []string{"Ann"}, "[name] [name]"},
		{"No data here.", []string{""}, "No data here."},
		{"Dots (a.b) stay", []string{"a.b"}, "Dots ([name]) stay"},
	}
	for _, c := range cases {
		if got := MaskPersonalData(c.in, c.names); got != c.want {
			t.Errorf("MaskPersonalData(%q, %q) = %q, want %q", c.in, c.names, got, c.want)
		}
	}
}

func TestHasPhone(t *testing.T) {
	for s, want := range map[string]bool{
		"reach me on 0 (532) 123-45-67": true,
		"+905321234567":                 true,
		"0532 999 88 77":                false,
		"no number":                     false,
	} {
		if got := HasPhone(s, "5321234567"); got != want {
			t.Errorf("HasPhone(%q) = %v", s, got)
		}
	}
	if HasPhone("12345", "12345") {
		t.Error("a short number matched")
	}
}

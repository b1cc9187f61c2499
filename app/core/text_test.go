package core

import (
	"strings"
	"testing"
)

// TestTextErrorForms: one text rule, two answers. Ingest (Text) answers spec 1's
// field_missing: <field>; the management API (FieldText) answers spec 3's
// <field>_required.
func TestTextErrorForms(t *testing.T) {
	for _, c := range []struct {
		v            string
		required     bool
		ingest, mgmt string
	}{
		{"", true, "invalid / field_missing: name", "invalid / name_required"},
		{"   ", true, "invalid / field_missing: name", "invalid / name_required"},
		{strings.Repeat("n", 11), true, "invalid / field_too_long: name", "invalid / name_too_long"},
		{"a\x00b", false, "invalid / field_invalid: name", "invalid / name"},
		{"a\x07b", false, "invalid / field_invalid: name", "invalid / name"},
		{"", false, "", ""},
		{" ok ", true, "", ""},
	} {
		for _, f := range []struct {
			check func(string, string, int, bool) (string, error)
			want  string
		}{{Text, c.ingest}, {FieldText, c.mgmt}} {
			v, err := f.check("name", c.v, 10, c.required)
			got := ""
			if e, ok := err.(*Error); ok {
				got = e.Code + " / " + e.Detail
			} else if err != nil {
				got = err.Error()
			}
			if got != f.want || (err == nil && v != strings.TrimSpace(c.v)) {
				t.Errorf("%q required=%v: %q %q, want %q", c.v, c.required, v, got, f.want)
			}
		}
	}
}

// TestSpreadsheetSafe: cells a spreadsheet would read as a formula, including those
// led by a tab or a carriage return, get a leading '.
func TestSpreadsheetSafe(t *testing.T) {
	for in, want := range map[string]string{"=1+2": "'=1+2", "+1": "'+1", "-1": "'-1", "@cmd": "'@cmd",
		"\t=1": "'\t=1", "\r=1": "'\r=1", "plain": "plain", "": "", " =1": " =1"} {
		if got := SpreadsheetSafe(in); got != want {
			t.Errorf("SpreadsheetSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

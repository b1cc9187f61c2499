package core_test

import (
	"testing"

	"reviewd/app/core"
)

// TestParseID: a public id is its prefix and a positive decimal number; every
// other form is refused, so a handler answers 404 for it without a query.
func TestParseID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"conn_12", 12, true}, {"conn_007", 7, true},
		{"conn_0", 0, false}, {"conn_-3", 0, false}, {"conn_+3", 0, false}, {"conn_", 0, false},
		{"12", 0, false}, {"mks_12", 0, false}, {"conn_1x", 0, false}, {"conn_99999999999999999999", 0, false},
	} {
		if n, ok := core.ParseID("conn_", c.in); ok != c.ok || ok && n != c.want {
			t.Errorf("ParseID(conn_, %q) = %d, %v; want %d, %v", c.in, n, ok, c.want, c.ok)
		}
	}
}

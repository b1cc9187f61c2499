package web

import "strings"

// ETagMatches reports whether an If-None-Match header names etag (weak
// comparison, "*" matches anything). It allocates nothing: it runs on every
// conditional storefront read.
func ETagMatches(header, etag string) bool {
	for more := true; more; {
		var t string
		t, header, more = strings.Cut(header, ",")
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

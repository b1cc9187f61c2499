package web

import "strings"

// ETagMatches reports whether an If-None-Match header names etag (weak
// comparison, "*" matches anything).
func ETagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

package web

import "strings"

// mailEventsPrefix starts the mail-provider endpoints, whose last path segment is
// the access code that authenticates the provider.
const mailEventsPrefix = "/v1/mail-events/"

// LogPath is a request path as it may be written to logs: secrets carried in the
// path (the access code of /v1/mail-events/{provider}/{access_code}) are replaced
// by "REDACTED".
func LogPath(path string) string {
	rest, ok := strings.CutPrefix(path, mailEventsPrefix)
	if !ok {
		return path
	}
	provider, _, hasCode := strings.Cut(rest, "/")
	if !hasCode {
		return path
	}
	return mailEventsPrefix + provider + "/REDACTED"
}

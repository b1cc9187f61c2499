// Package docs embeds the documents reviewd serves itself: the OpenAPI 3.1
// description of every HTTP route (openapi.json, served at GET /openapi.json).
// The document is written by `go test ./docs -run TestOpenAPI -update` from the
// route descriptions in openapi_test.go, which also checks it against the mounted
// router and validates real answers against it.
package docs

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strings"
)

// OpenAPI is docs/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// openAPIETag is the strong validator of OpenAPI.
var openAPIETag = func() string {
	sum := sha256.Sum256(OpenAPI)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// OpenAPIHandler serves OpenAPI publicly with Cache-Control and an ETag; an
// If-None-Match naming the current version answers 304.
func OpenAPIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "public, max-age=300")
		h.Set("ETag", openAPIETag)
		if etagMatches(r.Header.Get("If-None-Match"), openAPIETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", "application/json")
		_, _ = w.Write(OpenAPI)
	})
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match; * matches any).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

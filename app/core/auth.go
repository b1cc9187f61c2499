package core

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"
)

// SignatureWindow is how far a signed request's timestamp may be from our clock.
const SignatureWindow = 5 * time.Minute

// Signature refusal details (spec 1, "Errors (transfer)").
const (
	SigMissing         = "signature_missing"
	SigTimestampMiss   = "timestamp_missing"
	SigTimestampBad    = "timestamp_invalid"
	SigOutsideWindow   = "timestamp_outside_window"
	SigMismatch        = "signature_mismatch"
	SigSecretUnknown   = "secret_unknown"
	signatureErrorCode = "signature_refused"
)

// SignatureError is 401 signature_refused / detail, counted as a refusal.
func SignatureError(detail string) *Error {
	return E(401, signatureErrorCode, detail).AsRefusal()
}

var tsLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05.999999999Z0700"}

// ParseTimestamp reads an ISO 8601 time that carries a zone (Z or an offset).
func ParseTimestamp(s string) (time.Time, bool) {
	for _, l := range tsLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Sign computes hex(HMAC-SHA256(secret, timestamp + "." + body)).
func Sign(secret []byte, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// RequestHost returns the host a browser request comes from: the Origin header, else
// the Referer. Empty when neither names a host.
func RequestHost(origin, referer string) string {
	for _, v := range []string{origin, referer} {
		if v == "" || v == "null" {
			continue
		}
		if u, err := url.Parse(v); err == nil && u.Hostname() != "" {
			return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		}
	}
	return ""
}

// DomainVerified reports whether host is one of the verified domains or a subdomain
// of one (www.shop.example under shop.example).
func DomainVerified(host string, domains []string) bool {
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"time"

	"reviewd/store"
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

// VerifySignature checks the three signature headers of a request over its raw body.
// purpose is the password purpose the endpoint accepts (signing for order transfers,
// mail_events for the generic mail-event endpoint); passwords of another purpose are
// "not usable here" and answer secret_unknown like unknown or revoked ones.
func (c *Core) VerifySignature(ctx context.Context, secretID, timestamp, signature string, body []byte, purpose string) (store.Password, error) {
	if secretID == "" {
		return store.Password{}, SignatureError(SigSecretUnknown)
	}
	p, err := c.DB.Read().PasswordByID(ctx, secretID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!p.RevokedAt.IsZero() || p.Purpose != purpose)) {
		return store.Password{}, SignatureError(SigSecretUnknown)
	}
	if err != nil {
		return store.Password{}, err
	}
	if timestamp == "" {
		return p, SignatureError(SigTimestampMiss)
	}
	ts, ok := ParseTimestamp(timestamp)
	if !ok {
		return p, SignatureError(SigTimestampBad)
	}
	if d := c.Now().Sub(ts); d > SignatureWindow || d < -SignatureWindow {
		return p, SignatureError(SigOutsideWindow)
	}
	if signature == "" {
		return p, SignatureError(SigMissing)
	}
	secret, err := c.PasswordSecret(p)
	if err != nil {
		// A password the master key cannot open is as good as unknown.
		return p, SignatureError(SigSecretUnknown)
	}
	want := Sign(secret, timestamp, body)
	if !hmac.Equal([]byte(want), []byte(strings.ToLower(signature))) {
		return p, SignatureError(SigMismatch)
	}
	return p, nil
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

// SiteAccess is what a verified site key grants.
type SiteAccess struct {
	Key     store.Key
	Channel store.Channel
}

// VerifySiteKey checks a site key and the page's domain: unknown_site_key,
// revoked_site_key, channel_inactive, origin_missing, origin_unverified: <domain>.
// With checkOrigin false the domain is not checked (the public method-statement page).
func (c *Core) VerifySiteKey(ctx context.Context, secret, origin, referer string, checkOrigin bool) (SiteAccess, error) {
	k, detail, err := c.LookupKey(ctx, secret)
	if err != nil {
		return SiteAccess{}, err
	}
	switch {
	case detail == KeyRevoked && k.Kind == KindSite:
		return SiteAccess{}, Refused("revoked_site_key").AsRefusal()
	case detail != "" || k.Kind != KindSite:
		return SiteAccess{}, Refused("unknown_site_key").AsRefusal()
	}
	ch, err := c.DB.Read().ChannelByID(ctx, k.ChannelID)
	if err != nil {
		return SiteAccess{}, err
	}
	if !ch.Active {
		return SiteAccess{}, Refused("channel_inactive")
	}
	if checkOrigin {
		host := RequestHost(origin, referer)
		if host == "" {
			return SiteAccess{}, Refused("origin_missing")
		}
		domains, err := c.DB.Read().ChannelDomains(ctx, ch.ID)
		if err != nil {
			return SiteAccess{}, err
		}
		if !DomainVerified(host, domains) {
			return SiteAccess{}, Refused("origin_unverified: " + host)
		}
	}
	return SiteAccess{Key: k, Channel: ch}, nil
}

// KeyActor builds the actor of an authenticated key.
func KeyActor(k store.Key, via string) *Actor {
	name := k.Label
	if name == "" {
		name = k.PublicID
	}
	return &Actor{Via: via, ID: k.PublicID, Name: name, Role: "key", Perms: PermsOfScopes(k.Scopes), ChannelID: k.ChannelID}
}

package access

import (
	"context"
	"crypto/hmac"
	"errors"
	"strings"

	"reviewd/app/core"
	"reviewd/store"
)

// VerifySignature checks the three signature headers of a request over its raw body.
// purpose is the password purpose the endpoint accepts (signing for order transfers,
// mail_events for the generic mail-event endpoint); passwords of another purpose are
// "not usable here" and answer secret_unknown like unknown or revoked ones.
func (s *Service) VerifySignature(ctx context.Context, secretID, timestamp, signature string, body []byte, purpose string) (store.Password, error) {
	if secretID == "" {
		return store.Password{}, core.SignatureError(core.SigSecretUnknown)
	}
	p, err := s.DB.Read().PasswordByID(ctx, secretID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!p.RevokedAt.IsZero() || p.Purpose != purpose)) {
		return store.Password{}, core.SignatureError(core.SigSecretUnknown)
	}
	if err != nil {
		return store.Password{}, err
	}
	if timestamp == "" {
		return p, core.SignatureError(core.SigTimestampMiss)
	}
	ts, ok := core.ParseTimestamp(timestamp)
	if !ok {
		return p, core.SignatureError(core.SigTimestampBad)
	}
	if d := s.DB.Now().Sub(ts); d > core.SignatureWindow || d < -core.SignatureWindow {
		return p, core.SignatureError(core.SigOutsideWindow)
	}
	if signature == "" {
		return p, core.SignatureError(core.SigMissing)
	}
	secret, err := s.Keys.Decrypt(p.SecretEnc)
	if err != nil {
		// A password the master key cannot open is as good as unknown.
		return p, core.SignatureError(core.SigSecretUnknown)
	}
	want := core.Sign(secret, timestamp, body)
	if !hmac.Equal([]byte(want), []byte(strings.ToLower(signature))) {
		return p, core.SignatureError(core.SigMismatch)
	}
	return p, nil
}

// SiteAccess is what a verified site key grants.
type SiteAccess struct {
	Key     store.Key
	Channel store.Channel
}

// VerifySiteKey checks a site key and the page's domain: unknown_site_key,
// revoked_site_key, channel_inactive, origin_missing, origin_unverified: <domain>.
// With checkOrigin false the domain is not checked (the public method-statement page).
func (s *Service) VerifySiteKey(ctx context.Context, secret, origin, referer string, checkOrigin bool) (SiteAccess, error) {
	k, detail, err := s.LookupKey(ctx, secret)
	if err != nil {
		return SiteAccess{}, err
	}
	switch {
	case detail == KeyRevoked && k.Kind == KindSite:
		s.noteRefusal(RefusalRevokedSiteKey, k.PublicID, k.ChannelID)
		return SiteAccess{}, core.Refused("revoked_site_key").AsRefusal()
	case detail != "" || k.Kind != KindSite:
		return SiteAccess{}, core.Refused("unknown_site_key").AsRefusal()
	}
	ch, err := s.DB.Read().ChannelByID(ctx, k.ChannelID)
	if err != nil {
		return SiteAccess{}, err
	}
	if !ch.Active {
		return SiteAccess{}, core.Refused("channel_inactive")
	}
	if checkOrigin {
		host := core.RequestHost(origin, referer)
		if host == "" {
			return SiteAccess{}, core.Refused("origin_missing")
		}
		domains, err := s.DB.Read().ChannelDomains(ctx, ch.ID)
		if err != nil {
			return SiteAccess{}, err
		}
		if !core.DomainVerified(host, domains) {
			s.noteRefusal(RefusalOriginUnverified, host, ch.ID)
			return SiteAccess{}, core.Refused("origin_unverified: " + host)
		}
	}
	return SiteAccess{Key: k, Channel: ch}, nil
}

// KeyActor builds the actor of an authenticated key.
func KeyActor(k store.Key, via string) *core.Actor {
	name := k.Label
	if name == "" {
		name = k.PublicID
	}
	return &core.Actor{Via: via, ID: k.PublicID, Name: name, Role: "key", Perms: core.PermsOfScopes(k.Scopes), ChannelID: k.ChannelID}
}

package access

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Key kinds and the prefix of their secrets. A key is the prefix plus 43 base64url
// characters (256 random bits); anything else is malformed.
const (
	KindServer = "server"
	KindSite   = "site"
	KindAPI    = "api"
)

var keyPrefix = map[string]string{KindServer: "rvd_srv_", KindSite: "rvd_site_", KindAPI: "rvd_api_"}

var reKey = regexp.MustCompile(`^rvd_(srv|site|api)_[A-Za-z0-9_-]{43}$`)

// APIScopes are the scopes an admin API key may carry.
var APIScopes = []string{core.PermRead, core.PermModerate, core.PermExport, core.PermWrite}

// NewKey is the input of CreateKey.
type NewKey struct {
	Kind        string
	ChannelCode string
	Scopes      []string
	Label       string
	// AllowWrite lets the operator grant the reserved write scope (console only).
	AllowWrite bool
}

// CreatedKey is a key as shown once, at creation.
type CreatedKey struct {
	store.Key
	Secret  string
	Channel string
}

// CreateKey makes a server, site or admin API key. Server and site keys need a
// channel; server keys get orders and ssr; API keys need scopes from read, moderate,
// export and write (write only when AllowWrite).
func (s *Service) CreateKey(ctx context.Context, a *core.Actor, in NewKey) (CreatedKey, error) {
	prefix, ok := keyPrefix[in.Kind]
	if !ok {
		return CreatedKey{}, core.Invalid("kind")
	}
	k := store.Key{Kind: in.Kind, Label: strings.TrimSpace(in.Label), PublicID: "key_" + core.RandomHex(8)}
	var channel store.Channel
	switch in.Kind {
	case KindServer, KindSite:
		if in.ChannelCode == "" {
			return CreatedKey{}, core.Invalid("channel_required")
		}
		ch, err := s.DB.Read().ChannelByCode(ctx, in.ChannelCode)
		if errors.Is(err, store.ErrNotFound) {
			return CreatedKey{}, core.Invalid("channel")
		} else if err != nil {
			return CreatedKey{}, err
		}
		channel = ch
		k.ChannelID = ch.ID
		if in.Kind == KindServer {
			k.Scopes = core.PermOrders + "," + core.PermSSR
		}
	case KindAPI:
		if len(in.Scopes) == 0 {
			return CreatedKey{}, core.Invalid("scopes_required")
		}
		seen := map[string]bool{}
		var scopes []string
		for _, s := range in.Scopes {
			s = strings.TrimSpace(s)
			if s == "" || seen[s] {
				continue
			}
			known := false
			for _, k := range APIScopes {
				known = known || k == s
			}
			if !known {
				return CreatedKey{}, core.Invalidf("unknown_scope", s)
			}
			if s == core.PermWrite && !in.AllowWrite {
				return CreatedKey{}, core.Invalidf("scope_reserved", core.PermWrite)
			}
			seen[s] = true
			scopes = append(scopes, s)
		}
		if len(scopes) == 0 {
			return CreatedKey{}, core.Invalid("scopes_required")
		}
		k.Scopes = strings.Join(scopes, ",")
	}
	secret := prefix + core.RandomToken(32)
	k.Hash = core.HashToken(secret)
	if in.Kind == KindSite {
		k.SiteKey = secret
	}
	k.Hint = secret[len(secret)-4:]
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if k, err = tx.CreateKey(ctx, k); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "key.created", "key", k.PublicID, map[string]any{"kind": k.Kind, "scopes": k.Scopes, "channel": channel.Code})
	})
	return CreatedKey{Key: k, Secret: secret, Channel: channel.Code}, err
}

// RevokeKey revokes a key by its public id.
func (s *Service) RevokeKey(ctx context.Context, a *core.Actor, publicID string) error {
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.RevokeKey(ctx, publicID); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "key.revoked", "key", publicID, nil)
	})
}

// Key verification results (the detail codes of the spec).
const (
	KeyUnknown   = "unknown_key"
	KeyMalformed = "malformed_key"
	KeyRevoked   = "revoked_key"
)

// LookupKey finds the key row of a presented secret. The detail is one of
// KeyUnknown, KeyMalformed, KeyRevoked when the key is not usable. The lookup is by
// SHA-256 of the secret, so no comparison of secrets happens in Go.
func (s *Service) LookupKey(ctx context.Context, secret string) (store.Key, string, error) {
	if !reKey.MatchString(secret) {
		return store.Key{}, KeyMalformed, nil
	}
	k, err := s.DB.Read().KeyByHash(ctx, core.HashToken(secret))
	if errors.Is(err, store.ErrNotFound) {
		return store.Key{}, KeyUnknown, nil
	}
	if err != nil {
		return store.Key{}, "", err
	}
	if !k.RevokedAt.IsZero() {
		return k, KeyRevoked, nil
	}
	s.KeyUsed(k.PublicID)
	return k, "", nil
}

// keyUseEvery is how often at most a key's last use is written.
const keyUseEvery = time.Minute

// keyUses remembers when this process last wrote each key's last use.
type keyUses struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// KeyUsed notes that a key (by public id) authenticated now: LookupKey calls it,
// and so does a surface that reuses a verified caller. The last use is written at
// most once per keyUseEvery, after the caller goes on: in a statement of its own,
// never in the request's transaction and never delaying the answer. A failed write
// is logged and tried again on a later use after the interval.
func (s *Service) KeyUsed(id string) {
	if s.DB.ReadOnly() {
		return // a follower's copy: the primary notes its own uses
	}
	at := s.DB.Now()
	s.uses.mu.Lock()
	last, seen := s.uses.last[id]
	if seen && at.Sub(last) < keyUseEvery {
		s.uses.mu.Unlock()
		return
	}
	if s.uses.last == nil {
		s.uses.last = map[string]time.Time{}
	}
	s.uses.last[id] = at
	s.uses.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.DB.NoteKeyUse(ctx, id, at); err != nil {
			s.Log.Warn("keys: last use not recorded", "err", err)
		}
	}()
}

// KeyRow is a key as lists show it: never the secret of a server or API key.
type KeyRow struct {
	store.Key
	Channel string
}

// ListKeys lists every key, newest first, with its channel code.
func (s *Service) ListKeys(ctx context.Context) ([]KeyRow, error) {
	q := s.DB.Read()
	keys, err := q.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return nil, err
	}
	codes := make(map[int64]string, len(chans))
	for _, ch := range chans {
		codes[ch.ID] = ch.Code
	}
	out := make([]KeyRow, 0, len(keys))
	for _, k := range keys {
		out = append(out, KeyRow{Key: k, Channel: codes[k.ChannelID]})
	}
	return out, nil
}

// CreatePanelKey is POST /admin/v1/channels with kind api_key (spec 3, rule 1): without
// scopes a server key of the channel (orders and ssr); with scopes an admin API key
// with them. An empty list is 400 invalid / scopes_required, an unknown permission
// unknown_scope: <p>, and write scope_reserved: write (only the operator grants it).
func (s *Service) CreatePanelKey(ctx context.Context, a *core.Actor, label, channel string, scopes *[]string) (CreatedKey, error) {
	// A key made in the panel is named: the activity history and the key list show
	// it by that name.
	if strings.TrimSpace(label) == "" {
		return CreatedKey{}, core.Invalid("label")
	}
	if scopes == nil {
		return s.CreateKey(ctx, a, NewKey{Kind: KindServer, ChannelCode: channel, Label: label})
	}
	return s.CreateKey(ctx, a, NewKey{Kind: KindAPI, Scopes: *scopes, Label: label})
}

// RevokeKeyByID revokes a key from the panel: 404 not_found when there is no such
// key or it is revoked already.
func (s *Service) RevokeKeyByID(ctx context.Context, a *core.Actor, publicID string) error {
	err := s.RevokeKey(ctx, a, publicID)
	if errors.Is(err, store.ErrNotFound) {
		return core.ErrNotFound
	}
	return err
}

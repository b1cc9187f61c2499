package channels

import (
	"context"
	"errors"
	"strings"

	"reviewd/app/core"
	"reviewd/store"
)

// NewKey is the input of CreateKey (POST /admin/v1/channels with kind api_key).
type NewKey struct {
	Label   string
	Channel string
	// Scopes nil: a server key of Channel (orders and ssr). Set (even empty): an
	// admin API key with those permissions.
	Scopes []string
}

// CreatedKey is a key as shown this once.
type CreatedKey struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Key     string   `json:"key"`
	Scopes  []string `json:"scopes"`
	Channel *string  `json:"channel"`
	Label   string   `json:"label"`
}

// Key secrets: the prefix of the kind plus 43 base64url characters (the form the
// kernel's key lookup accepts).
const (
	serverKeyPrefix = "rvd_srv_"
	apiKeyPrefix    = "rvd_api_"
)

// apiScopes are the permissions an admin API key may carry.
var apiScopes = []string{core.PermRead, core.PermModerate, core.PermExport, core.PermWrite}

// CreateKey makes a key from a brand's panel (spec 3, Authentication rule 1):
// without scopes a server key of a channel with orders and ssr, with scopes an
// admin API key with those permissions. Errors: invalid / label, channel_required,
// channel, scopes_required, unknown_scope: <p>, scope_reserved: write (write is
// granted only by the operator).
func (s *Service) CreateKey(ctx context.Context, a *core.Actor, in NewKey) (CreatedKey, error) {
	label := strings.TrimSpace(in.Label)
	if label == "" || len(label) > 120 {
		return CreatedKey{}, core.Invalid("label")
	}
	k := store.Key{Label: label, PublicID: "key_" + randomHex(8)}
	out := CreatedKey{Label: label, Scopes: []string{}}
	var prefix string
	if in.Scopes == nil {
		code := strings.TrimSpace(in.Channel)
		if code == "" {
			return CreatedKey{}, core.Invalid("channel_required")
		}
		ch, err := s.DB.Read().ChannelByCode(ctx, code)
		if errors.Is(err, store.ErrNotFound) {
			return CreatedKey{}, core.Invalid("channel")
		} else if err != nil {
			return CreatedKey{}, err
		}
		k.Kind, k.ChannelID, k.Scopes = "server", ch.ID, core.PermOrders+","+core.PermSSR
		out.Channel, out.Scopes = &ch.Code, []string{core.PermOrders, core.PermSSR}
		prefix = serverKeyPrefix
	} else {
		seen := map[string]bool{}
		for _, p := range in.Scopes {
			p = strings.TrimSpace(p)
			if p == "" || seen[p] {
				continue
			}
			known := false
			for _, k := range apiScopes {
				known = known || k == p
			}
			if !known {
				return CreatedKey{}, core.Invalidf("unknown_scope", p)
			}
			if p == core.PermWrite {
				return CreatedKey{}, core.Invalidf("scope_reserved", core.PermWrite)
			}
			seen[p] = true
			out.Scopes = append(out.Scopes, p)
		}
		if len(out.Scopes) == 0 {
			return CreatedKey{}, core.Invalid("scopes_required")
		}
		k.Kind, k.Scopes = "api", strings.Join(out.Scopes, ",")
		prefix = apiKeyPrefix
	}
	secret := prefix + core.RandomToken(32)
	k.Hash = core.HashToken(secret)
	k.Hint = secret[len(secret)-4:]
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if k, err = tx.CreateKey(ctx, k); err != nil {
			return err
		}
		channel := ""
		if out.Channel != nil {
			channel = *out.Channel
		}
		return s.record(ctx, tx, a, "key.created", "key", k.PublicID, map[string]any{"kind": k.Kind, "scopes": k.Scopes, "channel": channel})
	})
	if err != nil {
		return CreatedKey{}, err
	}
	out.ID, out.Kind, out.Key = k.PublicID, k.Kind, secret
	return out, nil
}

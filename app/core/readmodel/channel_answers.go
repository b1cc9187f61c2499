package readmodel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"reviewd/app/core/brand"
	"reviewd/store"
)

// What the channel-wide answers (package storereviews) read of the read model.

// ChannelSettings returns the brand settings of channel ch's answers in lang, from
// the channel configuration cache of read generation gen.
func (c *Service) ChannelSettings(ctx context.Context, ch store.Channel, lang string, gen int64) (brand.Settings, error) {
	cfg, err := c.channelConfig(ctx, ch, lang, gen)
	if err != nil {
		return brand.Settings{}, err
	}
	return cfg.st, nil
}

// HashedAnswer encodes an answer; its ETag is a hash of the body. NotModified when
// held reports the caller holds it.
func HashedAnswer(v any, held func(string) bool) (Answer, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return Answer{}, err
	}
	body = append(body, '\n')
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	if held != nil && held(etag) {
		return Answer{ETag: etag, ETagHeader: []string{etag}, NotModified: true}, nil
	}
	return newCachedAnswer(body, etag).answer(), nil
}

// RenderTemplate renders the server-side template kind (assets ssr/*.html) with view v.
func RenderTemplate(kind string, v any) (string, error) {
	var b bytes.Buffer
	if err := ssrTemplates.ExecuteTemplate(&b, kind, v); err != nil {
		return "", fmt.Errorf("core: render %s: %w", kind, err)
	}
	return b.String(), nil
}

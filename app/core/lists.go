package core

import (
	"context"
	"errors"
	"strings"
	"time"

	"reviewd/store"
)

// ListQuery is the shared list contract of the admin list endpoints (CONTRACT.md):
// page from 1, page size up to MaxPageSize, q, sort.
type ListQuery struct {
	Page     int
	PageSize int
	Q        string
	Sort     string // newest (default) or oldest
}

// MaxPageSize is the largest page of an admin list.
const MaxPageSize = 200

// Offset is the number of rows before the page.
func (l ListQuery) Offset() int { return (l.Page - 1) * l.PageSize }

// PageCount is the number of pages of size that total items fill.
func PageCount(total, size int) int {
	if total <= 0 || size <= 0 {
		return 0
	}
	return (total + size - 1) / size
}

// ChannelFilter resolves the channel filter of a list: the channel with code (the
// zero channel for no code), which must be in market when market is set. Errors:
// 400 invalid / channel for an unknown code, invalid / channel_market_mismatch; a
// database error stays an error (500).
func ChannelFilter(ctx context.Context, q *store.Q, code, market string) (store.Channel, error) {
	if code == "" {
		return store.Channel{}, nil
	}
	ch, err := q.ChannelByCode(ctx, code)
	if errors.Is(err, store.ErrNotFound) {
		return store.Channel{}, Invalid("channel")
	}
	if err != nil {
		return store.Channel{}, err
	}
	if market != "" && market != ch.Market {
		return store.Channel{}, Invalid("channel_market_mismatch")
	}
	return ch, nil
}

// MaxProductKey is the longest product key (variant or group) a request may name.
const MaxProductKey = 128

// ProductScope reads variant (the default) or group.
func ProductScope(s string) (string, error) {
	switch strings.TrimSpace(s) {
	case "", "variant":
		return "variant", nil
	case "group":
		return "group", nil
	}
	return "", Invalid("scope")
}

// OptTime is t, or nil for the zero time (an absent JSON time).
func OptTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// ChannelCodes maps channel ids to codes.
func ChannelCodes(ctx context.Context, q *store.Q) (map[int64]string, error) {
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return nil, err
	}
	m := map[int64]string{}
	for _, ch := range chans {
		m[ch.ID] = ch.Code
	}
	return m, nil
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Key is a server, site or admin API key; only its hash is stored.
type Key struct {
	ID         int64
	PublicID   string
	Kind       string
	ChannelID  int64
	Scopes     string
	Label      string
	Hash       []byte
	Hint       string
	CreatedAt  time.Time
	RevokedAt  time.Time
	LastUsedAt time.Time
	// SiteKey is the secret of a site key (public by nature); empty for other kinds.
	SiteKey string
}

const (
	qKeyCols   = `id, public_id, kind, channel_id, scopes, label, key_hash, hint, created_at, revoked_at, last_used_at, site_key`
	qKeyInsert = `INSERT INTO api_keys (public_id, kind, channel_id, scopes, label, key_hash, hint, created_at, site_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

func scanKey(sc interface{ Scan(...any) error }) (Key, error) {
	var k Key
	var ch, rev, used sql.NullInt64
	var created int64
	err := sc.Scan(&k.ID, &k.PublicID, &k.Kind, &ch, &k.Scopes, &k.Label, &k.Hash, &k.Hint, &created, &rev, &used, &k.SiteKey)
	k.ChannelID = idOf(ch)
	k.CreatedAt = Time(created)
	k.RevokedAt = NullTime(rev)
	k.LastUsedAt = NullTime(used)
	return k, translate(err)
}

// CreateKey stores a new key.
func (q *Tx) CreateKey(ctx context.Context, k Key) (Key, error) {
	res, err := q.c.ExecContext(ctx, qKeyInsert, k.PublicID, k.Kind, nullID(k.ChannelID), k.Scopes, k.Label, k.Hash, k.Hint, Ms(q.Now), k.SiteKey)
	if err != nil {
		return k, fmt.Errorf("store: create key: %w", translate(err))
	}
	k.ID, _ = res.LastInsertId()
	k.CreatedAt = q.Now
	return k, nil
}

// KeyByHash finds a key by the hash of its secret.
func (q *Q) KeyByHash(ctx context.Context, hash []byte) (Key, error) {
	return scanKey(q.c.QueryRowContext(ctx, `SELECT `+qKeyCols+` FROM api_keys WHERE key_hash = ?`, hash))
}

// KeyByPublicID finds a key by its public id.
func (q *Q) KeyByPublicID(ctx context.Context, id string) (Key, error) {
	return scanKey(q.c.QueryRowContext(ctx, `SELECT `+qKeyCols+` FROM api_keys WHERE public_id = ?`, id))
}

// ListKeys lists keys, newest first.
func (q *Q) ListKeys(ctx context.Context) ([]Key, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qKeyCols+` FROM api_keys ORDER BY id DESC`)
	return collect(rows, err, scanKey)
}

// ChannelHasSiteKey reports whether a channel has a site key in use.
func (q *Q) ChannelHasSiteKey(ctx context.Context, channelID int64) (bool, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE kind = 'site' AND channel_id = ? AND revoked_at IS NULL`, channelID).Scan(&n)
	return n > 0, translate(err)
}

// NoteKeyUse records that a key authenticated at at, in a statement of its own
// (outside any transaction, and without reading the clock); an earlier time never
// replaces a later one. It does not move the read generation.
func (db *DB) NoteKeyUse(ctx context.Context, publicID string, at time.Time) error {
	_, err := db.write.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE public_id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
		Ms(at), publicID, Ms(at))
	return translate(err)
}

// RevokeKey revokes a key; ErrNotFound when it does not exist or is revoked already.
func (q *Tx) RevokeKey(ctx context.Context, publicID string) error {
	res, err := q.c.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE public_id = ? AND revoked_at IS NULL`, Ms(q.Now), publicID)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// Setting reads one settings key into v; ErrNotFound when unset.
func (q *Q) Setting(ctx context.Context, key string, v any) error {
	var raw string
	if err := q.c.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&raw); err != nil {
		return translate(err)
	}
	return json.Unmarshal([]byte(raw), v)
}

// SetSetting writes one settings key.
func (q *Tx) SetSetting(ctx context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: set setting %s: %w", key, err)
	}
	_, err = q.c.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, key, string(b), Ms(q.Now))
	return translate(err)
}

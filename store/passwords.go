package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Password is a signing, mail-event or notification password, encrypted at rest.
type Password struct {
	ID        string
	Purpose   string
	ChannelID int64
	SecretEnc []byte
	Label     string
	CreatedAt time.Time
	RevokedAt time.Time
}

const qPasswordCols = `id, purpose, channel_id, secret_enc, label, created_at, revoked_at`

func scanPassword(sc interface{ Scan(...any) error }) (Password, error) {
	var p Password
	var ch, rev sql.NullInt64
	var created int64
	err := sc.Scan(&p.ID, &p.Purpose, &ch, &p.SecretEnc, &p.Label, &created, &rev)
	p.ChannelID = idOf(ch)
	p.CreatedAt = Time(created)
	p.RevokedAt = NullTime(rev)
	return p, translate(err)
}

// CreatePassword stores a new password.
func (q *Tx) CreatePassword(ctx context.Context, p Password) (Password, error) {
	_, err := q.c.ExecContext(ctx, `INSERT INTO passwords (id, purpose, channel_id, secret_enc, label, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		p.ID, p.Purpose, nullID(p.ChannelID), p.SecretEnc, p.Label, Ms(q.Now))
	if err != nil {
		return p, fmt.Errorf("store: create password: %w", translate(err))
	}
	p.CreatedAt = q.Now
	return p, nil
}

// PasswordByID finds a password by its id.
func (q *Q) PasswordByID(ctx context.Context, id string) (Password, error) {
	return scanPassword(q.c.QueryRowContext(ctx, `SELECT `+qPasswordCols+` FROM passwords WHERE id = ?`, id))
}

// ActivePassword is the newest unrevoked password of a purpose (for notification and
// mail-event passwords, of which one is in use at a time).
func (q *Q) ActivePassword(ctx context.Context, purpose string) (Password, error) {
	return scanPassword(q.c.QueryRowContext(ctx, `SELECT `+qPasswordCols+` FROM passwords
		WHERE purpose = ? AND revoked_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT 1`, purpose))
}

// RevokePasswords revokes every active password of a purpose (a new notification
// password replaces the old one).
func (q *Tx) RevokePasswords(ctx context.Context, purpose string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE passwords SET revoked_at = ? WHERE purpose = ? AND revoked_at IS NULL`, Ms(q.Now), purpose)
	return translate(err)
}

// ListPasswords lists the passwords of the given purposes, newest first, revoked
// ones included (they carry RevokedAt).
func (q *Q) ListPasswords(ctx context.Context, purposes ...string) ([]Password, error) {
	if len(purposes) == 0 {
		return nil, nil
	}
	args := make([]any, len(purposes))
	marks := make([]string, len(purposes))
	for i, p := range purposes {
		args[i], marks[i] = p, "?"
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qPasswordCols+` FROM passwords
		WHERE purpose IN (`+strings.Join(marks, ", ")+`) ORDER BY created_at DESC, rowid DESC`, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []Password
	for rows.Next() {
		p, err := scanPassword(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, translate(rows.Err())
}

// RevokePassword revokes one active password; ErrNotFound when there is no such
// active password.
func (q *Tx) RevokePassword(ctx context.Context, id string) error {
	res, err := q.c.ExecContext(ctx, `UPDATE passwords SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, Ms(q.Now), id)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

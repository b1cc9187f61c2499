package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// User is a panel user.
type User struct {
	ID           int64
	Username     string
	Email        string
	Role         string
	PasswordHash string
	TOTPEnc      []byte
	TOTPOn       bool
	TOTPLastStep int64
	CreatedAt    time.Time
	DisabledAt   time.Time
}

// Session is a panel session; Stage "password" waits for the second step.
type Session struct {
	ID        int64
	UserID    int64
	Stage     string
	CSRF      string
	CreatedAt time.Time
	ExpiresAt time.Time
}

const qUserCols = `id, username, email, role, password_hash, totp_enc, totp_on, totp_last_step, created_at, disabled_at`

func scanUser(sc interface{ Scan(...any) error }) (User, error) {
	var u User
	var on int
	var created int64
	var disabled sql.NullInt64
	err := sc.Scan(&u.ID, &u.Username, &u.Email, &u.Role, &u.PasswordHash, &u.TOTPEnc, &on, &u.TOTPLastStep, &created, &disabled)
	u.TOTPOn = on == 1
	u.CreatedAt = Time(created)
	u.DisabledAt = NullTime(disabled)
	return u, translate(err)
}

// CreateUser inserts a panel user; ErrConflict when the username is taken.
func (q *Q) CreateUser(ctx context.Context, u User) (User, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO users (username, email, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?)`,
		u.Username, u.Email, u.Role, u.PasswordHash, Ms(q.Now))
	if err != nil {
		return u, fmt.Errorf("store: create user: %w", translate(err))
	}
	u.ID, _ = res.LastInsertId()
	u.CreatedAt = q.Now
	return u, nil
}

// UserByUsername finds a user by name.
func (q *Q) UserByUsername(ctx context.Context, name string) (User, error) {
	return scanUser(q.c.QueryRowContext(ctx, `SELECT `+qUserCols+` FROM users WHERE username = ?`, name))
}

// UserByID finds a user by id.
func (q *Q) UserByID(ctx context.Context, id int64) (User, error) {
	return scanUser(q.c.QueryRowContext(ctx, `SELECT `+qUserCols+` FROM users WHERE id = ?`, id))
}

// ListUsers lists users by name.
func (q *Q) ListUsers(ctx context.Context) ([]User, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qUserCols+` FROM users ORDER BY username`)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// SetUserTOTP stores the (encrypted) second-step secret and whether it is on.
func (q *Q) SetUserTOTP(ctx context.Context, id int64, enc []byte, on bool) error {
	_, err := q.c.ExecContext(ctx, `UPDATE users SET totp_enc = ?, totp_on = ?, totp_last_step = 0 WHERE id = ?`, enc, boolInt(on), id)
	return translate(err)
}

// UseTOTPStep records the last accepted passcode time step; it refuses (false) a step
// that is not newer, so a passcode works once.
func (q *Q) UseTOTPStep(ctx context.Context, id, step int64) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?`, step, id, step)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SetUserEmail changes a user's e-mail address.
func (q *Q) SetUserEmail(ctx context.Context, id int64, email string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE users SET email = ? WHERE id = ?`, email, id)
	return translate(err)
}

const qSessionCols = `id, user_id, stage, csrf_token, created_at, expires_at`

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var created, expires int64
	err := sc.Scan(&s.ID, &s.UserID, &s.Stage, &s.CSRF, &created, &expires)
	s.CreatedAt = Time(created)
	s.ExpiresAt = Time(expires)
	return s, translate(err)
}

// CreateSession stores a session under the hash of its token.
func (q *Q) CreateSession(ctx context.Context, hash []byte, s Session) (Session, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_id, stage, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
		hash, s.UserID, s.Stage, s.CSRF, Ms(q.Now), Ms(s.ExpiresAt))
	if err != nil {
		return s, fmt.Errorf("store: create session: %w", translate(err))
	}
	s.ID, _ = res.LastInsertId()
	s.CreatedAt = q.Now
	return s, nil
}

// SessionByHash finds a session by the hash of its token.
func (q *Q) SessionByHash(ctx context.Context, hash []byte) (Session, error) {
	return scanSession(q.c.QueryRowContext(ctx, `SELECT `+qSessionCols+` FROM sessions WHERE token_hash = ?`, hash))
}

// DeleteSession removes a session.
func (q *Q) DeleteSession(ctx context.Context, id int64) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	return translate(err)
}

// DeleteExpiredSessions removes sessions past their expiry.
func (q *Q) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < ?`, Ms(q.Now))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

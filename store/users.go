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
	LastSignIn   time.Time
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

const qUserCols = `id, username, email, role, password_hash, totp_enc, totp_on, totp_last_step, created_at, disabled_at, last_sign_in_at`

func scanUser(sc interface{ Scan(...any) error }) (User, error) {
	var u User
	var on int
	var created int64
	var disabled, signIn sql.NullInt64
	err := sc.Scan(&u.ID, &u.Username, &u.Email, &u.Role, &u.PasswordHash, &u.TOTPEnc, &on, &u.TOTPLastStep, &created, &disabled, &signIn)
	u.LastSignIn = NullTime(signIn)
	u.TOTPOn = on == 1
	u.CreatedAt = Time(created)
	u.DisabledAt = NullTime(disabled)
	return u, translate(err)
}

// CreateUser inserts a panel user; ErrConflict when the username is taken.
func (q *Tx) CreateUser(ctx context.Context, u User) (User, error) {
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
	return collect(rows, err, scanUser)
}

// SetUserTOTP stores the (encrypted) second-step secret and whether it is on.
func (q *Tx) SetUserTOTP(ctx context.Context, id int64, enc []byte, on bool) error {
	_, err := q.c.ExecContext(ctx, `UPDATE users SET totp_enc = ?, totp_on = ?, totp_last_step = 0 WHERE id = ?`, enc, boolInt(on), id)
	return translate(err)
}

// UseTOTPStep records the last accepted passcode time step; it refuses (false) a step
// that is not newer, so a passcode works once.
func (q *Tx) UseTOTPStep(ctx context.Context, id, step int64) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?`, step, id, step)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SetUserEmail changes a user's e-mail address.
func (q *Tx) SetUserEmail(ctx context.Context, id int64, email string) error {
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
func (q *Tx) CreateSession(ctx context.Context, hash []byte, s Session) (Session, error) {
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
func (q *Tx) DeleteSession(ctx context.Context, id int64) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	return translate(err)
}

// DeleteExpiredSessions removes sessions past their expiry.
func (q *Tx) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < ?`, Ms(q.Now))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// SetUserRole changes a user's role.
func (q *Tx) SetUserRole(ctx context.Context, id int64, role string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE users SET role = ? WHERE id = ?`, role, id)
	return translate(err)
}

// SetUserPassword replaces a user's password hash.
func (q *Tx) SetUserPassword(ctx context.Context, id int64, hash string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, id)
	return translate(err)
}

// SetUserSignedIn records the time of a user's completed sign-in.
func (q *Tx) SetUserSignedIn(ctx context.Context, id int64) error {
	_, err := q.c.ExecContext(ctx, `UPDATE users SET last_sign_in_at = ? WHERE id = ?`, Ms(q.Now), id)
	return translate(err)
}

// DeleteUser removes a user with its sessions and password links; ErrNotFound when
// there is none.
func (q *Tx) DeleteUser(ctx context.Context, id int64) error {
	res, err := q.c.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, id)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// CountOwners counts the users with the owner role.
func (q *Q) CountOwners(ctx context.Context) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE role = 'owner'`).Scan(&n)
	return n, translate(err)
}

// UsersByEmail finds the users with an e-mail address (compared without letter
// case).
func (q *Q) UsersByEmail(ctx context.Context, email string) ([]User, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qUserCols+` FROM users WHERE lower(email) = lower(?) ORDER BY id`, email)
	return collect(rows, err, scanUser)
}

// DeleteUserSessions signs a user out everywhere.
func (q *Tx) DeleteUserSessions(ctx context.Context, userID int64) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
	return translate(err)
}

// DeleteOtherSessions ends every session of a user but keep.
func (q *Tx) DeleteOtherSessions(ctx context.Context, userID, keep int64) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND id <> ?`, userID, keep)
	return translate(err)
}

// PasswordLink is a set-password link; only the hash of its token is stored.
type PasswordLink struct {
	ID        int64
	UserID    int64
	Purpose   string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    time.Time
}

// CreatePasswordLink stores a link under the hash of its token.
func (q *Tx) CreatePasswordLink(ctx context.Context, hash []byte, l PasswordLink) (PasswordLink, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO password_links (token_hash, user_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		hash, l.UserID, l.Purpose, Ms(q.Now), Ms(l.ExpiresAt))
	if err != nil {
		return l, fmt.Errorf("store: create password link: %w", translate(err))
	}
	l.ID, _ = res.LastInsertId()
	l.CreatedAt = q.Now
	return l, nil
}

// PasswordLinkByHash finds a link by the hash of its token.
func (q *Q) PasswordLinkByHash(ctx context.Context, hash []byte) (PasswordLink, error) {
	var l PasswordLink
	var created, expires int64
	var used sql.NullInt64
	err := q.c.QueryRowContext(ctx, `SELECT id, user_id, purpose, created_at, expires_at, used_at FROM password_links WHERE token_hash = ?`, hash).
		Scan(&l.ID, &l.UserID, &l.Purpose, &created, &expires, &used)
	l.CreatedAt, l.ExpiresAt, l.UsedAt = Time(created), Time(expires), NullTime(used)
	return l, translate(err)
}

// CountPasswordLinks counts the links of purpose made for userID since since.
func (q *Q) CountPasswordLinks(ctx context.Context, userID int64, purpose string, since time.Time) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM password_links WHERE user_id = ? AND purpose = ? AND created_at >= ?`,
		userID, purpose, Ms(since)).Scan(&n)
	return n, translate(err)
}

// DeleteSpentPasswordLinks deletes the links that were used or have expired.
func (q *Tx) DeleteSpentPasswordLinks(ctx context.Context) (int64, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM password_links WHERE used_at IS NOT NULL OR expires_at <= ?`, Ms(q.Now))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// UsePasswordLinks marks every open link of a user used (a password was set).
func (q *Tx) UsePasswordLinks(ctx context.Context, userID int64) error {
	_, err := q.c.ExecContext(ctx, `UPDATE password_links SET used_at = ? WHERE user_id = ? AND used_at IS NULL`, Ms(q.Now), userID)
	return translate(err)
}

// BrandState is the brand's state: active, frozen or closed.
func (q *Q) BrandState(ctx context.Context) (string, error) {
	var s string
	err := q.c.QueryRowContext(ctx, `SELECT state FROM brand_state WHERE id = 1`).Scan(&s)
	if err == sql.ErrNoRows {
		return "active", nil
	}
	return s, translate(err)
}

// SetBrandState sets the brand's state.
func (q *Tx) SetBrandState(ctx context.Context, state string) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO brand_state (id, state, changed_at) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at`, state, Ms(q.Now))
	return translate(err)
}

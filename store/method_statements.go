package store

import (
	"context"
	"database/sql"
	"time"
)

// MethodStatement is the stored part of a channel's method statement in one
// language: an own page address and the last confirmation. A channel and language
// without a row uses the hosted page and is not confirmed.
type MethodStatement struct {
	ChannelID            int64
	Language             string
	ExternalURL          string
	ConfirmedFingerprint string
	ConfirmedAt          time.Time
	ConfirmedBy          string
	UpdatedAt            time.Time
}

const qStatementCols = `channel_id, language, external_url, confirmed_fingerprint, confirmed_at, confirmed_by, updated_at`

func scanStatement(sc scanner) (MethodStatement, error) {
	var m MethodStatement
	var confirmed sql.NullInt64
	var updated int64
	err := sc.Scan(&m.ChannelID, &m.Language, &m.ExternalURL, &m.ConfirmedFingerprint, &confirmed, &m.ConfirmedBy, &updated)
	m.ConfirmedAt, m.UpdatedAt = NullTime(confirmed), Time(updated)
	return m, translate(err)
}

// MethodStatementOf finds the stored statement of a channel in a language;
// ErrNotFound when there is none.
func (q *Q) MethodStatementOf(ctx context.Context, channelID int64, lang string) (MethodStatement, error) {
	return scanStatement(q.c.QueryRowContext(ctx, `SELECT `+qStatementCols+` FROM method_statements
		WHERE channel_id = ? AND language = ?`, channelID, lang))
}

// ListMethodStatements lists every stored statement.
func (q *Q) ListMethodStatements(ctx context.Context) ([]MethodStatement, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qStatementCols+` FROM method_statements ORDER BY channel_id, language`)
	return collect(rows, err, scanStatement)
}

// SetMethodStatementURL stores the own page address of a channel's statement in a
// language ("" returns to the hosted page).
func (q *Tx) SetMethodStatementURL(ctx context.Context, channelID int64, lang, externalURL string) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO method_statements (channel_id, language, external_url, updated_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (channel_id, language) DO UPDATE SET external_url = excluded.external_url,
		updated_at = excluded.updated_at`, channelID, lang, externalURL, Ms(q.Now))
	return translate(err)
}

// ConfirmMethodStatement records that by confirmed the statement text with
// fingerprint at q.Now.
func (q *Tx) ConfirmMethodStatement(ctx context.Context, channelID int64, lang, fingerprint, by string) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO method_statements (channel_id, language, confirmed_fingerprint, confirmed_at,
		confirmed_by, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (channel_id, language) DO UPDATE SET
		confirmed_fingerprint = excluded.confirmed_fingerprint, confirmed_at = excluded.confirmed_at,
		confirmed_by = excluded.confirmed_by, updated_at = excluded.updated_at`,
		channelID, lang, fingerprint, Ms(q.Now), by, Ms(q.Now))
	return translate(err)
}

// CountReviewsByOrigin counts the published reviews of a market with the given
// origin (own or imported).
func (q *Q) CountReviewsByOrigin(ctx context.Context, market, origin string) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM reviews WHERE market = ? AND origin = ? AND state = 'published'`,
		market, origin).Scan(&n)
	return n, translate(err)
}

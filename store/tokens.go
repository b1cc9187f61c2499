package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Token is a review-link token (invitation, experience, correction or order check).
// Only the SHA-256 of the plain token is stored.
type Token struct {
	ID        int64
	Hash      []byte
	Kind      string
	OrderID   int64
	ChannelID int64
	Market    string
	ReviewID  int64 // 0 when none (set for correction tokens)
	ExpiresAt time.Time
	SpentAt   time.Time
	CreatedAt time.Time
}

const (
	qTokenCols   = `id, token_hash, kind, order_id, channel_id, market, review_id, expires_at, spent_at, created_at`
	qTokenInsert = `INSERT INTO tokens (token_hash, kind, order_id, channel_id, market, review_id, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	qTokenLineInsert = `INSERT OR IGNORE INTO token_lines (token_id, line_id) VALUES (?, ?)`
)

func scanToken(sc scanner) (Token, error) {
	var t Token
	var review, spent sql.NullInt64
	var expires, created int64
	err := sc.Scan(&t.ID, &t.Hash, &t.Kind, &t.OrderID, &t.ChannelID, &t.Market, &review, &expires, &spent, &created)
	t.ReviewID = idOf(review)
	t.ExpiresAt, t.CreatedAt = Time(expires), Time(created)
	t.SpentAt = NullTime(spent)
	return t, translate(err)
}

// CreateToken stores a token and the lines it covers; it returns the token with ID
// and CreatedAt set.
func (q *Tx) CreateToken(ctx context.Context, t Token, lineIDs []int64) (Token, error) {
	res, err := q.c.ExecContext(ctx, qTokenInsert, t.Hash, t.Kind, t.OrderID, t.ChannelID, t.Market, nullID(t.ReviewID),
		Ms(t.ExpiresAt), Ms(q.Now))
	if err != nil {
		return t, fmt.Errorf("store: create token: %w", translate(err))
	}
	t.ID, _ = res.LastInsertId()
	t.CreatedAt = q.Now
	if err := q.AddTokenLines(ctx, t.ID, lineIDs); err != nil {
		return t, err
	}
	return t, nil
}

// AddTokenLines adds lines to a token (lines it covers already are skipped).
func (q *Tx) AddTokenLines(ctx context.Context, tokenID int64, lineIDs []int64) error {
	for _, l := range lineIDs {
		if _, err := q.c.ExecContext(ctx, qTokenLineInsert, tokenID, l); err != nil {
			return fmt.Errorf("store: add token line: %w", translate(err))
		}
	}
	return nil
}

// TokenByHash finds a token by the hash of its plain value.
func (q *Q) TokenByHash(ctx context.Context, hash []byte) (Token, error) {
	return scanToken(q.c.QueryRowContext(ctx, `SELECT `+qTokenCols+` FROM tokens WHERE token_hash = ?`, hash))
}

// TokenByID finds a token by id.
func (q *Q) TokenByID(ctx context.Context, id int64) (Token, error) {
	return scanToken(q.c.QueryRowContext(ctx, `SELECT `+qTokenCols+` FROM tokens WHERE id = ?`, id))
}

// TokenLineIDs lists the ids of the lines a token covers, in line order.
func (q *Q) TokenLineIDs(ctx context.Context, tokenID int64) ([]int64, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT line_id FROM token_lines WHERE token_id = ? ORDER BY line_id`, tokenID)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, translate(rows.Err())
}

// TokenLines lists the order lines a token covers, in line order.
func (q *Q) TokenLines(ctx context.Context, tokenID int64) ([]OrderLine, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qLineColsL+` FROM token_lines tl JOIN order_lines l ON l.id = tl.line_id
		WHERE tl.token_id = ? ORDER BY l.id`, tokenID)
	return collect(rows, err, scanLine)
}

// qLineColsL is qLineCols qualified with the alias l.
const qLineColsL = `l.id, l.order_id, l.line_reference, l.variant_key, l.group_key, l.catalog_id, l.title, l.quantity,
	l.fulfilment_state, l.delivered_at, l.state_changed_at, l.created_at, l.updated_at, l.incentive`

// SpendToken marks a token spent at q.Now; it reports false when it was spent
// already.
func (q *Tx) SpendToken(ctx context.Context, id int64) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE tokens SET spent_at = ? WHERE id = ? AND spent_at IS NULL`, Ms(q.Now), id)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

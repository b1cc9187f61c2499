package store

import (
	"context"
	"fmt"
	"time"
)

// Term is one of the brand's regular expressions for the automatic checks.
type Term struct {
	ID        int64
	Pattern   string
	Label     string
	CreatedAt time.Time
}

func scanTerm(sc scanner) (Term, error) {
	var t Term
	var created int64
	err := sc.Scan(&t.ID, &t.Pattern, &t.Label, &created)
	t.CreatedAt = Time(created)
	return t, translate(err)
}

// Terms lists the brand's regular expressions, oldest first.
func (q *Q) Terms(ctx context.Context) ([]Term, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT id, pattern, label, created_at FROM review_terms ORDER BY id`)
	return collect(rows, err, scanTerm)
}

// CountTerms counts the brand's regular expressions.
func (q *Q) CountTerms(ctx context.Context) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM review_terms`).Scan(&n)
	return n, translate(err)
}

// CreateTerm stores a regular expression; it returns it with ID and CreatedAt set.
func (q *Tx) CreateTerm(ctx context.Context, t Term) (Term, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO review_terms (pattern, label, created_at) VALUES (?, ?, ?)`,
		t.Pattern, t.Label, Ms(q.Now))
	if err != nil {
		return t, fmt.Errorf("store: create term: %w", translate(err))
	}
	t.ID, _ = res.LastInsertId()
	t.CreatedAt = q.Now
	return t, nil
}

// DeleteTerm removes a regular expression; ErrNotFound when there is none with id.
func (q *Tx) DeleteTerm(ctx context.Context, id int64) error {
	res, err := q.c.ExecContext(ctx, `DELETE FROM review_terms WHERE id = ?`, id)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

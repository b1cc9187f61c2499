package store

import (
	"context"
	"fmt"
	"strings"
)

// SeedReview is one synthetic review of SeedReviews.
type SeedReview struct {
	VariantKey, GroupKey string
	Rating               int
	Title, Body          string
}

// SeedReviews fills the database with n synthetic published own reviews of one
// channel (each with its own order and delivered line, so they carry proof of
// purchase), review i (1..n) described by gen(i) and published i seconds before
// the clock. Orders come from SeedOrders (numbered prefix1..prefixN); reviews are
// written with multi-row statements in large transactions. It exists for load
// measurements, never for real data; the product figures are built afterwards
// (core.RebuildProductStats).
func (db *DB) SeedReviews(ctx context.Context, channelID int64, n int, prefix string, gen func(i int) SeedReview) error {
	var before int64
	if err := db.write.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM order_lines`).Scan(&before); err != nil {
		return translate(err)
	}
	if err := db.SeedOrders(ctx, channelID, n, 1, prefix); err != nil {
		return err
	}
	var market, lang string
	if err := db.write.QueryRowContext(ctx, `SELECT market, language FROM channels WHERE id = ?`, channelID).Scan(&market, &lang); err != nil {
		return translate(err)
	}
	now := Ms(db.Now())
	const cols, perStmt, perTx = 18, 500, 50000
	for start := 1; start <= n; start += perTx {
		end := min(start+perTx-1, n)
		err := db.WithTx(ctx, func(tx *Tx) error {
			rows, err := tx.c.QueryContext(ctx, `SELECT id, order_id FROM order_lines WHERE id > ? ORDER BY id LIMIT ? OFFSET ?`,
				before, end-start+1, start-1)
			if err != nil {
				return translate(err)
			}
			type ln struct{ id, order int64 }
			var lines []ln
			for rows.Next() {
				var l ln
				if err := rows.Scan(&l.id, &l.order); err != nil {
					rows.Close()
					return err
				}
				lines = append(lines, l)
			}
			rows.Close()
			for off := 0; off < len(lines); off += perStmt {
				part := lines[off:min(off+perStmt, len(lines))]
				args := make([]any, 0, len(part)*cols)
				for j, l := range part {
					i := start + off + j
					s := gen(i)
					at := now - int64(i)*1000
					args = append(args, seedPublicID(i), channelID, market, lang, l.order, l.id, s.VariantKey, s.GroupKey,
						"Product "+s.VariantKey, s.Rating, s.Title, s.Body, "Customer "+fmt.Sprint(i%997), "tokenized_invite",
						at, at, at, at)
				}
				_, err := tx.c.ExecContext(ctx, `INSERT INTO reviews (public_id, channel_id, market, language, order_id,
					line_id, variant_key, group_key, product_name, rating, title, body, author_name, verification_method,
					published_at, submitted_at, created_at, updated_at, experience, origin, state) VALUES `+
					strings.Replace(valuesList(len(part), cols), "?)", "?, 'product', 'own', 'published')", -1), args...)
				if err != nil {
					return fmt.Errorf("store: seed reviews: %w", translate(err))
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// seedPublicID is a review public id (r_ + 20 base32 characters) made from i.
func seedPublicID(i int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	b := []byte("r_seedaaaaaaaaaaaaaaaa")
	for p := len(b) - 1; i > 0 && p >= 6; p-- {
		b[p] = alphabet[i%32]
		i /= 32
	}
	return string(b)
}

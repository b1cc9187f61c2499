package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The transparency log (docs/transparency.md): entries, the stored Merkle hashes,
// per-review salts, signed checkpoints and the log's name. The rules (what is
// logged, hashing, signing) live in app/core/transparency.

// TransparencyEntry is one entry of the transparency log. Data is the record as it
// was hashed into the tree and is served; the other fields are its columns, kept
// for the report and the receipts.
type TransparencyEntry struct {
	Index       int64
	ReviewHash  string
	ProductHash string
	Rating      int
	Event       string
	Reason      string
	Actor       string
	At          time.Time
	Data        []byte
}

// TransparencyCheckpoint is one signed tree head.
type TransparencyCheckpoint struct {
	Size int64
	Root []byte
	Note []byte
	At   time.Time
}

// TransparencyCount is one row of the report: how many entries of the window have
// this event, reason and rating.
type TransparencyCount struct {
	Event  string
	Reason string
	Rating int
	Count  int64
}

const qTransparencyEntryCols = `idx, review_hash, product_hash, rating, event, reason, actor, at, data`

func scanTransparencyEntry(sc scanner) (TransparencyEntry, error) {
	var e TransparencyEntry
	var at int64
	err := sc.Scan(&e.Index, &e.ReviewHash, &e.ProductHash, &e.Rating, &e.Event, &e.Reason, &e.Actor, &at, &e.Data)
	e.At = Time(at)
	return e, translate(err)
}

// TransparencySize is the number of entries in the log.
func (q *Q) TransparencySize(ctx context.Context) (int64, error) {
	var n int64
	err := q.c.QueryRowContext(ctx, `SELECT coalesce(max(idx) + 1, 0) FROM transparency_entries`).Scan(&n)
	return n, translate(err)
}

// TransparencyHashes reads the stored hashes at the given indexes, in their order;
// a missing one is an error.
func (q *Q) TransparencyHashes(ctx context.Context, indexes []int64) ([][]byte, error) {
	type row struct {
		id   int64
		hash []byte
	}
	rows, err := collectIn(ctx, q, `SELECT id, hash FROM transparency_hashes WHERE id IN `, indexes, ``,
		func(sc scanner) (row, error) {
			var r row
			err := sc.Scan(&r.id, &r.hash)
			return r, translate(err)
		})
	if err != nil {
		return nil, err
	}
	byID := make(map[int64][]byte, len(rows))
	for _, r := range rows {
		byID[r.id] = r.hash
	}
	out := make([][]byte, len(indexes))
	for i, id := range indexes {
		h, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("store: transparency hash %d: %w", id, ErrNotFound)
		}
		out[i] = h
	}
	return out, nil
}

// AddTransparencyEntry appends e at e.Index. Its stored hashes come later
// (AddTransparencyHashes), from the checkpoint signer.
func (q *Tx) AddTransparencyEntry(ctx context.Context, e TransparencyEntry) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO transparency_entries (`+qTransparencyEntryCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.Index, e.ReviewHash, e.ProductHash, e.Rating, e.Event, e.Reason, e.Actor,
		Ms(e.At), e.Data)
	if err != nil {
		return fmt.Errorf("store: add transparency entry: %w", translate(err))
	}
	return nil
}

// TransparencyHashCount is the number of stored hashes (tlog.StoredHashCount of
// the entries hashed so far).
func (q *Q) TransparencyHashCount(ctx context.Context) (int64, error) {
	var n int64
	err := q.c.QueryRowContext(ctx, `SELECT coalesce(max(id) + 1, 0) FROM transparency_hashes`).Scan(&n)
	return n, translate(err)
}

// AddTransparencyHashes stores the hashes one record adds (tlog.StoredHashes), the
// first at index first.
func (q *Tx) AddTransparencyHashes(ctx context.Context, first int64, hashes [][]byte) error {
	for i, h := range hashes {
		if _, err := q.c.ExecContext(ctx, `INSERT INTO transparency_hashes (id, hash) VALUES (?, ?)`, first+int64(i), h); err != nil {
			return fmt.Errorf("store: add transparency hash: %w", translate(err))
		}
	}
	return nil
}

// TransparencyEntries lists the entries with start <= index < end, in order.
func (q *Q) TransparencyEntries(ctx context.Context, start, end int64) ([]TransparencyEntry, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qTransparencyEntryCols+` FROM transparency_entries
		WHERE idx >= ? AND idx < ? ORDER BY idx`, start, end)
	return collect(rows, err, scanTransparencyEntry)
}

// TransparencyEntriesOf lists the entries of one review hash, in order: those the
// checkpoint signer has keyed (AddTransparencyKeys) through its index, the few
// appended since by a scan.
func (q *Q) TransparencyEntriesOf(ctx context.Context, reviewHash string) ([]TransparencyEntry, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qTransparencyEntryCols+` FROM transparency_entries
		WHERE idx IN (SELECT idx FROM transparency_keys WHERE review_hash = ?1) AND review_hash = ?1
		UNION ALL
		SELECT `+qTransparencyEntryCols+` FROM transparency_entries
		WHERE idx >= (SELECT coalesce(max(idx) + 1, 0) FROM transparency_keys) AND review_hash = ?1
		ORDER BY 1`, reviewHash)
	return collect(rows, err, scanTransparencyEntry)
}

// AddTransparencyKeys keeps the lookup columns of entries (the checkpoint signer
// adds them with the entries' hashes).
func (q *Tx) AddTransparencyKeys(ctx context.Context, es []TransparencyEntry) error {
	for _, e := range es {
		if _, err := q.c.ExecContext(ctx, `INSERT OR REPLACE INTO transparency_keys (idx, review_hash, rating, event, reason, at)
			VALUES (?, ?, ?, ?, ?, ?)`, e.Index, e.ReviewHash, e.Rating, e.Event, e.Reason, Ms(e.At)); err != nil {
			return fmt.Errorf("store: add transparency keys: %w", translate(err))
		}
	}
	return nil
}

// TransparencyReport counts the entries with index below size and from <= at < to
// by event, reason and rating, from their keys (every entry below a signed
// checkpoint's size is keyed).
func (q *Q) TransparencyReport(ctx context.Context, size int64, from, to time.Time) ([]TransparencyCount, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT event, reason, rating, count(*) FROM transparency_keys
		WHERE idx < ? AND at >= ? AND at < ? GROUP BY event, reason, rating ORDER BY event, reason, rating`,
		size, Ms(from), Ms(to))
	return collect(rows, err, func(sc scanner) (TransparencyCount, error) {
		var c TransparencyCount
		err := sc.Scan(&c.Event, &c.Reason, &c.Rating, &c.Count)
		return c, translate(err)
	})
}

// TransparencySalt is the salt of a review's log entries: ErrNotFound when it has
// none yet, nil after an erasure.
func (q *Q) TransparencySalt(ctx context.Context, reviewID int64) ([]byte, error) {
	var salt []byte
	err := q.c.QueryRowContext(ctx, `SELECT salt FROM transparency_salts WHERE review_id = ?`, reviewID).Scan(&salt)
	return salt, translate(err)
}

// PutTransparencySalt keeps salt for a review that has no row yet; it returns the
// salt the review has afterwards (nil when it was erased).
func (q *Tx) PutTransparencySalt(ctx context.Context, reviewID int64, salt []byte) ([]byte, error) {
	if _, err := q.c.ExecContext(ctx, `INSERT INTO transparency_salts (review_id, salt) VALUES (?, ?)
		ON CONFLICT (review_id) DO NOTHING`, reviewID, salt); err != nil {
		return nil, fmt.Errorf("store: put transparency salt: %w", translate(err))
	}
	return q.TransparencySalt(ctx, reviewID)
}

// EraseTransparencySalt deletes a review's salt (an erasure), keeping the row as
// the mark that the review was erased: its entries stay but can no longer be tied
// to it.
func (q *Tx) EraseTransparencySalt(ctx context.Context, reviewID int64) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO transparency_salts (review_id, salt) VALUES (?, NULL)
		ON CONFLICT (review_id) DO UPDATE SET salt = NULL`, reviewID)
	return translate(err)
}

// LatestTransparencyCheckpoint is the checkpoint of the largest tree; ErrNotFound
// before the first.
func (q *Q) LatestTransparencyCheckpoint(ctx context.Context) (TransparencyCheckpoint, error) {
	var c TransparencyCheckpoint
	var at int64
	err := q.c.QueryRowContext(ctx, `SELECT size, root, note, at FROM transparency_checkpoints ORDER BY size DESC LIMIT 1`).
		Scan(&c.Size, &c.Root, &c.Note, &at)
	c.At = Time(at)
	return c, translate(err)
}

// AddTransparencyCheckpoint stores a signed checkpoint stamped q.Now.
func (q *Tx) AddTransparencyCheckpoint(ctx context.Context, c TransparencyCheckpoint) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO transparency_checkpoints (size, root, note, at) VALUES (?, ?, ?, ?)`,
		c.Size, c.Root, c.Note, Ms(q.Now))
	if err != nil {
		return fmt.Errorf("store: add transparency checkpoint: %w", translate(err))
	}
	return nil
}

// TransparencyOrigin is the log's name; "" before it was fixed.
func (q *Q) TransparencyOrigin(ctx context.Context) (string, error) {
	var o string
	err := q.c.QueryRowContext(ctx, `SELECT origin FROM transparency_log WHERE id = 1`).Scan(&o)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return o, translate(err)
}

// FixTransparencyOrigin sets the log's name unless it has one; it returns the name
// the log has afterwards.
func (q *Tx) FixTransparencyOrigin(ctx context.Context, origin string) (string, error) {
	if _, err := q.c.ExecContext(ctx, `INSERT INTO transparency_log (id, origin) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`,
		origin); err != nil {
		return "", fmt.Errorf("store: fix transparency origin: %w", translate(err))
	}
	return q.TransparencyOrigin(ctx)
}

// ReviewConfirmation is the outcome of one confirmation e-mail sent after
// POST /v1/reviews.
type ReviewConfirmation struct {
	ID        int64
	OrderID   int64
	Reviews   int
	Subject   string
	MessageID string
	Outcome   string
	At        time.Time
}

// AddReviewConfirmation records a confirmation e-mail's outcome (At is tx.Now).
func (tx *Tx) AddReviewConfirmation(ctx context.Context, c ReviewConfirmation) error {
	_, err := tx.c.ExecContext(ctx, `INSERT INTO review_confirmations (order_id, reviews, subject, message_id, outcome, at)
		VALUES (?, ?, ?, ?, ?, ?)`, c.OrderID, c.Reviews, c.Subject, c.MessageID, c.Outcome, Ms(tx.Now))
	if err != nil {
		return fmt.Errorf("store: add review confirmation: %w", translate(err))
	}
	return nil
}

// ReviewConfirmations lists the confirmation e-mails of an order, oldest first.
func (q *Q) ReviewConfirmations(ctx context.Context, orderID int64) ([]ReviewConfirmation, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT id, order_id, reviews, subject, message_id, outcome, at
		FROM review_confirmations WHERE order_id = ? ORDER BY id`, orderID)
	return collect(rows, err, func(sc scanner) (ReviewConfirmation, error) {
		var c ReviewConfirmation
		var at int64
		err := sc.Scan(&c.ID, &c.OrderID, &c.Reviews, &c.Subject, &c.MessageID, &c.Outcome, &at)
		c.At = Time(at)
		return c, translate(err)
	})
}

// TransparencySubject is what an entry of the log says about a review: its public
// id (hashed under the salt), variant key and rating, its salt, and the entry's
// index.
type TransparencySubject struct {
	PublicID   string
	VariantKey string
	Rating     int
	// Salted reports whether the review has a salt row; Salt is nil in it once
	// the review was erased.
	Salted bool
	Salt   []byte
	// Next is the index the next entry of the log takes (TransparencySize).
	Next int64
}

// TransparencySubjectOf reads a review's TransparencySubject in one query (a
// decision's append reads it in the decision's transaction). ErrNotFound for an
// unknown review.
func (q *Q) TransparencySubjectOf(ctx context.Context, reviewID int64) (TransparencySubject, error) {
	var s TransparencySubject
	var salted int
	err := q.c.QueryRowContext(ctx, `SELECT r.public_id, r.variant_key, r.rating, s.review_id IS NOT NULL, s.salt,
		(SELECT coalesce(max(idx) + 1, 0) FROM transparency_entries)
		FROM reviews r LEFT JOIN transparency_salts s ON s.review_id = r.id WHERE r.id = ?`, reviewID).
		Scan(&s.PublicID, &s.VariantKey, &s.Rating, &salted, &s.Salt, &s.Next)
	s.Salted = salted == 1
	return s, translate(err)
}

package store

import (
	"context"
	"time"
)

// StaleUpload is an upload never attached to a review that can be deleted.
type StaleUpload struct {
	ID       int64
	PublicID string
	Type     string
}

// qStaleUploads finds uploads not attached to a review (and not being processed
// right now) that can no longer be attached, or are older than the cut-off. An
// upload can still be attached while a token covering its line is unspent and
// unexpired, and the line has no review yet (or the token is a correction of it).
const qStaleUploads = `SELECT m.id, m.public_id, m.type FROM review_media m
	WHERE m.review_id IS NULL AND m.state <> 'processing'
	  AND (m.created_at < ?
	       OR NOT EXISTS (SELECT 1 FROM token_lines tl JOIN tokens t ON t.id = tl.token_id
	                      WHERE tl.line_id = m.line_id AND t.spent_at IS NULL AND t.expires_at > ?
	                        AND (t.kind = 'correction'
	                             OR NOT EXISTS (SELECT 1 FROM reviews r WHERE r.line_id = m.line_id))))
	ORDER BY m.id LIMIT ?`

// StaleUploads lists up to limit uploads to delete at now: unattached ones older
// than before, or whose line no live token can still write.
func (q *Q) StaleUploads(ctx context.Context, now, before time.Time, limit int) ([]StaleUpload, error) {
	rows, err := q.c.QueryContext(ctx, qStaleUploads, Ms(before), Ms(now), limit)
	return collect(rows, err, func(sc scanner) (StaleUpload, error) {
		var u StaleUpload
		err := sc.Scan(&u.ID, &u.PublicID, &u.Type)
		return u, err
	})
}

// DeleteStaleUpload deletes an upload's row if it is still unattached and not
// being processed; it reports whether it did.
func (q *Tx) DeleteStaleUpload(ctx context.Context, id int64) (bool, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM review_media WHERE id = ? AND review_id IS NULL AND state <> 'processing'`, id)
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// MediaState is what the media store reconciliation needs of one media row.
type MediaState struct {
	PublicID  string
	Type      string
	State     string
	Files     string // JSON, see readmodel.MediaFiles
	Published bool   // attached to a published review
}

// MediaStates lists every media row with its review's published state, by public id.
func (q *Q) MediaStates(ctx context.Context) (map[string]MediaState, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT m.public_id, m.type, m.state, m.files, COALESCE(r.state = 'published', 0)
		FROM review_media m LEFT JOIN reviews r ON r.id = m.review_id`)
	list, err := collect(rows, err, func(sc scanner) (MediaState, error) {
		var m MediaState
		err := sc.Scan(&m.PublicID, &m.Type, &m.State, &m.Files, &m.Published)
		return m, err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]MediaState, len(list))
	for _, m := range list {
		out[m.PublicID] = m
	}
	return out, nil
}

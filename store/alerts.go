package store

import "context"

// OpenAlertEpisode opens an alert episode of subject and kind (table
// alert_episodes); it reports false when the episode is open already (its e-mail
// went out).
func (q *Tx) OpenAlertEpisode(ctx context.Context, subject, kind string) (bool, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO alert_episodes (subject, kind, opened_at) VALUES (?, ?, ?)
		ON CONFLICT (subject, kind) DO NOTHING`, subject, kind, Ms(q.Now))
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// EndAlertEpisode closes the episode of subject and kind (every kind when kind is
// empty); closing one that is not open does nothing.
func (q *Tx) EndAlertEpisode(ctx context.Context, subject, kind string) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM alert_episodes WHERE subject = ? AND (? = '' OR kind = ?)`, subject, kind, kind)
	return translate(err)
}

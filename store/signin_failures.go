package store

import (
	"context"
	"time"
)

// CountSignInFailures counts the failed sign-ins recorded for username since
// since and after its last unlock (user.sign_in_unlocked); with reason set, only
// those of that reason (wrong_password, invalid_passcode, ...).
func (q *Q) CountSignInFailures(ctx context.Context, username string, since time.Time, reason string) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM activity_log
		WHERE target_type = 'user' AND target_id = ? AND action = 'session.sign_in_failed' AND at >= ?
		  AND (? = '' OR json_extract(detail, '$.reason') = ?)
		  AND id > coalesce((SELECT max(id) FROM activity_log
			WHERE target_type = 'user' AND target_id = ? AND action = 'user.sign_in_unlocked'), 0)`,
		username, Ms(since), reason, reason, username).Scan(&n)
	return n, translate(err)
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// WriteTxObserver is told, after each write transaction, how long it waited for
// the write connection (the pool of one and SQLite's write lock), how long it held
// the connection, and whether it committed.
type WriteTxObserver func(wait, held time.Duration, committed bool)

// PoolStats returns the database/sql statistics of the read pool and the write pool
// (open connections, waits for a free connection and the time spent waiting).
func (db *DB) PoolStats() (read, write sql.DBStats) {
	return db.read.Stats(), db.write.Stats()
}

// QueueDepths is the amount of work waiting in the background queues.
type QueueDepths struct {
	// InvitationsDue: queued messages (invitations, reminders, notices) whose next
	// attempt is due now.
	InvitationsDue int64
	// NoticesRetrying and EmailsRetrying: queued messages that failed at least once
	// with a temporary error and wait for another attempt, by the route of the
	// last attempt.
	NoticesRetrying int64
	EmailsRetrying  int64
	// MediaWaiting: uploads not processed yet (uploaded or being processed).
	MediaWaiting int64
}

const qQueueDepths = `SELECT
	(SELECT count(*) FROM invitations WHERE state = 'queued' AND next_attempt_at <= ?),
	(SELECT count(*) FROM invitations WHERE state = 'queued' AND attempts > 0 AND route = 'webhook'),
	(SELECT count(*) FROM invitations WHERE state = 'queued' AND attempts > 0 AND route = 'email'),
	(SELECT count(*) FROM review_media WHERE state IN ('uploaded', 'processing'))`

// QueueDepths counts the waiting work at now.
func (q *Q) QueueDepths(ctx context.Context, now time.Time) (QueueDepths, error) {
	var d QueueDepths
	err := q.c.QueryRowContext(ctx, qQueueDepths, Ms(now)).Scan(&d.InvitationsDue, &d.NoticesRetrying, &d.EmailsRetrying, &d.MediaWaiting)
	if err != nil {
		return d, fmt.Errorf("store: queue depths: %w", translate(err))
	}
	return d, nil
}

package store

import (
	"context"
	"fmt"
	"time"
)

// MailEvent is one received mail delivery event.
type MailEvent struct {
	ID         int64
	Source     string // generic, sendgrid, mailgun, postmark, ses
	EventID    string
	Type       string
	SendLogID  int64
	Outcome    string // matched, ignored, opted_out
	Detail     string // addresses replaced by the word address
	OccurredAt time.Time
	CreatedAt  time.Time
}

// AddMailEvent records an event; it reports false (and records nothing) when the
// same event id of the same source was recorded before.
func (q *Tx) AddMailEvent(ctx context.Context, e MailEvent) (bool, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO mail_events (source, event_id, type, send_log_id, outcome, detail, occurred_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source, event_id) DO NOTHING`,
		e.Source, e.EventID, e.Type, nullID(e.SendLogID), e.Outcome, e.Detail, nullMs(e.OccurredAt), Ms(q.Now))
	if err != nil {
		return false, fmt.Errorf("store: add mail event: %w", translate(err))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// MailEventSeen reports whether an event id of a source was recorded before.
func (q *Q) MailEventSeen(ctx context.Context, source, eventID string) (bool, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM mail_events WHERE source = ? AND event_id = ?`, source, eventID).Scan(&n)
	return n > 0, translate(err)
}

// MailEventsOfSendLog lists the events matched to one attempt, oldest first.
func (q *Q) MailEventsOfSendLog(ctx context.Context, sendLogID int64) ([]MailEvent, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT id, source, event_id, type, coalesce(send_log_id, 0), outcome, detail, occurred_at, created_at
		FROM mail_events WHERE send_log_id = ? ORDER BY id`, sendLogID)
	return collect(rows, err, func(sc scanner) (MailEvent, error) {
		var e MailEvent
		var occurred *int64
		var created int64
		err := sc.Scan(&e.ID, &e.Source, &e.EventID, &e.Type, &e.SendLogID, &e.Outcome, &e.Detail, &occurred, &created)
		if occurred != nil {
			e.OccurredAt = Time(*occurred)
		}
		e.CreatedAt = Time(created)
		return e, translate(err)
	})
}

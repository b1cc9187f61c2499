package store

import (
	"context"
	"fmt"
	"time"
)

// SendLog is one send attempt in the message log.
type SendLog struct {
	ID              int64
	InvitationID    int64
	ChannelKind     string // email or webhook
	Recipient       string
	RecipientErased bool
	Subject         string
	EventID         string
	MessageID       string
	Status          string // sent, retry, failed
	Error           string
	Attempt         int
	At              time.Time
}

const qSendLogCols = `s.id, s.invitation_id, s.channel_kind, s.recipient, s.recipient_erased, s.subject, s.event_id, s.message_id,
	s.status, s.error, s.attempt, s.at`

func scanSendLog(sc scanner) (SendLog, error) {
	var s SendLog
	var erased int
	var at int64
	err := sc.Scan(&s.ID, &s.InvitationID, &s.ChannelKind, &s.Recipient, &erased, &s.Subject, &s.EventID, &s.MessageID,
		&s.Status, &s.Error, &s.Attempt, &at)
	s.RecipientErased = erased == 1
	s.At = Time(at)
	return s, translate(err)
}

// AddSendLog appends one attempt to the message log (At is q.Now).
func (q *Tx) AddSendLog(ctx context.Context, s SendLog) (SendLog, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO send_logs (invitation_id, channel_kind, recipient, recipient_erased, subject, event_id,
		message_id, status, error, attempt, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.InvitationID, s.ChannelKind, s.Recipient, boolInt(s.RecipientErased), s.Subject, s.EventID, s.MessageID, s.Status, s.Error,
		s.Attempt, Ms(q.Now))
	if err != nil {
		return s, fmt.Errorf("store: add send log: %w", translate(err))
	}
	s.ID, _ = res.LastInsertId()
	s.At = q.Now
	return s, nil
}

// SendLogsOfInvitation lists the attempts of one message, oldest first.
func (q *Q) SendLogsOfInvitation(ctx context.Context, invitationID int64) ([]SendLog, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qSendLogCols+` FROM send_logs s WHERE s.invitation_id = ? ORDER BY s.id`, invitationID)
	return collect(rows, err, scanSendLog)
}

// SendLogByEventID finds the attempt with our event (send) id.
func (q *Q) SendLogByEventID(ctx context.Context, eventID string) (SendLog, error) {
	return scanSendLog(q.c.QueryRowContext(ctx, `SELECT `+qSendLogCols+` FROM send_logs s WHERE s.event_id = ?
		ORDER BY s.id DESC LIMIT 1`, eventID))
}

// SendLogByMessageID finds the latest successful attempt with a Message-ID.
func (q *Q) SendLogByMessageID(ctx context.Context, messageID string) (SendLog, error) {
	return scanSendLog(q.c.QueryRowContext(ctx, `SELECT `+qSendLogCols+` FROM send_logs s WHERE s.message_id = ? AND s.message_id != ''
		ORDER BY s.status = 'sent' DESC, s.id DESC LIMIT 1`, messageID))
}

// LatestSendLogTo finds the latest successful attempt to an address (ASCII case
// ignored).
func (q *Q) LatestSendLogTo(ctx context.Context, address string) (SendLog, error) {
	return scanSendLog(q.c.QueryRowContext(ctx, `SELECT `+qSendLogCols+` FROM send_logs s
		WHERE s.recipient = ? COLLATE NOCASE AND s.recipient != '' AND s.status = 'sent'
		ORDER BY s.at DESC, s.id DESC LIMIT 1`, address))
}

// SendLogRow is an attempt as the admin list shows it.
type SendLogRow struct {
	SendLog
	Kind           string
	OrderReference string
	ChannelCode    string
}

// SendLogFilter selects attempts for the admin list; zero fields do not filter.
type SendLogFilter struct {
	ChannelID   int64
	ChannelKind string
	Status      string
	// Q matches the order number (prefix), the recipient, the event id or the
	// Message-ID.
	Q      string
	Oldest bool
	Limit  int
	Offset int
}

func (f SendLogFilter) where() (string, []any) {
	w := ` WHERE 1=1`
	var args []any
	if f.ChannelID != 0 {
		w += ` AND i.channel_id = ?`
		args = append(args, f.ChannelID)
	}
	if f.ChannelKind != "" {
		w += ` AND s.channel_kind = ?`
		args = append(args, f.ChannelKind)
	}
	if f.Status != "" {
		w += ` AND s.status = ?`
		args = append(args, f.Status)
	}
	if f.Q != "" {
		w += ` AND (o.external_id LIKE ? ESCAPE '\' OR (s.recipient = ? COLLATE NOCASE AND s.recipient != '') OR s.event_id = ? OR s.message_id = ?)`
		args = append(args, likeEscape(f.Q)+"%", f.Q, f.Q, f.Q)
	}
	return w, args
}

const qSendLogFrom = ` FROM send_logs s JOIN invitations i ON i.id = s.invitation_id LEFT JOIN orders o ON o.id = i.order_id
	JOIN channels c ON c.id = i.channel_id`

// ListSendLogs lists attempts, newest first (oldest first with Oldest), with the
// total count.
func (q *Q) ListSendLogs(ctx context.Context, f SendLogFilter) ([]SendLogRow, int, error) {
	where, args := f.where()
	total, err := q.countRows(ctx, qSendLogFrom+where, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qSendLogCols+`, i.kind, coalesce(o.external_id, ''), c.code`+qSendLogFrom+where+
		listOrder(f.Oldest, "s.id")+` LIMIT ? OFFSET ?`, pageArgs(args, f.Limit, f.Offset, 25)...)
	out, err := collect(rows, err, func(sc scanner) (SendLogRow, error) {
		var r SendLogRow
		s, err := scanSendLog(extraScanner{sc, []any{&r.Kind, &r.OrderReference, &r.ChannelCode}})
		r.SendLog = s
		return r, err
	})
	return out, total, err
}

// SendLogCounts counts attempts by status (channel and route filters of f only).
func (q *Q) SendLogCounts(ctx context.Context, f SendLogFilter) (map[string]int, error) {
	where, args := SendLogFilter{ChannelID: f.ChannelID, ChannelKind: f.ChannelKind}.where()
	return q.countByKey(ctx, `SELECT s.status, count(*)`+qSendLogFrom+where+` GROUP BY s.status`, args)
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SendLog is one send attempt in the message log.
type SendLog struct {
	ID              int64
	InvitationID    int64
	ChannelKind     string // email, webhook or whatsapp
	Recipient       string
	RecipientErased bool
	Subject         string
	EventID         string
	MessageID       string
	Status          string // sent, retry, failed
	Error           string
	Attempt         int
	At              time.Time
	// ProviderStatus is the provider's last status of a WhatsApp message (sent,
	// delivered, read, failed), from its webhook events.
	ProviderStatus string
}

const qSendLogCols = `s.id, s.invitation_id, s.channel_kind, s.recipient, s.recipient_erased, s.subject, s.event_id, s.message_id,
	s.status, s.error, s.attempt, s.at, s.provider_status`

func scanSendLog(sc scanner) (SendLog, error) {
	var s SendLog
	var erased int
	var at int64
	err := sc.Scan(&s.ID, &s.InvitationID, &s.ChannelKind, &s.Recipient, &erased, &s.Subject, &s.EventID, &s.MessageID,
		&s.Status, &s.Error, &s.Attempt, &at, &s.ProviderStatus)
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

// SetProviderStatus records a provider status event of the message with
// messageID (a WhatsApp wamid): the status moves forward only (sent, delivered,
// read; failed wins over all), so events that arrive out of order do not undo a
// later one; read marks the invitation opened. reason, when set, replaces the row's error. It reports the row's id
// (0 when no message has that id).
func (q *Tx) SetProviderStatus(ctx context.Context, messageID, status, reason string, at time.Time) (int64, error) {
	var id int64
	err := q.c.QueryRowContext(ctx, `UPDATE send_logs SET provider_status = ?1, provider_status_at = ?2,
		error = CASE WHEN ?3 != '' THEN ?3 ELSE error END
		WHERE id = (SELECT id FROM send_logs WHERE message_id = ?4 AND message_id != '' AND channel_kind = 'whatsapp'
		            ORDER BY id DESC LIMIT 1)
		  AND (CASE ?1 WHEN 'failed' THEN 9 WHEN 'read' THEN 3 WHEN 'delivered' THEN 2 ELSE 1 END)
		   >= (CASE provider_status WHEN 'failed' THEN 9 WHEN 'read' THEN 3 WHEN 'delivered' THEN 2 WHEN 'sent' THEN 1 ELSE 0 END)
		RETURNING id`, status, Ms(at), reason, messageID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: set provider status: %w", translate(err))
	}
	if status == "read" {
		// A read WhatsApp message counts as an opened invitation in the funnel, as
		// an "opened" mail event does (trigger invite_marks_opened).
		if _, err := q.c.ExecContext(ctx, `INSERT INTO invite_marks (invitation_id, opened)
			SELECT coalesce(i.parent_id, i.id), 1 FROM send_logs s JOIN invitations i ON i.id = s.invitation_id
			WHERE s.id = ? AND i.kind IN ('invitation', 'reminder')
			ON CONFLICT (invitation_id) DO UPDATE SET opened = 1`, id); err != nil {
			return 0, fmt.Errorf("store: mark read: %w", translate(err))
		}
	}
	return id, nil
}

// RouteFigures are the message-log attempts of one route: by status, and for
// WhatsApp messages the provider's last status (delivered counts read ones too).
type RouteFigures struct {
	Sent      int `json:"sent"`
	Retry     int `json:"retry"`
	Failed    int `json:"failed"`
	Delivered int `json:"delivered"`
	Read      int `json:"read"`
}

// SendFiguresByRoute counts the attempts of the message log made in [from, to) of
// one channel (0: all) by route (the overview's and the metrics' delivery
// figures). The time range keeps the scan on send_logs_at.
func (q *Q) SendFiguresByRoute(ctx context.Context, channelID int64, from, to time.Time) (map[string]RouteFigures, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT s.channel_kind, s.status, s.provider_status, count(*) FROM send_logs s
		JOIN invitations i ON i.id = s.invitation_id
		WHERE s.at >= ? AND s.at < ? AND (? = 0 OR i.channel_id = ?) GROUP BY 1, 2, 3`, Ms(from), Ms(to), channelID, channelID)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string]RouteFigures{}
	for rows.Next() {
		var kind, status, provider string
		var n int
		if err := rows.Scan(&kind, &status, &provider, &n); err != nil {
			return nil, translate(err)
		}
		f := out[kind]
		switch status {
		case "sent":
			f.Sent += n
		case "retry":
			f.Retry += n
		case "failed":
			f.Failed += n
		}
		switch provider {
		case "read":
			f.Read += n
			f.Delivered += n
		case "delivered":
			f.Delivered += n
		}
		out[kind] = f
	}
	return out, translate(rows.Err())
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Invitation is one outgoing customer message with its send state: a product
// invitation, its reminder, a shopping-experience invitation or a rejection notice.
type Invitation struct {
	ID        int64
	Kind      string
	OrderID   int64 // 0 for a rejection notice without an order
	ChannelID int64
	ParentID  int64 // the invitation a reminder belongs to
	TokenID   int64
	TokenEnc  []byte // the plain token, encrypted with the master key
	ReviewID  int64
	// PayloadEnc is the encrypted JSON of what a rejection notice says.
	PayloadEnc      []byte
	Address         string
	CustomerRef     string
	RecipientErased bool
	Language        string
	TemplateKey     string
	Route           string
	State           string
	Attempts        int
	NextAttemptAt   time.Time
	LastError       string
	ReleasedAt      time.Time
	SentAt          time.Time
	ExpiresAt       time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

const (
	qInvitationCols = `i.id, i.kind, i.order_id, i.channel_id, i.parent_id, i.token_id, i.token_enc, i.review_id, i.payload_enc,
		i.address, i.customer_ref, i.recipient_erased, i.language, i.template_key, i.route, i.state, i.attempts,
		i.next_attempt_at, i.last_error, i.released_at, i.sent_at, i.expires_at, i.created_at, i.updated_at`
	qInvitationInsert = `INSERT INTO invitations (kind, order_id, channel_id, parent_id, token_id, token_enc, review_id, payload_enc,
		address, customer_ref, language, template_key, state, attempts, next_attempt_at, last_error, expires_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`
)

func scanInvitation(sc scanner) (Invitation, error) {
	var i Invitation
	var order, parent, token, review, next, released, sent, expires sql.NullInt64
	var erased int
	var created, updated int64
	err := sc.Scan(&i.ID, &i.Kind, &order, &i.ChannelID, &parent, &token, &i.TokenEnc, &review, &i.PayloadEnc,
		&i.Address, &i.CustomerRef, &erased, &i.Language, &i.TemplateKey, &i.Route, &i.State, &i.Attempts,
		&next, &i.LastError, &released, &sent, &expires, &created, &updated)
	i.OrderID, i.ParentID, i.TokenID, i.ReviewID = idOf(order), idOf(parent), idOf(token), idOf(review)
	i.RecipientErased = erased == 1
	i.NextAttemptAt, i.ReleasedAt, i.SentAt, i.ExpiresAt = NullTime(next), NullTime(released), NullTime(sent), NullTime(expires)
	i.CreatedAt, i.UpdatedAt = Time(created), Time(updated)
	return i, translate(err)
}

// CreateInvitation stores a new message. It reports false (and stores nothing)
// when the order already has an invitation (or experience invitation) of that kind,
// or the invitation already has its reminder.
func (q *Tx) CreateInvitation(ctx context.Context, i Invitation) (Invitation, bool, error) {
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, qInvitationInsert, i.Kind, nullID(i.OrderID), i.ChannelID, nullID(i.ParentID), nullID(i.TokenID),
		i.TokenEnc, nullID(i.ReviewID), i.PayloadEnc, i.Address, i.CustomerRef, i.Language, i.TemplateKey, i.State,
		nullMs(i.NextAttemptAt), i.LastError, nullMs(i.ExpiresAt), now, now)
	if err != nil {
		return i, false, fmt.Errorf("store: create invitation: %w", translate(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return i, false, nil
	}
	i.ID, _ = res.LastInsertId()
	i.CreatedAt, i.UpdatedAt = q.Now, q.Now
	return i, true, nil
}

// CountQueuedWaiting counts the queued messages whose last attempt was put off
// for reason (their last_error).
func (q *Q) CountQueuedWaiting(ctx context.Context, reason string) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM invitations WHERE state = 'queued' AND last_error = ?`, reason).Scan(&n)
	return n, translate(err)
}

// InvitationByID finds a message by id.
func (q *Q) InvitationByID(ctx context.Context, id int64) (Invitation, error) {
	return scanInvitation(q.c.QueryRowContext(ctx, `SELECT `+qInvitationCols+` FROM invitations i WHERE i.id = ?`, id))
}

// InvitationOfOrder finds the invitation (or experience invitation) of an order.
func (q *Q) InvitationOfOrder(ctx context.Context, orderID int64, kind string) (Invitation, error) {
	return scanInvitation(q.c.QueryRowContext(ctx, `SELECT `+qInvitationCols+` FROM invitations i
		WHERE i.order_id = ? AND i.kind = ? ORDER BY i.id LIMIT 1`, orderID, kind))
}

// InvitationsOfOrder lists every message of an order, oldest first.
func (q *Q) InvitationsOfOrder(ctx context.Context, orderID int64) ([]Invitation, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qInvitationCols+` FROM invitations i WHERE i.order_id = ? ORDER BY i.id`, orderID)
	return collect(rows, err, scanInvitation)
}

// OrdersAwaitingInvitation lists ids of orders that may be due a product
// invitation: a line delivered in (deliveredAfter, deliveredBefore], a customer
// address (or, with phones, a customer phone), not erased, paid or partially refunded, and no invitation yet. The
// caller decides with the reviewable rule. Ids above afterID, ascending, at most
// limit. The delivery range keeps the scan to recent deliveries (partial index
// order_lines_delivered).
func (q *Q) OrdersAwaitingInvitation(ctx context.Context, deliveredAfter, deliveredBefore time.Time, afterID int64, limit int, phones bool) ([]int64, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT DISTINCT l.order_id FROM order_lines l
		WHERE l.fulfilment_state = 'delivered' AND l.delivered_at > ? AND l.delivered_at <= ? AND l.order_id > ?
		  AND EXISTS (SELECT 1 FROM orders o WHERE o.id = l.order_id AND (o.customer_email != '' OR (? AND o.customer_phone != ''))
		              AND o.erased_at IS NULL
		              AND o.payment_state IN ('paid', 'partially_refunded'))
		  AND NOT EXISTS (SELECT 1 FROM invitations i WHERE i.order_id = l.order_id AND i.kind = 'invitation')
		ORDER BY l.order_id LIMIT ?`, Ms(deliveredAfter), Ms(deliveredBefore), afterID, phones, limit)
	return collectIDs(rows, err)
}

// InvitationsAwaitingReminder lists sent product invitations whose send time is at
// or before sentBefore, whose link is still valid at now and that have no reminder
// yet (ids above afterID, ascending, at most limit).
func (q *Q) InvitationsAwaitingReminder(ctx context.Context, sentBefore, now time.Time, afterID int64, limit int) ([]Invitation, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qInvitationCols+` FROM invitations i
		WHERE i.id > ? AND i.kind = 'invitation' AND i.state = 'sent' AND i.sent_at <= ? AND i.expires_at > ?
		  AND i.recipient_erased = 0
		  AND NOT EXISTS (SELECT 1 FROM invitations r WHERE r.parent_id = i.id AND r.kind = 'reminder')
		ORDER BY i.id LIMIT ?`, afterID, Ms(sentBefore), Ms(now), limit)
	return collect(rows, err, scanInvitation)
}

// DueInvitations lists ids of queued messages whose next attempt is due at now,
// the longest waiting first.
func (q *Q) DueInvitations(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT id FROM invitations WHERE state = 'queued' AND next_attempt_at <= ?
		ORDER BY next_attempt_at, id LIMIT ?`, Ms(now), limit)
	return collectIDs(rows, err)
}

// ClaimInvitation takes a due queued message for one attempt by moving its next
// attempt to until; only one caller gets a given message. It reports whether the
// claim succeeded.
func (q *Tx) ClaimInvitation(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE invitations SET next_attempt_at = ?, updated_at = ?
		WHERE id = ? AND state = 'queued' AND next_attempt_at <= ?`, Ms(until), Ms(q.Now), id, Ms(now))
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SaveInvitationState writes the send state of a message (state, route, attempts,
// next attempt, last error, release and send times, address).
func (q *Tx) SaveInvitationState(ctx context.Context, i Invitation) error {
	_, err := q.c.ExecContext(ctx, `UPDATE invitations SET state = ?, route = ?, attempts = ?, next_attempt_at = ?, last_error = ?,
		released_at = ?, sent_at = ?, address = ?, updated_at = ? WHERE id = ?`,
		i.State, i.Route, i.Attempts, nullMs(i.NextAttemptAt), i.LastError, nullMs(i.ReleasedAt), nullMs(i.SentAt), i.Address,
		Ms(q.Now), i.ID)
	if err != nil {
		return fmt.Errorf("store: save invitation: %w", translate(err))
	}
	return nil
}

// CountReleased counts the messages of a customer (other than exceptID) whose
// first attempt falls in [from, to). Rejection notices are not counted.
func (q *Q) CountReleased(ctx context.Context, customerRef string, from, to time.Time, exceptID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM invitations
		WHERE customer_ref = ? AND kind != 'rejection' AND released_at >= ? AND released_at < ? AND id != ?`,
		customerRef, Ms(from), Ms(to), exceptID).Scan(&n)
	return n, translate(err)
}

// ReleasedSince lists the first-attempt times of a customer's messages after since,
// oldest first (for the burst check).
func (q *Q) ReleasedSince(ctx context.Context, customerRef string, since time.Time, exceptID int64) ([]time.Time, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT released_at FROM invitations
		WHERE customer_ref = ? AND kind != 'rejection' AND released_at > ? AND id != ? ORDER BY released_at`,
		customerRef, Ms(since), exceptID)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var ms int64
		if err := rows.Scan(&ms); err != nil {
			return nil, err
		}
		out = append(out, Time(ms))
	}
	return out, translate(rows.Err())
}

// EraseInvitationRecipients empties the recipient of every message of an order and
// of their message-log rows, and marks them erased.
func (q *Tx) EraseInvitationRecipients(ctx context.Context, orderID int64) error {
	if _, err := q.c.ExecContext(ctx, `UPDATE invitations SET address = '', customer_ref = '', recipient_erased = 1, updated_at = ?
		WHERE order_id = ?`, Ms(q.Now), orderID); err != nil {
		return fmt.Errorf("store: erase invitation recipients: %w", translate(err))
	}
	if _, err := q.c.ExecContext(ctx, `UPDATE send_logs SET recipient = '', recipient_erased = 1
		WHERE invitation_id IN (SELECT id FROM invitations WHERE order_id = ?)`, orderID); err != nil {
		return fmt.Errorf("store: erase send log recipients: %w", translate(err))
	}
	return nil
}

// InvitationRow is a message as the admin list shows it.
type InvitationRow struct {
	Invitation
	OrderReference string
	ChannelCode    string
	LineReferences []string
}

// InvitationFilter selects messages for the admin list; zero fields do not filter.
type InvitationFilter struct {
	ChannelID int64
	State     string
	Kinds     []string
	// Q matches the order number (prefix) or, when QID is set, the message id.
	Q      string
	QID    int64
	Oldest bool
	Limit  int
	Offset int
}

func (f InvitationFilter) where() (string, []any) {
	w := ` WHERE 1=1`
	var args []any
	if f.ChannelID != 0 {
		w += ` AND i.channel_id = ?`
		args = append(args, f.ChannelID)
	}
	if f.State != "" {
		w += ` AND i.state = ?`
		args = append(args, f.State)
	}
	if len(f.Kinds) > 0 {
		w += ` AND i.kind IN (` + placeholders(len(f.Kinds)) + `)`
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	}
	if f.Q != "" {
		w += ` AND (o.external_id LIKE ? ESCAPE '\' OR i.id = ?)`
		args = append(args, likeEscape(f.Q)+"%", f.QID)
	}
	return w, args
}

// ListInvitations lists messages with their order number, channel and lines, newest
// first (oldest first with Oldest), and the total count.
func (q *Q) ListInvitations(ctx context.Context, f InvitationFilter) ([]InvitationRow, int, error) {
	where, args := f.where()
	from := ` FROM invitations i LEFT JOIN orders o ON o.id = i.order_id JOIN channels c ON c.id = i.channel_id`
	total, err := q.countRows(ctx, from+where, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qInvitationCols+`, coalesce(o.external_id, ''), c.code`+from+where+
		listOrder(f.Oldest, "i.id")+` LIMIT ? OFFSET ?`, pageArgs(args, f.Limit, f.Offset, 25)...)
	out, err := collect(rows, err, func(sc scanner) (InvitationRow, error) {
		var r InvitationRow
		inv, err := scanInvitation(extraScanner{sc, []any{&r.OrderReference, &r.ChannelCode}})
		r.Invitation = inv
		return r, err
	})
	if err != nil {
		return nil, 0, err
	}
	for i := range out {
		if out[i].TokenID == 0 {
			continue
		}
		lines, err := q.TokenLines(ctx, out[i].TokenID)
		if err != nil {
			return nil, 0, err
		}
		for _, l := range lines {
			out[i].LineReferences = append(out[i].LineReferences, l.LineReference)
		}
	}
	return out, total, nil
}

// InvitationCounts counts messages of the given kinds by state (channelID 0 = every
// channel).
func (q *Q) InvitationCounts(ctx context.Context, channelID int64, kinds []string) (map[string]int, error) {
	f := InvitationFilter{ChannelID: channelID, Kinds: kinds}
	where, args := f.where()
	return q.countByKey(ctx, `SELECT i.state, count(*) FROM invitations i`+where+` GROUP BY i.state`, args)
}

// CountReviewedInvitations counts sent product invitations of a channel (0 = all)
// with a product review for at least one line their token covers.
func (q *Q) CountReviewedInvitations(ctx context.Context, channelID int64) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM invitations i
		WHERE i.state = 'sent' AND i.kind = 'invitation' AND (? = 0 OR i.channel_id = ?)
		  AND EXISTS (SELECT 1 FROM token_lines tl JOIN reviews r ON r.line_id = tl.line_id
		              WHERE tl.token_id = i.token_id AND r.experience = 'product')`,
		channelID, channelID).Scan(&n)
	return n, translate(err)
}

// FailedInvitations lists failed messages: the given ids (when any) within a
// channel (0 = any).
func (q *Q) FailedInvitations(ctx context.Context, ids []int64, channelID int64) ([]Invitation, error) {
	w := ` WHERE i.state = 'failed'`
	var args []any
	if channelID != 0 {
		w += ` AND i.channel_id = ?`
		args = append(args, channelID)
	}
	if len(ids) > 0 {
		w += ` AND i.id IN (` + placeholders(len(ids)) + `)`
		for _, id := range ids {
			args = append(args, id)
		}
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qInvitationCols+` FROM invitations i`+w+` ORDER BY i.id`, args...)
	return collect(rows, err, scanInvitation)
}

func collectIDs(rows *sql.Rows, err error) ([]int64, error) {
	return collect(rows, err, func(sc scanner) (int64, error) {
		var id int64
		err := sc.Scan(&id)
		return id, err
	})
}

// extraScanner scans a row's leading columns with a row scanner and the columns
// after them into extra.
type extraScanner struct {
	sc    scanner
	extra []any
}

func (e extraScanner) Scan(dest ...any) error { return e.sc.Scan(append(dest, e.extra...)...) }

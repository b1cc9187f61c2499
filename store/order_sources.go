package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// OrderSource is one platform order connection.
type OrderSource struct {
	ID              int64
	Platform        string
	ChannelID       int64
	ChannelCode     string // from channels, read only
	ChannelActive   bool   // from channels, read only
	BaseURL         string
	RemoteChannel   string
	CredentialsEnc  []byte
	HasCredentials  bool
	BackfillDays    int
	IntervalMinutes int
	Enabled         bool
	CursorAt        time.Time // zero: no successful read yet
	NextRunAt       time.Time
	LastRunAt       time.Time
	LastError       string
	LastReport      string // JSON, empty before the first read
	Failures        int
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// OrderSourceRun is one row of the connection log.
type OrderSourceRun struct {
	ID         int64
	SourceID   int64
	Platform   string
	Channel    string
	Trigger    string // schedule, manual
	StartedAt  time.Time
	FinishedAt time.Time
	Outcome    string // ok, partial, failed
	Error      string
	Orders     int
	Report     string // JSON
}

// OrderSourceRead is what a finished read writes back to its connection.
type OrderSourceRead struct {
	// CursorAt is the new position; the zero time leaves the position unchanged.
	CursorAt   time.Time
	LastRunAt  time.Time
	NextRunAt  time.Time
	LastError  string
	LastReport string
	Failed     bool
}

const (
	qSourceCols = `s.id, s.platform, s.channel_id, c.code, c.active, s.base_url, s.remote_channel, s.credentials_enc,
		s.has_credentials, s.backfill_days, s.interval_minutes, s.enabled, s.cursor_at, s.next_run_at, s.last_run_at,
		s.last_error, s.last_report, s.failures, s.created_at, s.updated_at`
	qSourceFrom   = ` FROM order_sources s JOIN channels c ON c.id = s.channel_id`
	qSourceInsert = `INSERT INTO order_sources (platform, channel_id, base_url, remote_channel, credentials_enc, has_credentials,
		backfill_days, interval_minutes, enabled, next_run_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qSourceUpdate = `UPDATE order_sources SET base_url = ?, remote_channel = ?, credentials_enc = ?, has_credentials = ?,
		backfill_days = ?, interval_minutes = ?, enabled = ?, cursor_at = ?, next_run_at = ?, updated_at = ? WHERE id = ?`
	// A finished read keeps the position when CursorAt is NULL (failed reads never
	// move it) and counts failures in a row.
	qSourceFinish = `UPDATE order_sources SET cursor_at = coalesce(?, cursor_at), last_run_at = ?, next_run_at = ?,
		last_error = ?, last_report = ?, failures = CASE WHEN ? THEN failures + 1 ELSE 0 END WHERE id = ?`
	qSourceDue = `SELECT ` + qSourceCols + qSourceFrom + `
		WHERE s.enabled = 1 AND c.active = 1 AND s.next_run_at <= ? ORDER BY s.next_run_at, s.id`
	qRunInsert = `INSERT INTO order_source_runs (source_id, platform, channel, trigger, started_at, finished_at, outcome,
		error, orders, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qRunCols = `id, source_id, platform, channel, trigger, started_at, finished_at, outcome, error, orders, report`
)

func scanSource(sc interface{ Scan(...any) error }) (OrderSource, error) {
	var s OrderSource
	var active, has, enabled int
	var cursor, last sql.NullInt64
	var next, created, updated int64
	err := sc.Scan(&s.ID, &s.Platform, &s.ChannelID, &s.ChannelCode, &active, &s.BaseURL, &s.RemoteChannel,
		&s.CredentialsEnc, &has, &s.BackfillDays, &s.IntervalMinutes, &enabled, &cursor, &next, &last,
		&s.LastError, &s.LastReport, &s.Failures, &created, &updated)
	if err != nil {
		return s, translate(err)
	}
	s.ChannelActive, s.HasCredentials, s.Enabled = active == 1, has == 1, enabled == 1
	s.CursorAt, s.LastRunAt = NullTime(cursor), NullTime(last)
	s.NextRunAt, s.CreatedAt, s.UpdatedAt = Time(next), Time(created), Time(updated)
	return s, nil
}

func (q *Q) sources(ctx context.Context, query string, args ...any) ([]OrderSource, error) {
	rows, err := q.c.QueryContext(ctx, query, args...)
	return collect(rows, err, scanSource)
}

// CreateOrderSource inserts a connection; ErrConflict when the channel already has
// one for the platform.
func (q *Tx) CreateOrderSource(ctx context.Context, s OrderSource) (OrderSource, error) {
	res, err := q.c.ExecContext(ctx, qSourceInsert, s.Platform, s.ChannelID, s.BaseURL, s.RemoteChannel, s.CredentialsEnc,
		boolInt(s.HasCredentials), s.BackfillDays, s.IntervalMinutes, boolInt(s.Enabled), Ms(s.NextRunAt), Ms(q.Now), Ms(q.Now))
	if err != nil {
		return s, fmt.Errorf("store: create order source: %w", translate(err))
	}
	id, _ := res.LastInsertId()
	return q.OrderSourceByID(ctx, id)
}

// OrderSourceByID returns one connection with its channel's code and state.
func (q *Q) OrderSourceByID(ctx context.Context, id int64) (OrderSource, error) {
	return scanSource(q.c.QueryRowContext(ctx, `SELECT `+qSourceCols+qSourceFrom+` WHERE s.id = ?`, id))
}

// ListOrderSources lists every connection by channel code and platform.
func (q *Q) ListOrderSources(ctx context.Context) ([]OrderSource, error) {
	return q.sources(ctx, `SELECT `+qSourceCols+qSourceFrom+` ORDER BY c.code, s.platform`)
}

// DueOrderSources lists the enabled connections of active channels whose next read
// is due at now, the longest waiting first.
func (q *Q) DueOrderSources(ctx context.Context, now time.Time) ([]OrderSource, error) {
	return q.sources(ctx, qSourceDue, Ms(now))
}

// DeferOrderSource sets when a connection is due again. A read commits it before
// reading, so a read that takes the process down is not started again at once.
func (q *Tx) DeferOrderSource(ctx context.Context, id int64, next time.Time) error {
	_, err := q.c.ExecContext(ctx, `UPDATE order_sources SET next_run_at = ?, updated_at = ? WHERE id = ?`,
		Ms(next), Ms(q.Now), id)
	return translate(err)
}

// UpdateOrderSource writes the settings of a connection (address, credentials,
// schedule, position).
func (q *Tx) UpdateOrderSource(ctx context.Context, s OrderSource) error {
	res, err := q.c.ExecContext(ctx, qSourceUpdate, s.BaseURL, s.RemoteChannel, s.CredentialsEnc, boolInt(s.HasCredentials),
		s.BackfillDays, s.IntervalMinutes, boolInt(s.Enabled), nullMs(s.CursorAt), Ms(s.NextRunAt), Ms(q.Now), s.ID)
	if err != nil {
		return fmt.Errorf("store: update order source: %w", translate(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetOrderSourceDue makes a connection due at t.
func (q *Tx) SetOrderSourceDue(ctx context.Context, id int64, t time.Time) error {
	_, err := q.c.ExecContext(ctx, `UPDATE order_sources SET next_run_at = ? WHERE id = ?`, Ms(t), id)
	return translate(err)
}

// FinishOrderSourceRead writes the outcome of a read to its connection (a removed
// connection is left alone).
func (q *Tx) FinishOrderSourceRead(ctx context.Context, id int64, r OrderSourceRead) error {
	_, err := q.c.ExecContext(ctx, qSourceFinish, nullMs(r.CursorAt), Ms(r.LastRunAt), Ms(r.NextRunAt), r.LastError,
		r.LastReport, boolInt(r.Failed), id)
	return translate(err)
}

// DeleteOrderSource removes a connection; its connection log stays.
func (q *Tx) DeleteOrderSource(ctx context.Context, id int64) error {
	res, err := q.c.ExecContext(ctx, `DELETE FROM order_sources WHERE id = ?`, id)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// AddOrderSourceRun appends one row to the connection log.
func (q *Tx) AddOrderSourceRun(ctx context.Context, r OrderSourceRun) error {
	_, err := q.c.ExecContext(ctx, qRunInsert, r.SourceID, r.Platform, r.Channel, r.Trigger, Ms(r.StartedAt),
		Ms(r.FinishedAt), r.Outcome, r.Error, r.Orders, r.Report)
	return translate(err)
}

// OrderSourceRunFilter selects connection-log rows; zero fields do not filter.
type OrderSourceRunFilter struct {
	SourceID int64
	Channel  string
	Outcome  string
	Oldest   bool // oldest first instead of newest first
	Limit    int
	Offset   int
}

// ListOrderSourceRuns returns one page of the connection log and the total count.
func (q *Q) ListOrderSourceRuns(ctx context.Context, f OrderSourceRunFilter) ([]OrderSourceRun, int, error) {
	where, args := ` WHERE 1 = 1`, []any{}
	if f.SourceID != 0 {
		where += ` AND source_id = ?`
		args = append(args, f.SourceID)
	}
	if f.Channel != "" {
		where += ` AND channel = ?`
		args = append(args, f.Channel)
	}
	if f.Outcome != "" {
		where += ` AND outcome = ?`
		args = append(args, f.Outcome)
	}
	total, err := q.countRows(ctx, ` FROM order_source_runs`+where, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qRunCols+` FROM order_source_runs`+where+
		listOrder(f.Oldest, "started_at", "id")+` LIMIT ? OFFSET ?`, pageArgs(args, f.Limit, f.Offset, 25)...)
	if err != nil {
		return nil, 0, translate(err)
	}
	defer rows.Close()
	var out []OrderSourceRun
	for rows.Next() {
		var r OrderSourceRun
		var started, finished int64
		if err := rows.Scan(&r.ID, &r.SourceID, &r.Platform, &r.Channel, &r.Trigger, &started, &finished, &r.Outcome,
			&r.Error, &r.Orders, &r.Report); err != nil {
			return nil, 0, err
		}
		r.StartedAt, r.FinishedAt = Time(started), Time(finished)
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// DeleteOrderSourceRunsBefore prunes connection-log rows that started before t.
func (q *Tx) DeleteOrderSourceRunsBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM order_source_runs WHERE started_at < ?`, Ms(t))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

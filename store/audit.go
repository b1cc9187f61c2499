package store

import (
	"context"
	"fmt"
	"time"
)

// Activity is one activity-history entry.
type Activity struct {
	ID         int64
	At         time.Time
	Action     string
	ActorType  string
	ActorID    string
	ActorName  string
	TargetType string
	TargetID   string
	Detail     string // JSON
	RequestID  string
	IPHash     string
	UserAgent  string
}

// Access is one personal-data access-log entry; entries cannot be changed.
type Access struct {
	ID         int64
	At         time.Time
	Action     string
	ActorID    string
	ActorRole  string
	Via        string
	TargetType string
	TargetID   string
	Count      int
	RequestID  string
	IPHash     string
	UserAgent  string
}

// AddActivity appends to the activity history.
func (q *Tx) AddActivity(ctx context.Context, a Activity) error {
	if a.Detail == "" {
		a.Detail = "{}"
	}
	_, err := q.c.ExecContext(ctx, `INSERT INTO activity_log (at, action, actor_type, actor_id, actor_name, target_type, target_id, detail, request_id, ip_hash, user_agent)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, Ms(q.Now), a.Action, a.ActorType, a.ActorID, a.ActorName, a.TargetType, a.TargetID,
		a.Detail, a.RequestID, a.IPHash, a.UserAgent)
	if err != nil {
		return fmt.Errorf("store: add activity: %w", translate(err))
	}
	return nil
}

// AddAccess appends to the personal-data access log.
func (q *Tx) AddAccess(ctx context.Context, a Access) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO access_log (at, action, actor_id, actor_role, via, target_type, target_id, count, request_id, ip_hash, user_agent)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, Ms(q.Now), a.Action, a.ActorID, a.ActorRole, a.Via, a.TargetType, a.TargetID,
		a.Count, a.RequestID, a.IPHash, a.UserAgent)
	if err != nil {
		return fmt.Errorf("store: add access: %w", translate(err))
	}
	return nil
}

// ActivityFilter selects activity entries; nil and zero fields do not filter.
type ActivityFilter struct {
	Action     string
	TargetType string
	TargetID   string
	Limit      int
	Offset     int
}

// ListActivity lists activity entries, newest first, with the total count.
func (q *Q) ListActivity(ctx context.Context, f ActivityFilter) ([]Activity, int, error) {
	where := ` WHERE 1=1`
	var args []any
	if f.Action != "" {
		where += ` AND action = ?`
		args = append(args, f.Action)
	}
	if f.TargetType != "" {
		where += ` AND target_type = ?`
		args = append(args, f.TargetType)
	}
	if f.TargetID != "" {
		where += ` AND target_id = ?`
		args = append(args, f.TargetID)
	}
	total, err := q.countRows(ctx, ` FROM activity_log`+where, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.c.QueryContext(ctx, `SELECT id, at, action, actor_type, actor_id, actor_name, target_type, target_id, detail, request_id, ip_hash, user_agent
		FROM activity_log`+where+` ORDER BY id DESC LIMIT ? OFFSET ?`, pageArgs(args, f.Limit, f.Offset, 100)...)
	if err != nil {
		return nil, 0, translate(err)
	}
	defer rows.Close()
	var out []Activity
	for rows.Next() {
		var a Activity
		var at int64
		if err := rows.Scan(&a.ID, &at, &a.Action, &a.ActorType, &a.ActorID, &a.ActorName, &a.TargetType, &a.TargetID,
			&a.Detail, &a.RequestID, &a.IPHash, &a.UserAgent); err != nil {
			return nil, 0, err
		}
		a.At = Time(at)
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// AccessFilter selects access-log entries.
type AccessFilter struct {
	Action string
	Actor  string
	Via    string
	Q      string
	Oldest bool
	Limit  int
	Offset int
}

// ListAccess lists access-log entries, newest first, with the total count.
func (q *Q) ListAccess(ctx context.Context, f AccessFilter) ([]Access, int, error) {
	where := ` WHERE 1=1`
	var args []any
	if f.Action != "" {
		where += ` AND action = ?`
		args = append(args, f.Action)
	}
	if f.Actor != "" {
		where += ` AND actor_id = ?`
		args = append(args, f.Actor)
	}
	if f.Via != "" {
		where += ` AND via = ?`
		args = append(args, f.Via)
	}
	if f.Q != "" {
		where += ` AND (target_id = ? OR action LIKE ? ESCAPE '\')`
		args = append(args, f.Q, "%"+likeEscape(f.Q)+"%")
	}
	total, err := q.countRows(ctx, ` FROM access_log`+where, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.c.QueryContext(ctx, `SELECT id, at, action, actor_id, actor_role, via, target_type, target_id, count, request_id, ip_hash, user_agent
		FROM access_log`+where+listOrder(f.Oldest, "id")+` LIMIT ? OFFSET ?`, pageArgs(args, f.Limit, f.Offset, 100)...)
	if err != nil {
		return nil, 0, translate(err)
	}
	defer rows.Close()
	var out []Access
	for rows.Next() {
		var a Access
		var at int64
		if err := rows.Scan(&a.ID, &at, &a.Action, &a.ActorID, &a.ActorRole, &a.Via, &a.TargetType, &a.TargetID, &a.Count,
			&a.RequestID, &a.IPHash, &a.UserAgent); err != nil {
			return nil, 0, err
		}
		a.At = Time(at)
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// likeEscape escapes LIKE wildcards for use with ESCAPE '\'.
func likeEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' || s[i] == '_' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// DeleteAccessBefore removes access-log entries older than t (the retention job;
// the table's trigger refuses anything younger than 365 days).
func (q *Tx) DeleteAccessBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM access_log WHERE at < ?`, Ms(t))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

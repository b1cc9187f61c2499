package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// AuditFilter selects activity-history entries for the audit log; zero fields do
// not filter. Sign-ins (actions session.*) are left out unless Sessions is set.
type AuditFilter struct {
	Action     string
	Actor      string // actor id or name
	Via        string // actor type
	TargetType string
	TargetID   string
	From, To   time.Time
	Q          string
	Sessions   bool
	IDs        []int64 // only these entries (an export of chosen rows)
	Oldest     bool
	Limit      int
	Offset     int
}

func (f AuditFilter) where() (string, []any) {
	where := ` WHERE 1=1`
	var args []any
	if !f.Sessions {
		where += ` AND action NOT LIKE 'session.%'`
	}
	if f.Action != "" {
		where += ` AND action = ?`
		args = append(args, f.Action)
	}
	if f.Actor != "" {
		where += ` AND (actor_id = ? OR actor_name = ?)`
		args = append(args, f.Actor, f.Actor)
	}
	if f.Via != "" {
		where += ` AND actor_type = ?`
		args = append(args, f.Via)
	}
	if f.TargetType != "" {
		where += ` AND target_type = ?`
		args = append(args, f.TargetType)
	}
	if f.TargetID != "" {
		where += ` AND target_id = ?`
		args = append(args, f.TargetID)
	}
	if !f.From.IsZero() {
		where += ` AND at >= ?`
		args = append(args, Ms(f.From))
	}
	if !f.To.IsZero() {
		where += ` AND at < ?`
		args = append(args, Ms(f.To))
	}
	if f.Q != "" {
		like := "%" + likeEscape(f.Q) + "%"
		where += ` AND (target_id = ? OR request_id = ? OR action LIKE ? ESCAPE '\' OR actor_name LIKE ? ESCAPE '\')`
		args = append(args, f.Q, f.Q, like, like)
	}
	if f.IDs != nil {
		where += ` AND id IN (SELECT value FROM json_each(?))`
		ids := "["
		for i, id := range f.IDs {
			if i > 0 {
				ids += ","
			}
			ids += fmt.Sprint(id)
		}
		args = append(args, ids+"]")
	}
	return where, args
}

func scanActivity(sc scanner) (Activity, error) {
	var a Activity
	var at int64
	err := sc.Scan(&a.ID, &at, &a.Action, &a.ActorType, &a.ActorID, &a.ActorName, &a.TargetType, &a.TargetID,
		&a.Detail, &a.RequestID, &a.IPHash, &a.UserAgent)
	a.At = Time(at)
	return a, translate(err)
}

// CountAuditLog counts the entries f selects (paging ignored).
func (q *Q) CountAuditLog(ctx context.Context, f AuditFilter) (int, error) {
	where, args := f.where()
	return q.countRows(ctx, ` FROM activity_log`+where, args)
}

// ListAuditLog lists the entries f selects, newest first (or oldest), one page of
// f.Limit (0: every entry), with the total.
func (q *Q) ListAuditLog(ctx context.Context, f AuditFilter) ([]Activity, int, error) {
	where, args := f.where()
	total, err := q.countRows(ctx, ` FROM activity_log`+where, args)
	if err != nil {
		return nil, 0, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	rows, err := q.c.QueryContext(ctx, `SELECT id, at, action, actor_type, actor_id, actor_name, target_type, target_id, detail,
		request_id, ip_hash, user_agent FROM activity_log`+where+listOrder(f.Oldest, "id")+` LIMIT ? OFFSET ?`,
		append(args, limit, f.Offset)...)
	out, err := collect(rows, err, scanActivity)
	return out, total, err
}

// AuditFile is the stored scope of an audit report.
type AuditFile struct {
	ID        int64
	Channel   string
	Market    string
	Start     time.Time
	End       time.Time
	CreatedAt time.Time
	CreatedBy string
}

// CreateAuditFile stores a report scope stamped q.Now.
func (q *Tx) CreateAuditFile(ctx context.Context, f AuditFile) (AuditFile, error) {
	f.CreatedAt = Time(Ms(q.Now))
	res, err := q.c.ExecContext(ctx, `INSERT INTO audit_files (channel, market, start_at, end_at, created_at, created_by)
		VALUES (?, ?, ?, ?, ?, ?)`, f.Channel, f.Market, Ms(f.Start), Ms(f.End), Ms(f.CreatedAt), f.CreatedBy)
	if err != nil {
		return f, fmt.Errorf("store: create audit file: %w", translate(err))
	}
	f.ID, err = res.LastInsertId()
	return f, err
}

// AuditFileByID reads one report scope.
func (q *Q) AuditFileByID(ctx context.Context, id int64) (AuditFile, error) {
	var f AuditFile
	var start, end, created int64
	err := q.c.QueryRowContext(ctx, `SELECT id, channel, market, start_at, end_at, created_at, created_by FROM audit_files
		WHERE id = ?`, id).Scan(&f.ID, &f.Channel, &f.Market, &start, &end, &created, &f.CreatedBy)
	f.Start, f.End, f.CreatedAt = Time(start), Time(end), Time(created)
	return f, translate(err)
}

// AuditReview is a review of an audit file with the facts of how it was
// collected: the channel code, the kind of the token it was written with and the
// order number behind it (empty for imported reviews).
type AuditReview struct {
	Review
	ChannelCode string
	TokenKind   string
	OrderRef    string
	OrderErased bool
}

// AuditReviews lists the reviews submitted in [start, end) of the channels (every
// channel when channelIDs is empty), by id.
func (q *Q) AuditReviews(ctx context.Context, channelIDs []int64, start, end time.Time) ([]AuditReview, error) {
	ids := "["
	for i, id := range channelIDs {
		if i > 0 {
			ids += ","
		}
		ids += fmt.Sprint(id)
	}
	ids += "]"
	rows, err := q.c.QueryContext(ctx, `SELECT `+prefixCols("r.", qReviewCols)+`, c.code, coalesce(t.kind, ''),
		coalesce(o.external_id, ''), o.erased_at IS NOT NULL
		FROM reviews r JOIN channels c ON c.id = r.channel_id
		LEFT JOIN tokens t ON t.id = r.token_id LEFT JOIN orders o ON o.id = r.order_id
		WHERE r.submitted_at >= ? AND r.submitted_at < ?
		  AND (json_array_length(?) = 0 OR r.channel_id IN (SELECT value FROM json_each(?)))
		ORDER BY r.id`, Ms(start), Ms(end), ids, ids)
	return collect(rows, err, func(sc scanner) (AuditReview, error) {
		var a AuditReview
		var erased sql.NullBool
		r, err := scanReview(scanFunc(func(dest ...any) error {
			return sc.Scan(append(dest, &a.ChannelCode, &a.TokenKind, &a.OrderRef, &erased)...)
		}))
		a.Review, a.OrderErased = r, erased.Bool
		return a, err
	})
}

// scanFunc adapts a function to scanner, to scan extra columns after a row type's.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// prefixCols prefixes every column of a comma-separated column list with p ("r.").
func prefixCols(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// ChecksOfReviews lists the automatic check results of the reviews, by review and id.
func (q *Q) ChecksOfReviews(ctx context.Context, reviewIDs []int64) ([]ReviewCheck, error) {
	return collectIn(ctx, q, `SELECT `+qReviewCheckCols+` FROM review_checks WHERE review_id IN `, reviewIDs,
		` ORDER BY review_id, id`, scanReviewCheck)
}

// EventsOfReviews lists the history entries of the reviews, by review and id.
func (q *Q) EventsOfReviews(ctx context.Context, reviewIDs []int64) ([]ReviewEvent, error) {
	return collectIn(ctx, q, `SELECT `+qReviewEventCols+` FROM review_history WHERE review_id IN `, reviewIDs,
		` ORDER BY review_id, id`, scanReviewEvent)
}

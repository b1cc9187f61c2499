package store

import (
	"context"
	"fmt"
	"time"
)

// IngestRequest is one order or delivery transfer request, accepted or refused.
type IngestRequest struct {
	ID      int64
	At      time.Time
	Channel string // channel code as sent; empty when unknown
	Kind    string // order or delivery
	Status  int    // HTTP status of the answer
	Error   string // "error / detail" of a refused request; empty when accepted
	Records int
	ActorID string
}

// IngestDay is the request count of one UTC day.
type IngestDay struct {
	Date     time.Time
	Requests int
	Refused  int
}

// IngestRetention is how long transfer request rows are kept.
const IngestRetention = 30 * 24 * time.Hour

// AddIngestRequest records one transfer request at q.Now. Every 256th row also
// prunes rows older than IngestRetention, so the table stays small without a job.
func (q *Tx) AddIngestRequest(ctx context.Context, r IngestRequest) error {
	res, err := q.c.ExecContext(ctx, `INSERT INTO ingest_requests (at, channel, kind, status, error, records, actor_id)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, Ms(q.Now), r.Channel, r.Kind, r.Status, r.Error, r.Records, r.ActorID)
	if err != nil {
		return fmt.Errorf("store: add ingest request: %w", translate(err))
	}
	if id, _ := res.LastInsertId(); id%256 == 0 {
		if _, err := q.c.ExecContext(ctx, `DELETE FROM ingest_requests WHERE at < ?`, Ms(q.Now.Add(-IngestRetention))); err != nil {
			return fmt.Errorf("store: prune ingest requests: %w", translate(err))
		}
	}
	return nil
}

// IngestDaily counts requests and refused requests (status 400 and above) per UTC
// day from since on, for one channel code or, when channel is empty, for all
// requests. Days without requests are missing from the answer.
func (q *Q) IngestDaily(ctx context.Context, since time.Time, channel string) ([]IngestDay, error) {
	const day = 86400000
	rows, err := q.c.QueryContext(ctx, `SELECT at / ? AS d, count(*), coalesce(sum(status >= 400), 0) FROM ingest_requests
		WHERE at >= ? AND (? = '' OR channel = ?) GROUP BY d ORDER BY d`, day, Ms(since), channel, channel)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []IngestDay
	for rows.Next() {
		var d int64
		var v IngestDay
		if err := rows.Scan(&d, &v.Requests, &v.Refused); err != nil {
			return nil, err
		}
		v.Date = Time(d * day)
		out = append(out, v)
	}
	return out, translate(rows.Err())
}

// RecentIngestRequests lists the newest transfer requests across all channels.
func (q *Q) RecentIngestRequests(ctx context.Context, limit int) ([]IngestRequest, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT id, at, channel, kind, status, error, records, actor_id FROM ingest_requests
		ORDER BY at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []IngestRequest
	for rows.Next() {
		var r IngestRequest
		var at int64
		if err := rows.Scan(&r.ID, &at, &r.Channel, &r.Kind, &r.Status, &r.Error, &r.Records, &r.ActorID); err != nil {
			return nil, err
		}
		r.At = Time(at)
		out = append(out, r)
	}
	return out, translate(rows.Err())
}

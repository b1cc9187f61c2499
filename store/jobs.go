package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// JobRun is one recorded run of a job.
type JobRun struct {
	ID         int64
	Job        string
	Trigger    string
	StartedAt  time.Time
	FinishedAt time.Time
	Outcome    string // running, ok, error, skipped
	Detail     string
}

// StartJobRun records the start of a run.
func (q *Tx) StartJobRun(ctx context.Context, job, trigger string) (int64, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO job_runs (job, trigger, started_at) VALUES (?, ?, ?)`, job, trigger, Ms(q.Now))
	if err != nil {
		return 0, fmt.Errorf("store: start job run: %w", translate(err))
	}
	return res.LastInsertId()
}

// FinishJobRun records the end and outcome of a run.
func (q *Tx) FinishJobRun(ctx context.Context, id int64, outcome, detail string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE job_runs SET finished_at = ?, outcome = ?, detail = ? WHERE id = ?`, Ms(q.Now), outcome, detail, id)
	return translate(err)
}

// LastJobRuns returns the latest run of each job.
func (q *Q) LastJobRuns(ctx context.Context) (map[string]JobRun, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT id, job, trigger, started_at, finished_at, outcome, detail FROM job_runs
		WHERE id IN (SELECT max(id) FROM job_runs GROUP BY job)`)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string]JobRun{}
	for rows.Next() {
		var r JobRun
		var started int64
		var finished sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Job, &r.Trigger, &started, &finished, &r.Outcome, &r.Detail); err != nil {
			return nil, err
		}
		r.StartedAt = Time(started)
		r.FinishedAt = NullTime(finished)
		out[r.Job] = r
	}
	return out, rows.Err()
}

// ClaimLease takes the named lease for holder until the given time when it is free
// or expired (or already held by holder). The UPDATE/INSERT is one statement under
// SQLite's write lock, so two processes never both get it.
func (q *Tx) ClaimLease(ctx context.Context, name, holder string, until time.Time) (bool, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, until = excluded.until
		WHERE leases.until < ? OR leases.holder = excluded.holder`, name, holder, Ms(until), Ms(q.Now))
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReleaseLease gives a lease back.
func (q *Tx) ReleaseLease(ctx context.Context, name, holder string) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder)
	return translate(err)
}

// DeleteJobRunsBefore removes run records that started before t.
func (q *Tx) DeleteJobRunsBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := q.c.ExecContext(ctx, `DELETE FROM job_runs WHERE started_at < ? AND outcome != 'running'`, Ms(t))
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

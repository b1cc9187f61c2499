// Package jobs runs reviewd's background jobs: robfig/cron inside `serve`, and the
// same runner behind `reviewd jobs run`. A job finds its work from database state and
// claims it atomically, so two runners (serve and a console run) never do the same
// work twice and a crash mid-run is harmless.
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"reviewd/store"
)

// Job is one named unit of background work. Run does the work due at now and returns
// a short summary for the run record.
type Job interface {
	Name() string
	Run(ctx context.Context, now time.Time) (string, error)
}

// Entry is a job with its cron schedule.
type Entry struct {
	Job      Job
	Schedule string
}

// Runner runs jobs on schedule and on demand, recording every run.
type Runner struct {
	DB      *store.DB
	Log     *slog.Logger
	Timeout time.Duration
	// Observe, when set, is told about every recorded run: the job, its outcome
	// (ok, error or skipped) and how long it took.
	Observe func(job, outcome string, d time.Duration)

	mu      sync.Mutex
	entries map[string]Entry
	running map[string]bool
	cron    *cron.Cron
	root    context.Context
	cancel  context.CancelFunc
}

// NewRunner builds a runner over the given entries.
func NewRunner(db *store.DB, log *slog.Logger, entries ...Entry) *Runner {
	if log == nil {
		log = slog.Default()
	}
	r := &Runner{DB: db, Log: log, Timeout: 30 * time.Minute, entries: map[string]Entry{}, running: map[string]bool{}}
	for _, e := range entries {
		r.entries[e.Job.Name()] = e
	}
	return r
}

// Names lists the job names in alphabetical order.
func (r *Runner) Names() []string {
	var out []string
	for n := range r.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Schedule returns a job's cron schedule.
func (r *Runner) Schedule(name string) string { return r.entries[name].Schedule }

// ErrUnknownJob is returned for a name that is not a job.
type ErrUnknownJob string

func (e ErrUnknownJob) Error() string { return fmt.Sprintf("unknown job %q", string(e)) }

// RunNow runs one job once as if the time were now, recording the run. A run of the
// same job already going on in this process is skipped (and recorded as skipped).
func (r *Runner) RunNow(ctx context.Context, name string, now time.Time, trigger string) (store.JobRun, error) {
	e, ok := r.entries[name]
	if !ok {
		return store.JobRun{}, ErrUnknownJob(name)
	}
	run := store.JobRun{Job: name, Trigger: trigger}
	r.mu.Lock()
	busy := r.running[name]
	if !busy {
		r.running[name] = true
	}
	r.mu.Unlock()
	if err := r.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		run.ID, err = tx.StartJobRun(ctx, name, trigger)
		return err
	}); err != nil {
		return run, err
	}
	start := time.Now()
	var detail string
	var err error
	if busy {
		run.Outcome, detail = "skipped", "already running"
	} else {
		defer func() {
			r.mu.Lock()
			delete(r.running, name)
			r.mu.Unlock()
		}()
		detail, err = r.safeRun(ctx, e.Job, now)
		run.Outcome = "ok"
		if err != nil {
			run.Outcome = "error"
			detail = err.Error()
		}
	}
	run.Detail = detail
	took := time.Since(start)
	if r.Observe != nil {
		r.Observe(name, run.Outcome, took)
	}
	r.Log.Info("job run", "job", name, "trigger", trigger, "outcome", run.Outcome, "detail", detail, "duration_ms", took.Milliseconds())
	if ferr := r.DB.WithTx(context.WithoutCancel(ctx), func(tx *store.Tx) error {
		return tx.FinishJobRun(ctx, run.ID, run.Outcome, detail)
	}); ferr != nil && err == nil {
		err = ferr
	}
	return run, err
}

func (r *Runner) safeRun(ctx context.Context, j Job, now time.Time) (detail string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	return j.Run(ctx, now)
}

// Start schedules every job with cron until Stop.
func (r *Runner) Start(ctx context.Context) error {
	r.root, r.cancel = context.WithCancel(ctx)
	r.cron = cron.New(cron.WithChain(cron.Recover(cron.DiscardLogger)))
	for _, name := range r.Names() {
		e := r.entries[name]
		if e.Schedule == "" {
			continue
		}
		name := name
		if _, err := r.cron.AddFunc(e.Schedule, func() {
			if _, err := r.RunNow(r.root, name, r.DB.Now(), "cron"); err != nil {
				r.Log.Warn("job failed", "job", name, "err", err)
			}
		}); err != nil {
			return fmt.Errorf("jobs: schedule %s: %w", name, err)
		}
	}
	r.cron.Start()
	return nil
}

// Stop cancels running jobs and waits for them to end.
func (r *Runner) Stop(ctx context.Context) {
	if r.cron == nil {
		return
	}
	r.cancel()
	done := r.cron.Stop()
	select {
	case <-done.Done():
	case <-ctx.Done():
	}
}

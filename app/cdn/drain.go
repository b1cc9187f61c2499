package cdn

import (
	"context"
	"log/slog"
	"time"

	"reviewd/store"
)

// drainBatch is the number of queued products looked at per round.
const drainBatch = 1000

// maxBackoff bounds the wait after failed attempts.
const maxBackoff = 10 * time.Minute

// Drainer sends the queued purges (cdn_purges) by Purger; with no Purger it
// clears the queue.
type Drainer struct {
	DB       *store.DB
	Purger   Purger
	Log      *slog.Logger
	Interval time.Duration
}

// Run drains the queue every Interval until ctx ends.
func (d *Drainer) Run(ctx context.Context) {
	iv := d.Interval
	if iv <= 0 {
		iv = DefaultInterval
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		if _, err := d.Drain(ctx); err != nil && ctx.Err() == nil && d.Log != nil {
			d.Log.Warn("cdn purge", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Backoff is the wait after the given number of failed attempts: 1s doubling,
// at most ten minutes.
func Backoff(attempts int) time.Duration {
	if attempts > 10 {
		return maxBackoff
	}
	return min(time.Second<<attempts, maxBackoff)
}

// Drain sends the purges that are due, in batches, and returns how many tags went
// out. A failed batch is held back by Backoff and its error returned after the
// other batches were tried.
func (d *Drainer) Drain(ctx context.Context) (int, error) {
	due, err := d.DB.DueCDNPurges(ctx, d.DB.Now(), drainBatch)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	if d.Purger == nil {
		return 0, d.DB.CDNPurgesSent(ctx, due)
	}
	size := d.Purger.Batch()
	var firstErr error
	sent := 0
	var batch []store.CDNPurge
	var tags []string
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if err := d.Purger.Purge(ctx, tags); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			attempts := 0
			for _, p := range batch {
				attempts = max(attempts, p.Attempts)
			}
			if err := d.DB.CDNPurgesFailed(context.WithoutCancel(ctx), batch, d.DB.Now().Add(Backoff(attempts))); err != nil && firstErr == nil {
				firstErr = err
			}
		} else {
			sent += len(tags)
			if err := d.DB.CDNPurgesSent(context.WithoutCancel(ctx), batch); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		batch, tags = nil, nil
	}
	for _, p := range due {
		t := AllTag
		if p.Scope != "" || p.ProductKey != "" {
			t = ProductTag(p.Scope, p.ProductKey)
		}
		batch, tags = append(batch, p), append(tags, t)
		if len(tags) >= size {
			flush()
		}
	}
	flush()
	return sent, firstErr
}

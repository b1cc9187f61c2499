package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// Followers (docs/high-availability.md). A follower's database is restored from
// the replica and then kept up to date by Litestream's follow mode, which polls
// the replica for new LTX files and writes their pages into the file under
// SQLite's own locks. That runs in a child process (`reviewd replica follow`):
// the locks are POSIX record locks, which do not hold between connections of one
// process, so the serving process only reads.

// RestoreForFollow restores the data folder p from the replica (as Restore) and
// prepares the database for follow mode: the position file Litestream resumes
// from, and the rollback-journal mode its page writes keep (the serving process
// opens the file read-only, so it must not be in WAL mode).
func RestoreForFollow(ctx context.Context, c Config, p Paths, log *slog.Logger) (Restored, error) {
	res, err := Restore(ctx, c, p, time.Time{}, log)
	if err != nil {
		return res, err
	}
	if err := litestream.WriteTXIDFile(p.DB, ltx.TXID(res.TXID)); err != nil {
		return res, fmt.Errorf("replica: follow position: %w", err)
	}
	return res, rollbackJournal(p.DB)
}

// rollbackJournal sets the file format bytes of the database header to the
// rollback journal (as Litestream's follow mode writes page 1).
func rollbackJournal(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte{1, 1}, 18); err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	return f.Sync()
}

// Follow applies the replica's new transactions to the database at db every
// interval until ctx ends. db must have been prepared by RestoreForFollow (or
// followed before): Litestream resumes from its position file.
func Follow(ctx context.Context, c Config, db string, interval time.Duration, log *slog.Logger) error {
	t, err := openTarget(ctx, c)
	if err != nil {
		return err
	}
	rep := litestream.NewReplicaWithClient(nil, t.client)
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = db
	opt.Follow = true
	opt.FollowInterval = interval
	if err := rep.Restore(ctx, opt); err != nil {
		return fmt.Errorf("replica: follow: %w", err)
	}
	return nil
}

// Applied is the last replica transaction applied to a follower's database.
func Applied(db string) (uint64, error) {
	txid, err := litestream.ReadTXIDFile(db)
	return uint64(txid), err
}

// Position is the replica's newest transaction and when the replica received it.
func Position(ctx context.Context, c Config) (txid uint64, at time.Time, err error) {
	t, err := openTarget(ctx, c)
	if err != nil {
		return 0, time.Time{}, err
	}
	return position(ctx, t)
}

func position(ctx context.Context, t *target) (txid uint64, at time.Time, err error) {
	for level := 0; level <= litestream.SnapshotLevel; level++ {
		info, err := litestream.NewReplicaWithClient(nil, t.client).MaxLTXFileInfo(ctx, level)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, time.Time{}, fmt.Errorf("replica: position: %w", err)
		}
		if uint64(info.MaxTXID) > txid {
			txid, at = uint64(info.MaxTXID), info.CreatedAt.UTC()
		}
	}
	return txid, at, nil
}

// Lag measures how far a follower is behind the replica: the time since it was
// last seen holding every transaction the replica held. Check is called every
// interval; Lag reads the last measure.
type Lag struct {
	c      Config
	db     string
	now    func() time.Time
	t      *target
	mu     sync.Mutex
	caught time.Time // last time applied >= the replica's position
	err    error
}

// NewLag measures the lag of the follower database db against c's replica. The
// follower counts as caught up when it starts (it was just restored).
func NewLag(ctx context.Context, c Config, db string) (*Lag, error) {
	t, err := openTarget(ctx, c)
	if err != nil {
		return nil, err
	}
	return &Lag{c: c, db: db, now: time.Now, t: t, caught: time.Now()}, nil
}

// Check compares the follower's position with the replica's once.
func (l *Lag) Check(ctx context.Context) error {
	asked := l.now()
	txid, _, err := position(ctx, l.t)
	if err == nil {
		var applied uint64
		if applied, err = Applied(l.db); err == nil && applied >= txid {
			l.mu.Lock()
			l.caught = asked
			l.mu.Unlock()
		}
	}
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
	return err
}

// Run checks every interval until ctx ends.
func (l *Lag) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		_ = l.Check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Lag is the time since the follower last held everything the replica held.
func (l *Lag) Lag() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(l.now().Sub(l.caught), 0)
}

// Promotion (reviewd promote) turns a follower's copy into a primary's database.

// ErrPrimaryWrites refuses a promotion while the replica still moves.
var ErrPrimaryWrites = errors.New("replica: the primary still writes to the replica")

// Fence checks, twice across quiet, that nothing writes to the replica any more:
// the position must not move between the two looks, and the newest transaction
// must be at least quiet old. It returns the position the copy must reach.
func Fence(ctx context.Context, c Config, quiet time.Duration) (txid uint64, at time.Time, err error) {
	t, err := openTarget(ctx, c)
	if err != nil {
		return 0, time.Time{}, err
	}
	tx1, at1, err := position(ctx, t)
	if err != nil {
		return 0, time.Time{}, err
	}
	select {
	case <-ctx.Done():
		return 0, time.Time{}, ctx.Err()
	case <-time.After(quiet):
	}
	tx2, at2, err := position(ctx, t)
	if err != nil {
		return 0, time.Time{}, err
	}
	if tx2 != tx1 || !at2.Equal(at1) {
		return tx2, at2, fmt.Errorf("%w: transaction %d became %d within %s; stop the old primary first", ErrPrimaryWrites, tx1, tx2, quiet)
	}
	if age := time.Since(at2); age < quiet {
		return tx2, at2, fmt.Errorf("%w: its newest transaction %d is %s old, under %s; stop the old primary first", ErrPrimaryWrites, tx2, age.Round(time.Millisecond), quiet)
	}
	return tx2, at2, nil
}

// CatchUp applies the replica's transactions to the follower's database db until
// it holds txid, or timeout passes.
func CatchUp(ctx context.Context, c Config, db string, txid uint64, interval, timeout time.Duration) error {
	if applied, err := Applied(db); err != nil {
		return err
	} else if applied >= txid {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Follow(ctx, c, db, interval, nil) }()
	t := time.NewTicker(interval / 2)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			if applied, _ := Applied(db); applied >= txid {
				return nil
			}
			if err == nil {
				err = ctx.Err()
			}
			return fmt.Errorf("replica: catch up to transaction %d: %w", txid, err)
		case <-t.C:
			if applied, _ := Applied(db); applied >= txid {
				cancel()
				<-done
				return nil
			}
		}
	}
}

// EndFollow removes the follow position file: the database is a primary's now.
func EndFollow(db string) error {
	if err := os.Remove(litestream.TXIDPath(db)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("replica: %w", err)
	}
	return nil
}

package replica

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// Followers (docs/high-availability.md). A follower's database is restored from
// the replica and then kept up to date by Follow, which polls the replica for new
// LTX files and writes their pages into the file under SQLite's own locks. That
// runs in a child process (`reviewd replica follow`):
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
// followed before): it resumes from the position file.
//
// Litestream v0.5.18's own follow mode (RestoreOptions.Follow) writes an LTX
// file's pages into the database but changes the file change counter only when
// the file carries page 1, which a WAL-mode primary rarely rewrites: readers in
// other processes keep serving their cached pages. This loop applies the same
// level-0 LTX files under SQLite's exclusive lock and always moves the change
// counter before releasing it, so every reader sees each transaction whole.
func Follow(ctx context.Context, c Config, db string, interval time.Duration, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	t, err := openTarget(ctx, c)
	if err != nil {
		return err
	}
	txid, err := Applied(db)
	if err != nil || txid == 0 {
		return fmt.Errorf("replica: follow %s: no follow position (restore it for following first)", db)
	}
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("replica: follow: %w", err)
	}
	defer f.Close()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		next, err := applyNew(ctx, t, f, ltx.TXID(txid))
		if uint64(next) > txid {
			if werr := litestream.WriteTXIDFile(db, next); werr != nil {
				return fmt.Errorf("replica: follow position: %w", werr)
			}
			txid = uint64(next)
		}
		if err != nil && ctx.Err() == nil {
			log.Warn("follower: applying the replica's transactions", "err", err, "txid", txid)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// applyNew applies the level-0 LTX files after txid, in order, and returns the
// last transaction applied. Where level 0 no longer holds the next transactions
// (Litestream deletes level-0 files some minutes after compacting them), a
// compacted file of a higher level that covers them is applied instead: it holds
// the final state of every page changed in its range.
func applyNew(ctx context.Context, t *target, f *os.File, txid ltx.TXID) (ltx.TXID, error) {
	itr, err := t.client.LTXFiles(ctx, 0, txid+1, false)
	if err != nil {
		return txid, err
	}
	defer itr.Close()
	seen := false
	for itr.Next() {
		info := itr.Item()
		seen = true
		if info.MaxTXID <= txid {
			continue
		}
		if info.MinTXID > txid+1 {
			if txid, err = bridge(ctx, t, f, txid); err != nil {
				return txid, err
			}
			if info.MaxTXID <= txid {
				continue
			}
			if info.MinTXID > txid+1 {
				return txid, fmt.Errorf("transactions %s to %s are no longer in the replica; restore this follower again", txid+1, info.MinTXID-1)
			}
		}
		if err := applyFile(ctx, t, f, info); err != nil {
			return txid, err
		}
		txid = info.MaxTXID
	}
	if err := itr.Err(); err != nil {
		return txid, err
	}
	if !seen {
		return bridge(ctx, t, f, txid)
	}
	return txid, nil
}

// bridge applies, from the compacted levels, the file reaching furthest past txid
// among those that start at or before txid+1; txid is unchanged when none does.
func bridge(ctx context.Context, t *target, f *os.File, txid ltx.TXID) (ltx.TXID, error) {
	var best *ltx.FileInfo
	for level := 1; level < litestream.SnapshotLevel; level++ {
		itr, err := t.client.LTXFiles(ctx, level, 0, false)
		if err != nil {
			return txid, err
		}
		for itr.Next() {
			info := itr.Item()
			if info.MinTXID <= txid+1 && info.MaxTXID > txid && (best == nil || info.MaxTXID > best.MaxTXID) {
				c := *info
				best = &c
			}
		}
		err = itr.Err()
		itr.Close()
		if err != nil {
			return txid, err
		}
	}
	if best == nil {
		return txid, nil
	}
	if err := applyFile(ctx, t, f, best); err != nil {
		return txid, err
	}
	return best.MaxTXID, nil
}

// SQLite's lock bytes (os_unix.c): a writer holds the pending byte and the shared
// range exclusively.
const (
	pendingByte = 0x40000000
	sharedFirst = pendingByte + 2
	sharedSize  = 510
)

func fileLock(f *os.File, typ int16, start, n int64) error {
	lk := syscall.Flock_t{Type: typ, Whence: 0, Start: start, Len: n}
	return syscall.FcntlFlock(f.Fd(), syscall.F_SETLKW, &lk)
}

// applyFile writes one LTX file's pages into f under SQLite's exclusive lock,
// sets the rollback-journal format bytes and moves the change counter.
func applyFile(ctx context.Context, t *target, f *os.File, info *ltx.FileInfo) error {
	rc, err := t.client.OpenLTXFile(ctx, info.Level, info.MinTXID, info.MaxTXID, 0, 0)
	if err != nil {
		return err
	}
	defer rc.Close()
	// Read the whole file first: the lock is held only while writing.
	dec := ltx.NewDecoder(rc)
	if err := dec.DecodeHeader(); err != nil {
		return err
	}
	hdr := dec.Header()
	type page struct {
		no   uint32
		data []byte
	}
	var pages []page
	for {
		var ph ltx.PageHeader
		data := make([]byte, hdr.PageSize)
		if err := dec.DecodePage(&ph, data); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		pages = append(pages, page{ph.Pgno, data})
	}
	if err := dec.Close(); err != nil {
		return err
	}
	if err := fileLock(f, syscall.F_WRLCK, pendingByte, 1); err != nil {
		return err
	}
	defer fileLock(f, syscall.F_UNLCK, pendingByte, 1)
	if err := fileLock(f, syscall.F_WRLCK, sharedFirst, sharedSize); err != nil {
		return err
	}
	defer fileLock(f, syscall.F_UNLCK, sharedFirst, sharedSize)
	for _, p := range pages {
		if _, err := f.WriteAt(p.data, int64(p.no-1)*int64(hdr.PageSize)); err != nil {
			return err
		}
	}
	if hdr.Commit > 0 {
		if err := f.Truncate(int64(hdr.Commit) * int64(hdr.PageSize)); err != nil {
			return err
		}
	}
	var h [28]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return err
	}
	h[18], h[19] = 1, 1
	binary.BigEndian.PutUint32(h[24:], binary.BigEndian.Uint32(h[24:])+1)
	if _, err := f.WriteAt(h[18:28], 18); err != nil {
		return err
	}
	return f.Sync()
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

// followLockFile, in the data folder, is held (flock) by a serving follower, so
// promote can tell it is still running.
const followLockFile = "follower.lock"

// ErrFollowerRunning refuses a promotion while the follower still serves.
var ErrFollowerRunning = errors.New("replica: the follower still runs on this data folder; stop it first")

// HoldFollowLock takes the follower's lock of the data folder dir; release
// drops it. It fails with ErrFollowerRunning when another process holds it.
func HoldFollowLock(dir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, followLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrFollowerRunning
		}
		return nil, fmt.Errorf("replica: %w", err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

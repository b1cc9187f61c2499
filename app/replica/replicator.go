package replica

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/litestream"
)

// Paths are the parts of one data folder a replica covers.
type Paths struct {
	DB    string // the SQLite file
	Media string // the media folder
	Key   string // the master key
}

// Replicator streams one data folder to its replica while serve runs: the database
// through Litestream (every SyncInterval), media files and the master key through
// the media mirror (every MediaInterval).
type Replicator struct {
	t      *target
	store  *litestream.Store
	db     *litestream.DB
	mirror *mirror
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}
	// synced is when a pass last shipped everything (database and media), unix
	// nanoseconds; LastSync reads it.
	synced atomic.Int64
}

// LastSync is when the replica last held everything written before it (the
// database synced and a media pass done); ok is always true (a replica is
// configured). The owner alerts name a replica lagging behind.
func (r *Replicator) LastSync() (time.Time, bool) {
	return time.Unix(0, r.synced.Load()), true
}

// ErrOtherInstallation is returned by Start when the replica holds another master
// key: it belongs to another installation, and streaming into it would mix the two.
var ErrOtherInstallation = errors.New("replica: the replica holds another installation's master key; restore from it (reviewd restore --from-replica) or choose another replica.url")

// Start opens the replica and begins streaming. The database must exist with its
// schema applied. Close stops it after one last sync.
func Start(ctx context.Context, c Config, p Paths, log *slog.Logger) (*Replicator, error) {
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "replica")
	if w := c.EndpointWarning(); w != "" {
		log.Warn(w)
	}
	t, err := openTarget(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := claimKey(ctx, t, p.Key); err != nil {
		return nil, err
	}
	db := litestream.NewDB(p.DB)
	db.MonitorInterval = c.SyncInterval
	// Checkpoints are Litestream's: it holds a read lock so the WAL is not reset
	// under it, checkpoints passively at 1,000 pages or every minute (fine-grained
	// restore points) and truncates the WAL past ~500 MB. reviewd's own connections
	// only ever checkpoint passively (SQLite's autocheckpoint), which the lock keeps
	// from resetting the WAL before Litestream copied it.
	db.MinCheckpointPageN = litestream.DefaultMinCheckpointPageN
	db.CheckpointInterval = litestream.DefaultCheckpointInterval
	db.TruncatePageN = litestream.DefaultTruncatePageN
	rep := litestream.NewReplicaWithClient(db, t.client)
	rep.SyncInterval = c.SyncInterval
	db.Replica = rep
	st := litestream.NewStore([]*litestream.DB{db}, litestream.DefaultCompactionLevels)
	st.SnapshotInterval = c.SnapshotInterval
	st.SnapshotRetention = c.Retention
	st.Logger = log
	db.SetLogger(log)
	if err := st.Open(ctx); err != nil {
		return nil, fmt.Errorf("replica: start: %w", err)
	}
	// Litestream initialises a database at its first sync: it compares it with the
	// replica (a restored database continues the replica's history) and writes the
	// first snapshot. Done here, before serve accepts a write, so that a write
	// followed by a stop within the first sync interval is shipped too.
	if err := db.SyncAndWait(ctx); err != nil {
		_ = st.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("replica: first sync: %w", err)
	}
	r := &Replicator{t: t, store: st, db: db, log: log, done: make(chan struct{}),
		mirror: &mirror{objects: t.objects, dir: p.Media, log: log}}
	mctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.synced.Store(time.Now().UnixNano())
	go func() {
		defer close(r.done)
		tick := time.NewTicker(c.MediaInterval)
		defer tick.Stop()
		for {
			if err := r.mirror.pass(mctx); err != nil && mctx.Err() == nil {
				log.Warn("media mirror pass failed; retrying at the next interval", "err", err)
			} else if err == nil && db.SyncAndWait(mctx) == nil {
				r.synced.Store(time.Now().UnixNano())
			}
			select {
			case <-mctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	log.Info("replication started", "replica", t.loc.String(), "sync_interval", c.SyncInterval, "media_interval", c.MediaInterval)
	return r, nil
}

// Close ships what is left (database and media) and stops. ctx bounds the wait.
func (r *Replicator) Close(ctx context.Context) error {
	r.cancel()
	<-r.done
	mErr := r.mirror.pass(ctx)
	syncErr := r.db.SyncAndWait(ctx)
	dbErr := r.store.Close(ctx)
	if err := errors.Join(mErr, syncErr, dbErr); err != nil {
		return fmt.Errorf("replica: close: %w", err)
	}
	r.log.Info("replication stopped", "replica", r.t.loc.String())
	return nil
}

// claimKey puts the master key into a replica that has none, and refuses a replica
// that holds a different one.
func claimKey(ctx context.Context, t *target, keyFile string) error {
	local, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("replica: master key: %w", err)
	}
	rc, err := t.objects.get(ctx, keyObject)
	switch {
	case errors.Is(err, errNoObject):
		f, err := os.Open(keyFile)
		if err != nil {
			return fmt.Errorf("replica: master key: %w", err)
		}
		defer f.Close()
		return t.objects.put(ctx, keyObject, f, int64(len(local)))
	case err != nil:
		return err
	}
	defer rc.Close()
	remote, err := io.ReadAll(io.LimitReader(rc, 1<<16))
	if err != nil {
		return fmt.Errorf("replica: read master key: %w", err)
	}
	if !bytes.Equal(bytes.TrimSpace(remote), bytes.TrimSpace(local)) {
		return ErrOtherInstallation
	}
	return nil
}

// mirror keeps media/ of the replica equal to the media folder: new and changed
// files are uploaded, files gone from the folder (removed or erased) are deleted.
// Files whose name starts with a dot are uploads in progress and are skipped. Files
// are compared by name and size: reviewd writes a media file once, under a new name.
type mirror struct {
	objects objects
	dir     string
	log     *slog.Logger

	mu     sync.Mutex
	remote map[string]int64 // nil until listed once
}

// pass runs one comparison. The replica is listed once per process, then tracked.
func (m *mirror) pass(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.remote == nil {
		remote, err := m.objects.list(ctx, mediaPrefix)
		if err != nil {
			return err
		}
		m.remote = remote
	}
	local, err := localMedia(m.dir)
	if err != nil {
		return err
	}
	var errs []error
	up := 0
	for name, size := range local {
		if rs, ok := m.remote[name]; ok && rs == size {
			continue
		}
		if err := m.upload(ctx, name); err != nil {
			errs = append(errs, err)
			continue
		}
		m.remote[name] = local[name]
		up++
	}
	var gone []string
	for name := range m.remote {
		if _, ok := local[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		if err := m.objects.remove(ctx, gone); err != nil {
			errs = append(errs, err)
		} else {
			for _, n := range gone {
				delete(m.remote, n)
			}
		}
	}
	if up > 0 || len(gone) > 0 {
		m.log.Debug("media mirrored", "uploaded", up, "removed", len(gone))
	}
	return errors.Join(errs...)
}

func (m *mirror) upload(ctx context.Context, name string) error {
	f, err := os.Open(filepath.Join(m.dir, filepath.FromSlash(strings.TrimPrefix(name, mediaPrefix))))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed meanwhile; the next pass deletes it remotely if needed
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return m.objects.put(ctx, name, f, st.Size())
}

// localMedia lists the media folder as object names (media/...) with sizes.
func localMedia(dir string) (map[string]int64, error) {
	out := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if strings.HasPrefix(e.Name(), ".") && p != dir {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out[objectName(mediaPrefix+filepath.ToSlash(rel))] = info.Size()
		return nil
	})
	return out, err
}

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
	"sort"
	"strings"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// Restored describes what Restore wrote.
type Restored struct {
	TXID      uint64    `json:"txid"`      // last database transaction restored
	StateAt   time.Time `json:"state_at"`  // when the replica received that transaction
	Media     int       `json:"media"`     // media files written
	Replica   string    `json:"replica"`   // address, without credentials
	Timestamp time.Time `json:"timestamp"` // the --timestamp asked for (zero: latest)
	Elapsed   float64   `json:"seconds"`   // time taken
}

// ErrEmptyReplica is returned when the replica holds no database.
var ErrEmptyReplica = errors.New("replica: the replica holds no database")

// Restore writes the database (as of at, or the latest state when at is zero), the
// master key and the media files from the replica into p. None of p's files may
// exist; the caller checks that the data folder is empty.
func Restore(ctx context.Context, c Config, p Paths, at time.Time, log *slog.Logger) (Restored, error) {
	start := time.Now()
	if log == nil {
		log = slog.Default()
	}
	t, err := openTarget(ctx, c)
	if err != nil {
		return Restored{}, err
	}
	out := Restored{Replica: t.loc.String(), Timestamp: at}
	plan, err := litestream.CalcRestorePlan(ctx, t.client, 0, at, log)
	if errors.Is(err, litestream.ErrNoSnapshots) || errors.Is(err, litestream.ErrTxNotAvailable) || err == nil && len(plan) == 0 {
		if !at.IsZero() {
			return out, fmt.Errorf("%w at %s", ErrEmptyReplica, at.Format(time.RFC3339))
		}
		return out, ErrEmptyReplica
	} else if err != nil {
		return out, fmt.Errorf("replica: restore plan: %w", err)
	}
	for _, info := range plan {
		if uint64(info.MaxTXID) > out.TXID {
			out.TXID = uint64(info.MaxTXID)
		}
		if info.CreatedAt.After(out.StateAt) {
			out.StateAt = info.CreatedAt.UTC()
		}
	}
	rep := litestream.NewReplicaWithClient(nil, t.client)
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = p.DB
	opt.Timestamp = at
	opt.IntegrityCheck = litestream.IntegrityCheckQuick
	if err := rep.Restore(ctx, opt); err != nil {
		return out, fmt.Errorf("replica: restore database: %w", err)
	}
	os.Remove(litestream.TXIDPath(p.DB)) // only follow mode needs it

	if err := download(ctx, t.objects, keyObject, p.Key, 0o600); errors.Is(err, errNoObject) {
		return out, errors.New("replica: the replica holds no master key (secret.key)")
	} else if err != nil {
		return out, err
	}
	if err := os.MkdirAll(p.Media, 0o750); err != nil {
		return out, fmt.Errorf("replica: %w", err)
	}
	names, err := t.objects.list(ctx, mediaPrefix)
	if err != nil {
		return out, err
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, name := range sorted {
		rel := strings.TrimPrefix(name, mediaPrefix)
		if !safeRel(rel) {
			return out, fmt.Errorf("replica: object %q refused (outside the media folder)", name)
		}
		if err := download(ctx, t.objects, name, filepath.Join(p.Media, filepath.FromSlash(rel)), 0o640); err != nil && !errors.Is(err, errNoObject) {
			return out, err
		}
		out.Media++
	}
	out.Elapsed = time.Since(start).Seconds()
	return out, nil
}

// safeRel accepts a relative slash path without "..", "." or empty elements.
func safeRel(rel string) bool {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, `\`) {
		return false
	}
	for _, el := range strings.Split(rel, "/") {
		if el == "" || el == "." || el == ".." {
			return false
		}
	}
	return true
}

// download copies one object into a new file dst (created with mode, never
// overwriting).
func download(ctx context.Context, o objects, name, dst string, mode os.FileMode) error {
	rc, err := o.get(ctx, name)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	_, err = io.Copy(f, rc)
	if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("replica: write %s: %w", dst, err)
	}
	return os.Chmod(dst, mode) // the umask may have narrowed it
}

// Status is what `reviewd replica status` shows.
type Status struct {
	Replica string `json:"replica"`
	// ReplicaTXID is the newest database transaction in the replica, received at
	// ReplicaAt; LocalTXID the newest one Litestream has prepared locally.
	ReplicaTXID uint64    `json:"replica_txid"`
	ReplicaAt   time.Time `json:"replica_at"`
	OldestAt    time.Time `json:"oldest_at"` // earliest point --timestamp can reach
	LocalTXID   uint64    `json:"local_txid"`
	Behind      uint64    `json:"transactions_behind"`
	// WALPending: the database changed after Litestream last read it (changes not
	// counted in LocalTXID yet).
	WALPending bool `json:"wal_pending"`
	// Media files in the folder and in the replica; Pending are missing from the replica.
	LocalMedia   int  `json:"local_media"`
	ReplicaMedia int  `json:"replica_media"`
	PendingMedia int  `json:"pending_media"`
	KeyPresent   bool `json:"key_present"`
	// Warnings about the replica's configuration (Config.EndpointWarning).
	Warnings []string `json:"warnings"`
}

// walPending reports whether the WAL of db holds frames after the part that
// Litestream's newest local LTX file was made from: writes it has not read yet.
func walPending(db string) bool {
	ldb := litestream.NewDB(db)
	minTXID, maxTXID, err := ldb.MaxLTX()
	if err != nil || maxTXID == 0 {
		return false
	}
	f, err := os.Open(ldb.LTXPath(0, minTXID, maxTXID))
	if err != nil {
		return false
	}
	dec := ltx.NewDecoder(f)
	err = dec.DecodeHeader()
	f.Close()
	if err != nil {
		return false
	}
	hdr := dec.Header()
	wal, err := os.Open(db + "-wal")
	if err != nil {
		return false // no WAL: everything is in the database file
	}
	defer wal.Close()
	var wh [32]byte
	if _, err := wal.ReadAt(wh[:], 0); err != nil {
		return false
	}
	pageSize := int64(binary.BigEndian.Uint32(wh[8:12]))
	salt1, salt2 := binary.BigEndian.Uint32(wh[16:20]), binary.BigEndian.Uint32(wh[20:24])
	next := int64(32) // the WAL was restarted: its first frame is new
	if hdr.WALSalt1 == salt1 && hdr.WALSalt2 == salt2 {
		next = hdr.WALOffset + hdr.WALSize
	} else if hdr.WALSalt1 == 0 && hdr.WALSalt2 == 0 {
		// A snapshot does not say which WAL it read; compare the times instead.
		li, lerr := os.Stat(ldb.LTXPath(0, minTXID, maxTXID))
		wi, werr := wal.Stat()
		return lerr == nil && werr == nil && wi.ModTime().After(li.ModTime())
	}
	var fh [24]byte
	if _, err := wal.ReadAt(fh[:], next); err != nil || pageSize == 0 {
		return false // no frame there
	}
	// A frame belongs to the current WAL when it carries the header's salts.
	return binary.BigEndian.Uint32(fh[8:12]) == salt1 && binary.BigEndian.Uint32(fh[12:16]) == salt2
}

// ReadStatus compares the replica with the data folder p (which may not exist).
func ReadStatus(ctx context.Context, c Config, p Paths) (Status, error) {
	t, err := openTarget(ctx, c)
	if err != nil {
		return Status{}, err
	}
	s := Status{Replica: t.loc.String(), Warnings: []string{}}
	if w := c.EndpointWarning(); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	for level := litestream.SnapshotLevel; level >= 0; level-- {
		itr, err := t.client.LTXFiles(ctx, level, 0, false)
		if err != nil {
			return s, fmt.Errorf("replica: list level %d: %w", level, err)
		}
		for itr.Next() {
			info := itr.Item()
			if uint64(info.MaxTXID) > s.ReplicaTXID {
				s.ReplicaTXID = uint64(info.MaxTXID)
			}
			if info.CreatedAt.After(s.ReplicaAt) {
				s.ReplicaAt = info.CreatedAt.UTC()
			}
			if s.OldestAt.IsZero() || info.CreatedAt.Before(s.OldestAt) {
				s.OldestAt = info.CreatedAt.UTC()
			}
		}
		if err := itr.Close(); err != nil {
			return s, fmt.Errorf("replica: list level %d: %w", level, err)
		}
	}
	if _, err := os.Stat(p.DB); err == nil {
		_, maxTXID, err := litestream.NewDB(p.DB).MaxLTX()
		if err != nil {
			return s, fmt.Errorf("replica: local position: %w", err)
		}
		s.LocalTXID = uint64(maxTXID)
		s.WALPending = walPending(p.DB)
		if s.LocalTXID > s.ReplicaTXID {
			s.Behind = s.LocalTXID - s.ReplicaTXID
		}
	}
	remote, err := t.objects.list(ctx, mediaPrefix)
	if err != nil {
		return s, err
	}
	local, err := localMedia(p.Media)
	if err != nil {
		return s, err
	}
	s.LocalMedia, s.ReplicaMedia = len(local), len(remote)
	for n, size := range local {
		if rs, ok := remote[n]; !ok || rs != size {
			s.PendingMedia++
		}
	}
	if rc, err := t.objects.get(ctx, keyObject); err == nil {
		rc.Close()
		s.KeyPresent = true
	} else if !errors.Is(err, errNoObject) {
		return s, err
	}
	return s, nil
}

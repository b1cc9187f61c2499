// Package brandexport owns the whole-brand archive (GET and POST
// /admin/v1/brand-export, GET /admin/v1/brand-export/<id>/download;
// docs/brand-export.md): a zip of the brand's data as CSV and JSON Lines plus the
// processed media files, built in the background into the data folder, kept for
// Lifetime and then deleted by the cleanup job. It stays available to a frozen or
// closed brand. It imports the kernel and the media store only.
package brandexport

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"reviewd/app/core"
	"reviewd/app/media"
	"reviewd/store"
)

// Lifetime is how long a ready archive can be downloaded.
const Lifetime = 7 * 24 * time.Hour

// staleBuild is how long a build may run before it counts as interrupted (the
// process stopped meanwhile): a new export may then start, and the cleanup job
// marks it failed.
const staleBuild = 6 * time.Hour

// Archive states.
const (
	StateBuilding = "building"
	StateReady    = "ready"
	StateFailed   = "failed"
)

// ErrNotReady is 404 not_found / export_not_ready: the archive is being built,
// failed or expired.
var ErrNotReady = core.E(core.StatusNotFound, "not_found", "export_not_ready")

// Service is the brand-export domain service.
type Service struct {
	DB *store.DB
	// Recorder writes the activity history.
	*core.Recorder
	core.Clock
	Log *slog.Logger
	// Dir is the folder the archives are written to (<data_dir>/exports).
	Dir string
	// Media is where the processed photos and videos are kept; nil: none exported.
	Media media.Store
	// builds tracks the running builds (Stop); stopping cancels them.
	builds   sync.WaitGroup
	mu       sync.Mutex
	stopping bool
	cancels  map[int64]context.CancelFunc
}

// Export is an archive as the admin API shows it. DownloadURL is set once ready.
type Export struct {
	ID          string         `json:"id"`
	State       string         `json:"state"`
	Error       string         `json:"error"`
	Size        int64          `json:"size"`
	SHA256      string         `json:"sha256"`
	Counts      map[string]int `json:"counts"`
	CreatedAt   time.Time      `json:"created_at"`
	ReadyAt     *time.Time     `json:"ready_at"`
	ExpiresAt   time.Time      `json:"expires_at"`
	DownloadURL string         `json:"download_url"`
}

// PublicID is the id of an archive in answers ("bx_<n>").
func PublicID(id int64) string { return "bx_" + strconv.FormatInt(id, 10) }

func parseID(s string) (int64, bool) { return core.ParseID("bx_", s) }

func view(e store.BrandExport) Export {
	v := Export{ID: PublicID(e.ID), State: e.State, Error: e.Error, Size: e.Size, SHA256: e.SHA256, Counts: map[string]int{},
		CreatedAt: e.CreatedAt, ExpiresAt: e.ExpiresAt, ReadyAt: core.OptTime(e.ReadyAt)}
	_ = json.Unmarshal([]byte(e.Counts), &v.Counts)
	if e.State == StateReady {
		v.DownloadURL = "/admin/v1/brand-export/" + v.ID + "/download"
	}
	return v
}

// List lists the archives that have not expired, newest first.
func (s *Service) List(ctx context.Context) ([]Export, error) {
	rows, err := s.DB.Read().BrandExports(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	out := []Export{}
	for _, e := range rows {
		if now.Before(e.ExpiresAt) {
			out = append(out, view(e))
		}
	}
	return out, nil
}

// Start records a new archive and builds it in the background; while one is being
// built (and not interrupted) that one is returned instead (created false).
func (s *Service) Start(ctx context.Context, a *core.Actor) (Export, bool, error) {
	var e store.BrandExport
	created := false
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		rows, err := tx.BrandExports(ctx)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.State == StateBuilding && tx.Now.Sub(r.CreatedAt) < staleBuild {
				e = r
				return nil
			}
		}
		if e, err = tx.CreateBrandExport(ctx, a.ID, tx.Now.Add(Lifetime)); err != nil {
			return err
		}
		created = true
		return s.Record(ctx, tx, a, "brand_export.created", "brand_export", PublicID(e.ID), nil)
	})
	if err != nil {
		return Export{}, false, err
	}
	if created {
		s.run(e)
	}
	return view(e), created, nil
}

// run builds e in a goroutine that Stop can end.
func (s *Service) run(e store.BrandExport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return // left building; the cleanup job marks it interrupted
	}
	ctx, cancel := context.WithCancel(context.Background())
	if s.cancels == nil {
		s.cancels = map[int64]context.CancelFunc{}
	}
	s.cancels[e.ID] = cancel
	s.builds.Add(1)
	go func() {
		defer s.builds.Done()
		defer func() {
			s.mu.Lock()
			delete(s.cancels, e.ID)
			s.mu.Unlock()
			cancel()
		}()
		s.build(ctx, e)
	}()
}

// Wait waits for the running builds to end.
func (s *Service) Wait() { s.builds.Wait() }

// Stop ends the running builds (they are recorded failed: interrupted) and waits
// for them; later Starts record archives but build none. Closing the data folder
// calls it.
func (s *Service) Stop() {
	s.mu.Lock()
	s.stopping = true
	for _, cancel := range s.cancels {
		cancel()
	}
	s.mu.Unlock()
	s.builds.Wait()
}

// Open opens a ready archive for download and records the download. The caller
// closes the file. Errors: 404 not_found (unknown id), 404 not_found /
// export_not_ready (building, failed or expired).
func (s *Service) Open(ctx context.Context, a *core.Actor, publicID string) (*os.File, Export, error) {
	id, ok := parseID(publicID)
	if !ok {
		return nil, Export{}, core.ErrNotFound
	}
	e, err := s.DB.Read().BrandExportByID(ctx, id)
	if err != nil {
		return nil, Export{}, err
	}
	if e.State != StateReady || !s.Now().Before(e.ExpiresAt) {
		return nil, Export{}, ErrNotReady
	}
	f, err := os.Open(filepath.Join(s.Dir, e.File))
	if errors.Is(err, os.ErrNotExist) {
		return nil, Export{}, ErrNotReady
	}
	if err != nil {
		return nil, Export{}, err
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return s.Record(ctx, tx, a, "brand_export.downloaded", "brand_export", publicID,
			map[string]any{"size": e.Size, "sha256": e.SHA256})
	})
	if err != nil {
		f.Close()
		return nil, Export{}, err
	}
	return f, view(e), nil
}

// RemoveExpired deletes the archives past their expiry (file and record) and marks
// builds interrupted longer than staleBuild ago failed; it returns how many
// archives it deleted. The cleanup job runs it.
func (s *Service) RemoveExpired(ctx context.Context, now time.Time) (int, error) {
	rows, err := s.DB.Read().BrandExports(ctx)
	if err != nil {
		return 0, err
	}
	var gone []int64
	for _, e := range rows {
		switch {
		case !now.Before(e.ExpiresAt):
			if e.File != "" {
				if err := os.Remove(filepath.Join(s.Dir, e.File)); err != nil && !errors.Is(err, os.ErrNotExist) {
					return len(gone), err
				}
			}
			_ = os.Remove(filepath.Join(s.Dir, partName(e.ID)))
			gone = append(gone, e.ID)
		case e.State == StateBuilding && now.Sub(e.CreatedAt) >= staleBuild:
			e.State, e.Error = StateFailed, "interrupted"
			if err := s.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.FinishBrandExport(ctx, e) }); err != nil {
				return len(gone), err
			}
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	return len(gone), s.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.DeleteBrandExports(ctx, gone) })
}

func fileName(id int64) string { return PublicID(id) + ".zip" }
func partName(id int64) string { return PublicID(id) + ".zip.part" }

// build writes the archive of e and records the outcome.
func (s *Service) build(ctx context.Context, e store.BrandExport) {
	counts, size, sum, err := s.write(ctx, e.ID)
	switch {
	case err != nil && ctx.Err() != nil:
		_ = os.Remove(filepath.Join(s.Dir, partName(e.ID)))
		e.State, e.Error = StateFailed, "interrupted"
	case err != nil:
		_ = os.Remove(filepath.Join(s.Dir, partName(e.ID)))
		s.Log.Error("brand export failed", "export", PublicID(e.ID), "err", err)
		e.State, e.Error = StateFailed, "build_failed"
	default:
		b, _ := json.Marshal(counts)
		e.State, e.File, e.Size, e.SHA256, e.Counts = StateReady, fileName(e.ID), size, sum, string(b)
	}
	wctx := context.WithoutCancel(ctx) // an interrupted build is still recorded
	err = s.DB.WithTx(wctx, func(tx *store.Tx) error { return tx.FinishBrandExport(wctx, e) })
	if err != nil {
		s.Log.Error("brand export state not saved", "export", PublicID(e.ID), "err", err)
	}
}

// countingHash counts and hashes what is written to the archive file.
type countingHash struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// manifest is manifest.json of an archive.
type manifest struct {
	Format     string            `json:"format"`
	Version    int               `json:"version"`
	ExportID   string            `json:"export_id"`
	CreatedAt  time.Time         `json:"created_at"`
	Datasets   []manifestDataset `json:"datasets"`
	MediaFiles int               `json:"media_files"`
}

type manifestDataset struct {
	Name    string   `json:"name"`
	Rows    int      `json:"rows"`
	Columns []string `json:"columns"`
	Files   []string `json:"files"`
}

// write builds the archive of export id into <Dir>/bx_<id>.zip.part and renames it
// when complete. Every table is read row by row and every media file copied in
// pieces, so memory stays bounded whatever the brand's size.
func (s *Service) write(ctx context.Context, id int64) (map[string]int, int64, string, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, 0, "", err
	}
	part := filepath.Join(s.Dir, partName(id))
	f, err := os.OpenFile(part, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, 0, "", err
	}
	defer f.Close()
	out := &countingHash{w: f, h: sha256.New()}
	zw := zip.NewWriter(out)
	m := manifest{Format: "reviewd-brand-export", Version: 1, ExportID: PublicID(id), CreatedAt: s.Now().UTC()}
	counts := map[string]int{}
	q := s.DB.Read()
	for _, d := range store.ExportDatasets {
		n, err := writeDataset(ctx, zw, q, d)
		if err != nil {
			return nil, 0, "", fmt.Errorf("brandexport: %s: %w", d.Name, err)
		}
		counts[d.Name] = n
		m.Datasets = append(m.Datasets, manifestDataset{Name: d.Name, Rows: n, Columns: d.Columns,
			Files: []string{"csv/" + d.Name + ".csv", "json/" + d.Name + ".jsonl"}})
	}
	if m.MediaFiles, err = s.writeMedia(ctx, zw, q); err != nil {
		return nil, 0, "", fmt.Errorf("brandexport: media: %w", err)
	}
	counts["media_files"] = m.MediaFiles
	w, err := zw.Create("manifest.json")
	if err != nil {
		return nil, 0, "", err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, 0, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, 0, "", err
	}
	if err := f.Sync(); err != nil {
		return nil, 0, "", err
	}
	if err := f.Close(); err != nil {
		return nil, 0, "", err
	}
	if err := os.Rename(part, filepath.Join(s.Dir, fileName(id))); err != nil {
		return nil, 0, "", err
	}
	return counts, out.n, hex.EncodeToString(out.h.Sum(nil)), nil
}

// writeDataset writes one table as csv/<name>.csv and json/<name>.jsonl (one JSON
// object per line) and returns its row count. CSV cells go through
// core.SpreadsheetSafe so a spreadsheet does not run them.
func writeDataset(ctx context.Context, zw *zip.Writer, q *store.Q, d store.ExportDataset) (int, error) {
	w, err := zw.Create("csv/" + d.Name + ".csv")
	if err != nil {
		return 0, err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(d.Columns); err != nil {
		return 0, err
	}
	n := 0
	cells := make([]string, len(d.Columns))
	err = q.EachExportRow(ctx, d, func(row []string) error {
		n++
		for i, v := range row {
			cells[i] = core.SpreadsheetSafe(v)
		}
		return cw.Write(cells)
	})
	if err != nil {
		return 0, err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return 0, err
	}
	if w, err = zw.Create("json/" + d.Name + ".jsonl"); err != nil {
		return 0, err
	}
	enc := json.NewEncoder(w)
	obj := make(map[string]string, len(d.Columns))
	err = q.EachExportRow(ctx, d, func(row []string) error {
		for i, c := range d.Columns {
			obj[c] = row[i]
		}
		return enc.Encode(obj)
	})
	return n, err
}

// writeMedia copies every stored file of the processed media of reviews into
// media/<review id>/<media id>/<file> and returns the number of files.
func (s *Service) writeMedia(ctx context.Context, zw *zip.Writer, q *store.Q) (int, error) {
	if s.Media == nil {
		return 0, nil
	}
	n := 0
	err := q.EachExportMedia(ctx, func(m store.ExportMedia) error {
		files, err := s.Media.List(ctx, media.Key(m.PublicID, ""))
		if err != nil {
			return err
		}
		for _, f := range files {
			name := strings.TrimPrefix(f.Key, media.Key(m.PublicID, ""))
			if name == "" || strings.Contains(name, "/") {
				continue
			}
			if err := copyMedia(ctx, zw, s.Media, f.Key, "media/"+m.ReviewID+"/"+m.PublicID+"/"+name); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

func copyMedia(ctx context.Context, zw *zip.Writer, st media.Store, key, name string) error {
	obj, err := st.Open(ctx, key)
	if err != nil {
		return err
	}
	defer obj.Close()
	// Photos and videos are compressed already: stored, not deflated.
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, obj)
	return err
}

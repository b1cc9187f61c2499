package cli

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/store"
)

// backupFormat names the archive format in its manifest.
const backupFormat = "reviewd-backup/1"

// manifestFile is the archive's description of itself.
const manifestFile = "manifest.json"

// backupManifest is manifest.json inside a backup archive.
type backupManifest struct {
	Format         string `json:"format"`
	SchemaVersion  int    `json:"schema_version"`
	CreatedAt      string `json:"created_at"`
	Files          int    `json:"files"`
	ReviewdVersion string `json:"reviewd_version"`
}

func newBackupCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "backup", Short: "copy the data folder into one archive, or restore one"}
	cmd.AddCommand(newBackupCreateCmd(e), newBackupRestoreCmd(e))
	return cmd
}

func newBackupCreateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "create FILE",
		Short: "write a consistent copy of the database, master key and media to FILE (tar.gz); safe while serve runs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(cfg.DataDir, app.DBFile)); err != nil {
				return fmt.Errorf("backup: no database in %s", cfg.DataDir)
			}
			a, err := app.Open(cmd.Context(), cfg, e.schema, slog.Default())
			if err != nil {
				return err
			}
			defer a.Close()
			m, err := createBackup(cmd, a, args[0])
			if err != nil {
				return err
			}
			out := map[string]any{"file": args[0], "files": m.Files, "schema_version": m.SchemaVersion, "created_at": m.CreatedAt}
			return e.print(cmd, out, func(w io.Writer) {
				fmt.Fprintf(w, "backup %s written: %d files, schema version %d, %s\n", args[0], m.Files, m.SchemaVersion, m.CreatedAt)
			})
		},
	}
}

// createBackup writes the archive to file.part and renames it to file when complete,
// so a failed run never leaves a half archive under the final name.
func createBackup(cmd *cobra.Command, a *app.App, file string) (backupManifest, error) {
	ctx := cmd.Context()
	m := backupManifest{Format: backupFormat, CreatedAt: time.Now().UTC().Format(time.RFC3339), ReviewdVersion: app.Version}
	var err error
	if m.SchemaVersion, err = a.DB.Version(ctx); err != nil {
		return m, err
	}
	// The snapshot sits next to the archive, not in a possibly small /tmp.
	tmp, err := os.MkdirTemp(filepath.Dir(file), ".reviewd-backup-*")
	if err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(tmp)
	snap := filepath.Join(tmp, app.DBFile)
	if err := a.DB.SnapshotTo(ctx, snap); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}

	part := file + ".part"
	f, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) // holds the master key
	if err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(part)
		}
	}()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	dataDir := a.Config.DataDir
	dbMode := os.FileMode(0o600)
	if st, err := os.Stat(filepath.Join(dataDir, app.DBFile)); err == nil {
		dbMode = st.Mode().Perm()
	}
	if err := addFile(tw, snap, app.DBFile, dbMode); err != nil {
		return m, err
	}
	if err := addFile(tw, filepath.Join(dataDir, core.MasterKeyFile), core.MasterKeyFile, 0o600); err != nil {
		return m, err
	}
	m.Files = 2
	media := filepath.Join(dataDir, app.MediaDir)
	err = filepath.WalkDir(media, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != media {
				return nil // removed while we walk
			}
			return err
		}
		rel, err := filepath.Rel(dataDir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			info, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			} else if err != nil {
				return err
			}
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: int64(info.Mode().Perm()), ModTime: info.ModTime()})
		case d.Type().IsRegular():
			err := addFile(tw, p, name, 0)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err == nil {
				m.Files++
			}
			return err
		default:
			return nil // sockets, symlinks and the like are not media
		}
	})
	if err != nil {
		return m, fmt.Errorf("backup: media: %w", err)
	}
	mj, _ := json.MarshalIndent(m, "", "  ")
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: manifestFile, Mode: 0o600, Size: int64(len(mj)), ModTime: time.Now()}); err != nil {
		return m, err
	}
	if _, err := tw.Write(mj); err != nil {
		return m, err
	}
	if err := errors.Join(tw.Close(), gz.Close(), f.Sync(), f.Close()); err != nil {
		return m, fmt.Errorf("backup: write %s: %w", file, err)
	}
	ok = true
	if err := os.Rename(part, file); err != nil {
		os.Remove(part)
		return m, fmt.Errorf("backup: %w", err)
	}
	return m, nil
}

// addFile copies one regular file into the archive under name; mode 0 keeps the
// file's own mode. The size is fixed when the file is opened: a file that grows
// meanwhile is copied up to that size, one that shrinks fails the backup.
func addFile(tw *tar.Writer, src, name string, mode os.FileMode) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if mode == 0 {
		mode = st.Mode().Perm()
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(mode), Size: st.Size(), ModTime: st.ModTime()}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if _, err := io.CopyN(tw, f, st.Size()); err != nil {
		return fmt.Errorf("backup: %s changed while it was copied: %w", name, err)
	}
	return nil
}

func newBackupRestoreCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "restore FILE",
		Short: "restore an archive of backup create into an empty or missing data folder",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			m, n, err := restoreBackup(cmd, e.schema, args[0], cfg.DataDir)
			if err != nil {
				return err
			}
			out := map[string]any{"data_dir": cfg.DataDir, "files": n, "schema_version": m.SchemaVersion, "created_at": m.CreatedAt}
			return e.print(cmd, out, func(w io.Writer) {
				fmt.Fprintf(w, "restored %d files into %s (backup of %s, schema version %d)\n", n, cfg.DataDir, m.CreatedAt, m.SchemaVersion)
			})
		},
	}
}

// restoreBackup unpacks file into dir, which must be empty or missing. On any failure
// it removes what it wrote, leaving dir as it found it.
func restoreBackup(cmd *cobra.Command, schema, file, dir string) (m backupManifest, files int, err error) {
	err = intoEmptyDir(dir, func() error {
		var err error
		m, files, err = unpackBackup(cmd, schema, file, dir)
		return err
	})
	return m, files, err
}

// unpackBackup unpacks file into the empty folder dir and checks what it holds.
func unpackBackup(cmd *cobra.Command, schema, file, dir string) (m backupManifest, files int, err error) {
	f, err := os.Open(file)
	if err != nil {
		return m, 0, fmt.Errorf("restore: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return m, 0, fmt.Errorf("restore: %s is not a reviewd backup: %w", file, err)
	}
	tr := tar.NewReader(gz)
	caps := newRestoreCaps(dir)
	var manifest []byte
	seen := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, files, fmt.Errorf("restore: read %s: %w", file, err)
		}
		name, err := backupEntryName(hdr.Name)
		if err != nil {
			return m, files, err
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, restoreDirMode); err != nil {
				return m, files, fmt.Errorf("restore: %w", err)
			}
			if err := os.Chmod(target, restoreDirMode); err != nil {
				return m, files, fmt.Errorf("restore: %w", err)
			}
		case tar.TypeReg:
			if name == manifestFile {
				if manifest, err = io.ReadAll(io.LimitReader(tr, 1<<20)); err != nil {
					return m, files, fmt.Errorf("restore: read manifest: %w", err)
				}
				continue
			}
			if err := caps.admit(name, hdr.Size); err != nil {
				return m, files, err
			}
			if err := os.MkdirAll(filepath.Dir(target), restoreDirMode); err != nil {
				return m, files, fmt.Errorf("restore: %w", err)
			}
			if err := writeEntry(target, io.LimitReader(tr, hdr.Size), restoreFileMode); err != nil {
				return m, files, err
			}
			seen[name] = true
			files++
		default:
			return m, files, fmt.Errorf("restore: archive entry %q is not a plain file or folder", hdr.Name)
		}
	}
	if manifest == nil || json.Unmarshal(manifest, &m) != nil || m.Format != backupFormat {
		return m, files, fmt.Errorf("restore: %s is not a reviewd backup (no valid %s)", file, manifestFile)
	}
	if !seen[app.DBFile] || !seen[core.MasterKeyFile] {
		return m, files, fmt.Errorf("restore: %s lacks %s or %s", file, app.DBFile, core.MasterKeyFile)
	}
	if err := os.MkdirAll(filepath.Join(dir, app.MediaDir), 0o750); err != nil {
		return m, files, fmt.Errorf("restore: %w", err)
	}
	if _, err := core.LoadMasterKey(dir); err != nil {
		return m, files, fmt.Errorf("restore: %w", err)
	}
	db, err := store.Open(cmd.Context(), filepath.Join(dir, app.DBFile), schema)
	if err != nil {
		return m, files, fmt.Errorf("restore: %w", err)
	}
	err = db.IntegrityCheck(cmd.Context())
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return m, files, fmt.Errorf("restore: %w", err)
	}
	return m, files, nil
}

// backupEntryName checks an archive entry name: relative, no "..", and one of the
// names a backup holds (manifest.json, reviewd.db, secret.key, media/...).
func backupEntryName(raw string) (string, error) {
	bad := func() (string, error) {
		return "", fmt.Errorf("restore: archive entry %q refused (outside the data folder)", raw)
	}
	if raw == "" || strings.HasPrefix(raw, "/") || strings.Contains(raw, `\`) || filepath.IsAbs(raw) || filepath.VolumeName(raw) != "" {
		return bad()
	}
	for _, el := range strings.Split(raw, "/") {
		if el == ".." {
			return bad()
		}
	}
	name := path.Clean(raw)
	switch {
	case name == manifestFile, name == app.DBFile, name == core.MasterKeyFile, name == app.MediaDir, strings.HasPrefix(name, app.MediaDir+"/"):
		return name, nil
	}
	return "", fmt.Errorf("restore: archive entry %q is not part of a reviewd backup", raw)
}

// writeEntry creates target (which must not exist) with mode and copies r into it.
func writeEntry(target string, r io.Reader, mode os.FileMode) error {
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return fmt.Errorf("restore: write %s: %w", target, err)
	}
	if err := errors.Join(out.Sync(), out.Close()); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	// The umask may have narrowed the mode at creation.
	return os.Chmod(target, mode)
}

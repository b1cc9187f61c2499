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
	"reviewd/app/media"
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
	// MediaStore is where the processed media were (local: in the archive under
	// media/; s3: in the bucket, listed in media-objects.json). Empty in archives
	// made before media stores existed (local).
	MediaStore   string `json:"media_store,omitempty"`
	MediaObjects int    `json:"media_objects,omitempty"`
	// objects is media-objects.json of an archive being restored.
	objects *bucketManifest
}

// mediaObjectsFile lists the bucket's media files in an archive made with the s3
// store: the bucket is the copy of the media, the archive says what it held.
const mediaObjectsFile = "media-objects.json"

// bucketManifest is media-objects.json.
type bucketManifest struct {
	Endpoint string         `json:"endpoint,omitempty"`
	Bucket   string         `json:"bucket"`
	Prefix   string         `json:"prefix,omitempty"`
	Objects  []bucketObject `json:"objects"`
}

type bucketObject struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
	ETag string `json:"etag,omitempty"`
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
			out := map[string]any{"file": args[0], "files": m.Files, "schema_version": m.SchemaVersion, "created_at": m.CreatedAt,
				"media_store": m.MediaStore}
			if m.MediaStore == media.StoreS3 {
				out["media_objects"] = m.MediaObjects
				out["bucket"] = bucketAddress(a.Config.Media.S3)
			}
			return e.print(cmd, out, func(w io.Writer) {
				fmt.Fprintf(w, "backup %s written: %d files, schema version %d, %s\n", args[0], m.Files, m.SchemaVersion, m.CreatedAt)
				if m.MediaStore == media.StoreS3 {
					fmt.Fprintf(w, "it holds the database, the master key and the uploads waiting in media/incoming; the photos and videos stay in %s (the bucket is their copy): %s lists its %d files\n",
						bucketAddress(a.Config.Media.S3), mediaObjectsFile, m.MediaObjects)
				} else {
					fmt.Fprintln(w, "it holds the database, the master key and every photo and video (media/)")
				}
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
	mediaDir := filepath.Join(dataDir, app.MediaDir)
	err = filepath.WalkDir(mediaDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != mediaDir {
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
	m.MediaStore = a.Reviews.Media.Kind()
	if s3, ok := a.Reviews.Media.(*media.S3Store); ok {
		// Listed after the database snapshot: every file a row of the snapshot
		// names was stored before that row was written.
		list, err := s3.List(ctx, "")
		if err != nil {
			return m, fmt.Errorf("backup: %w", err)
		}
		c := a.Config.Media.S3
		bm := bucketManifest{Endpoint: c.Endpoint, Bucket: c.Bucket, Prefix: c.KeyPrefix(), Objects: []bucketObject{}}
		for _, o := range list {
			bm.Objects = append(bm.Objects, bucketObject{Key: o.Key, Size: o.Size, ETag: o.ETag})
		}
		b, _ := json.Marshal(bm)
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: mediaObjectsFile, Mode: 0o600, Size: int64(len(b)), ModTime: time.Now()}); err != nil {
			return m, err
		}
		if _, err := tw.Write(b); err != nil {
			return m, err
		}
		m.MediaObjects = len(bm.Objects)
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
			out := map[string]any{"data_dir": cfg.DataDir, "files": n, "schema_version": m.SchemaVersion, "created_at": m.CreatedAt,
				"media_store": media.StoreLocal}
			var check bucketCheck
			if m.objects != nil {
				check, err = checkBucket(cmd, cfg.Media, m.objects)
				if err != nil {
					return err
				}
				out["media_store"], out["media_objects"], out["media_missing"] = media.StoreS3, len(m.objects.Objects), check.Missing
				out["bucket"] = check.Bucket
			}
			return e.print(cmd, out, func(w io.Writer) {
				fmt.Fprintf(w, "restored %d files into %s (backup of %s, schema version %d)\n", n, cfg.DataDir, m.CreatedAt, m.SchemaVersion)
				if m.objects != nil {
					fmt.Fprintf(w, "media are in %s: %d of the %d files the backup lists are missing there\n", check.Bucket, len(check.Missing), len(m.objects.Objects))
					for i, k := range check.Missing {
						if i == 100 {
							fmt.Fprintf(w, "  ... and %d more (--json lists all)\n", len(check.Missing)-100)
							break
						}
						fmt.Fprintf(w, "  missing: %s\n", k)
					}
				}
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
	var objects *bucketManifest
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
			if name == mediaObjectsFile {
				var bm bucketManifest
				if err := json.NewDecoder(io.LimitReader(tr, hdr.Size)).Decode(&bm); err != nil {
					return m, files, fmt.Errorf("restore: read %s: %w", mediaObjectsFile, err)
				}
				objects = &bm
				continue
			}
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
	if m.MediaStore == media.StoreS3 && objects == nil {
		return m, files, fmt.Errorf("restore: %s lacks %s", file, mediaObjectsFile)
	}
	m.objects = objects
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
	case name == manifestFile, name == mediaObjectsFile, name == app.DBFile, name == core.MasterKeyFile, name == app.MediaDir, strings.HasPrefix(name, app.MediaDir+"/"):
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

// bucketAddress names a bucket and prefix for messages (no credentials).
func bucketAddress(c media.S3Config) string {
	return "s3://" + c.Bucket + "/" + c.KeyPrefix()
}

// bucketCheck is the check of a restored archive's media-objects.json.
type bucketCheck struct {
	Bucket  string
	Missing []string // keys absent from the bucket or of another size
}

// checkBucket compares the files the archive lists with the bucket of media.s3.*
// (which must be set: the restored database names files only the bucket holds).
func checkBucket(cmd *cobra.Command, c media.Config, bm *bucketManifest) (bucketCheck, error) {
	out := bucketCheck{Bucket: "s3://" + bm.Bucket + "/" + bm.Prefix}
	if c.Store != media.StoreS3 {
		return out, fmt.Errorf("restore: the data folder is restored, but its photos and videos are in %s: set media.store: s3 and media.s3.* to that bucket, then run serve", out.Bucket)
	}
	if c.S3.Bucket != bm.Bucket || c.S3.KeyPrefix() != bm.Prefix {
		cmd.PrintErrf("warning: the backup's media were in %s, media.s3.* names %s\n", out.Bucket, bucketAddress(c.S3))
	}
	st, err := media.OpenS3(cmd.Context(), c.S3)
	if err != nil {
		return out, err
	}
	list, err := st.List(cmd.Context(), "")
	if err != nil {
		return out, fmt.Errorf("restore: check the bucket: %w", err)
	}
	size := make(map[string]int64, len(list))
	for _, o := range list {
		size[o.Key] = o.Size
	}
	out.Missing = []string{}
	for _, o := range bm.Objects {
		if s, ok := size[o.Key]; !ok || s != o.Size {
			out.Missing = append(out.Missing, o.Key)
		}
	}
	return out, nil
}

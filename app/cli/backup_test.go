package cli_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"reviewd/store"
)

// TestBackupDuringWrites takes a backup while another connection keeps committing
// activity rows and media files appear, then restores it into a new folder.
func TestBackupDuringWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	createChannel(t, dir, "tr-main", "TR", "tr")
	var k struct{ ID, Key string }
	mustJSON(t, dir, &k, "key", "create", "--kind", "api", "--scopes", "read")

	media := filepath.Join(dir, "media")
	if err := os.MkdirAll(filepath.Join(media, "ab", "cd"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(media, "ab"), 0o777); err != nil {
		t.Fatal(err)
	}
	mediaFiles := map[string]os.FileMode{"ab/cd/photo.jpg": 0o640, "ab/video.mp4": 0o666, "top.webp": 0o644}
	for name, mode := range mediaFiles {
		p := filepath.Join(media, filepath.FromSlash(name))
		if err := os.WriteFile(p, []byte("content of "+name), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}

	// The writer is another connection to the same file, as `serve` would be.
	db := openDB(t, dir)
	var committed atomic.Int64
	insert := func() error {
		n := committed.Load() + 1
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			return tx.AddActivity(ctx, store.Activity{Action: "test.write", ActorType: "console", TargetType: "seq", TargetID: strconv.FormatInt(n, 10)})
		})
		if err == nil {
			committed.Store(n)
		}
		return err
	}
	for range 50 {
		if err := insert(); err != nil {
			t.Fatal(err)
		}
	}
	before := committed.Load()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr, mediaErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if writeErr = insert(); writeErr != nil {
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if mediaErr = os.WriteFile(filepath.Join(media, fmt.Sprintf("live-%d.bin", i)), bytes.Repeat([]byte{byte(i)}, 4096), 0o640); mediaErr != nil {
				return
			}
		}
	}()
	archive := filepath.Join(t.TempDir(), "reviewd-backup.tar.gz")
	var made map[string]any
	mustJSON(t, dir, &made, "backup", "create", archive)
	close(stop)
	wg.Wait()
	after := committed.Load()
	t.Logf("rows committed: %d before the backup, %d when it ended", before, after)
	if writeErr != nil || mediaErr != nil {
		t.Fatalf("concurrent writers failed: %v, %v", writeErr, mediaErr)
	}
	if made["files"].(float64) < 5 || made["schema_version"].(float64) != float64(store.SchemaVersion) {
		t.Fatalf("backup create = %v", made)
	}
	if st, err := os.Stat(archive); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("archive mode: %v %v", st.Mode(), err)
	}

	target := filepath.Join(t.TempDir(), "restored") // missing folder
	var restored map[string]any
	mustJSON(t, target, &restored, "backup", "restore", archive)
	if restored["files"] != made["files"] {
		t.Fatalf("restore = %v, create = %v", restored, made)
	}

	rdb := openDB(t, target)
	if err := rdb.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	rows, total, err := rdb.Read().ListActivity(ctx, store.ActivityFilter{TargetType: "seq", Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if int64(total) < before || int64(total) > after {
		t.Fatalf("restored %d rows; %d were committed before the backup and %d after", total, before, after)
	}
	// A consistent snapshot holds a prefix of the writes: 1..total without gaps.
	for i, r := range rows {
		if r.TargetID != strconv.Itoa(total-i) {
			t.Fatalf("restored rows are not a prefix of the writes: row %d is %s", i, r.TargetID)
		}
	}
	if _, err := rdb.Read().KeyByPublicID(ctx, k.ID); err != nil {
		t.Fatalf("key missing after restore: %v", err)
	}
	if _, err := rdb.Read().ChannelByCode(ctx, "tr-main"); err != nil {
		t.Fatalf("channel missing after restore: %v", err)
	}

	orig, _ := os.ReadFile(filepath.Join(dir, "secret.key"))
	got, err := os.ReadFile(filepath.Join(target, "secret.key"))
	if err != nil || !bytes.Equal(orig, got) || len(got) != 32 {
		t.Fatalf("secret.key not restored identically: %v", err)
	}
	if st, _ := os.Stat(filepath.Join(target, "secret.key")); st.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key mode %v", st.Mode())
	}
	// Files are restored 0600 and folders 0750 whatever modes they had.
	for name := range mediaFiles {
		p := filepath.Join(target, "media", filepath.FromSlash(name))
		b, err := os.ReadFile(p)
		if err != nil || string(b) != "content of "+name {
			t.Fatalf("media %s: %q, %v", name, b, err)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
			t.Fatalf("media %s mode %v, want 0600", name, st.Mode().Perm())
		}
	}
	for _, d := range []string{target, filepath.Join(target, "media"), filepath.Join(target, "media", "ab"), filepath.Join(target, "media", "ab", "cd")} {
		if st, _ := os.Stat(d); st.Mode().Perm() != 0o750 {
			t.Fatalf("folder %s mode %v, want 0750", d, st.Mode().Perm())
		}
	}

	// The restored folder serves commands (the master key opens its passwords).
	mustRun(t, target, "key", "list")
	failRun(t, target, "not empty", "backup", "restore", archive)
	failRun(t, dir, "not empty", "backup", "restore", archive)

	// An existing empty folder is fine.
	empty := t.TempDir()
	mustRun(t, empty, "backup", "restore", archive)
}

func TestBackupRestoreRefusesBadArchives(t *testing.T) {
	src := t.TempDir()
	mustRun(t, src, "migrate")
	good := filepath.Join(t.TempDir(), "good.tar.gz")
	mustRun(t, src, "backup", "create", good)

	for _, tc := range []struct {
		name  string
		entry *tar.Header
		want  string
	}{
		{"dot dot", &tar.Header{Name: "media/../../evil.txt", Typeflag: tar.TypeReg, Mode: 0o644}, "refused"},
		{"absolute", &tar.Header{Name: "/tmp/evil.txt", Typeflag: tar.TypeReg, Mode: 0o644}, "refused"},
		{"symlink", &tar.Header{Name: "media/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, "not a plain file"},
		{"foreign name", &tar.Header{Name: "other.txt", Typeflag: tar.TypeReg, Mode: 0o644}, "not part of a reviewd backup"},
		{"oversized master key", &tar.Header{Name: "secret.key", Typeflag: tar.TypeReg, Mode: 0o644, Size: 64 << 10}, "over the 4096 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.tar.gz")
			copyArchiveWith(t, good, bad, tc.entry)
			target := filepath.Join(t.TempDir(), "data")
			failRun(t, target, tc.want, "backup", "restore", bad)
			if _, err := os.Stat(target); !os.IsNotExist(err) {
				t.Fatalf("failed restore left %s behind", target)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(target), "..", "evil.txt")); err == nil {
				t.Fatalf("entry written outside the data folder")
			}
		})
	}

	notBackup := filepath.Join(t.TempDir(), "x.tar.gz")
	if err := os.WriteFile(notBackup, []byte("not an archive"), 0o600); err != nil {
		t.Fatal(err)
	}
	failRun(t, filepath.Join(t.TempDir(), "data"), "not a reviewd backup", "backup", "restore", notBackup)
	failRun(t, t.TempDir(), "no database", "backup", "create", filepath.Join(t.TempDir(), "b.tar.gz"))
}

// copyArchiveWith copies the archive src to dst with one more entry first.
func copyArchiveWith(t *testing.T, src, dst string, extra *tar.Header) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	gr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gw)
	body := []byte("evil")
	if extra.Typeflag == tar.TypeReg && extra.Size > 0 {
		body = bytes.Repeat([]byte("k"), int(extra.Size))
	}
	if extra.Typeflag == tar.TypeReg {
		extra.Size = int64(len(body))
	}
	if err := tw.WriteHeader(extra); err != nil {
		t.Fatal(err)
	}
	if extra.Typeflag == tar.TypeReg {
		tw.Write(body)
	}
	tr := tar.NewReader(gr)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	gw.Close()
	if err := os.WriteFile(dst, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

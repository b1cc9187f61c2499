package replica

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestMirror checks the media mirror against a folder replica: new files are
// uploaded, changed ones again, removed (erased) ones deleted, uploads in progress
// (dot names) skipped.
func TestMirror(t *testing.T) {
	ctx := context.Background()
	media, rep := filepath.Join(t.TempDir(), "media"), t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(media, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	remote := func(rel string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(rep, "media", filepath.FromSlash(rel)))
		return string(b), err == nil
	}
	write("incoming/m_a.jpg", "photo a")
	write("m_b/full.jpg", "photo b")
	write("incoming/.upload-1.tmp", "half")
	m := &mirror{objects: dirObjects(rep), dir: media, log: slog.Default()}
	if err := m.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if b, ok := remote("incoming/m_a.jpg"); !ok || b != "photo a" {
		t.Errorf("m_a: %q %v", b, ok)
	}
	if _, ok := remote("incoming/.upload-1.tmp"); ok {
		t.Error("an upload in progress was mirrored")
	}

	write("m_b/full.jpg", "photo b, re-rendered")
	if err := os.Remove(filepath.Join(media, "incoming", "m_a.jpg")); err != nil {
		t.Fatal(err)
	}
	if err := m.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := remote("incoming/m_a.jpg"); ok {
		t.Error("a removed file stays in the replica")
	}
	if b, _ := remote("m_b/full.jpg"); b != "photo b, re-rendered" {
		t.Errorf("changed file: %q", b)
	}

	// A new process lists the replica once and removes what went while it was down.
	if err := os.RemoveAll(filepath.Join(media, "m_b")); err != nil {
		t.Fatal(err)
	}
	m2 := &mirror{objects: dirObjects(rep), dir: media, log: slog.Default()}
	if err := m2.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := remote("m_b/full.jpg"); ok {
		t.Error("a file removed while serve was down stays in the replica")
	}
}

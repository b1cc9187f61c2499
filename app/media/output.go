package media

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// fileMode of finished media files: the server reads them, nobody else needs to.
const fileMode = 0o640

// batch writes a set of output files under temporary names and renames them all
// at the end, so a failure never leaves partial or half of the files behind.
type batch struct {
	dir   string
	tmp   []string
	final []string
}

func validBase(name string) error {
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`+"\x00") {
		return fmt.Errorf("media: invalid base name %q", name)
	}
	return nil
}

// create opens a new temporary file that commit will rename to name.
func (b *batch) create(name string) (*os.File, error) {
	for _, f := range b.final {
		if f == name {
			return nil, fmt.Errorf("media: duplicate output %q", name)
		}
	}
	f, err := os.CreateTemp(b.dir, "."+name+".*.tmp")
	if err != nil {
		return nil, err
	}
	b.tmp = append(b.tmp, f.Name())
	b.final = append(b.final, name)
	return f, nil
}

// commit renames every file to its final name; on failure it removes them all.
func (b *batch) commit() error {
	for i, t := range b.tmp {
		err := os.Chmod(t, fileMode)
		if err == nil {
			err = os.Rename(t, filepath.Join(b.dir, b.final[i]))
		}
		if err != nil {
			name := b.final[i]
			for _, done := range b.final[:i] {
				_ = os.Remove(filepath.Join(b.dir, done))
			}
			b.tmp, b.final = b.tmp[i:], b.final[i:]
			b.abort()
			return fmt.Errorf("media: save %s: %w", name, err)
		}
	}
	b.tmp, b.final = nil, nil
	return nil
}

// abort removes every temporary file not yet committed.
func (b *batch) abort() {
	for _, t := range b.tmp {
		_ = os.Remove(t)
	}
	b.tmp, b.final = nil, nil
}

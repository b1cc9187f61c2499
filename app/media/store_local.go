package media

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LocalStore keeps files in a folder (data_dir/media) as <id>/<name>; reviewd
// serves them itself and checks the review's state on every request, so it keeps
// no public copies. Names starting with "." (files being written) and the staging
// folder incoming/ are not part of the store.
type LocalStore string

// StagingDir is the folder under the local media folder where uploads wait and
// are processed before their files enter the store.
const StagingDir = "incoming"

// Kind is "local".
func (LocalStore) Kind() string { return StoreLocal }

// PublicCopies is false: the public address is reviewd's own /media route.
func (LocalStore) PublicCopies() bool { return false }

func (d LocalStore) path(key string) string { return filepath.Join(string(d), filepath.FromSlash(key)) }

// PutFile renames src into place (the staging folder is on the same disk); across
// file systems it copies and then removes src.
func (d LocalStore) PutFile(ctx context.Context, key, src string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	dst := d.path(key)
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	if err := os.Chmod(src, fileMode); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := d.Put(ctx, key, f, st.Size()); err != nil {
		return err
	}
	return os.Remove(src)
}

// Put writes a temporary file, syncs it and renames it into place.
func (d LocalStore) Put(_ context.Context, key string, r io.Reader, size int64) error {
	if err := checkKey(key); err != nil {
		return err
	}
	dst := d.path(key)
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".put-*.tmp")
	if err != nil {
		return err
	}
	n, err := io.Copy(tmp, r)
	if err == nil && n != size {
		err = io.ErrUnexpectedEOF
	}
	if err = errors.Join(err, tmp.Chmod(fileMode), tmp.Sync(), tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

type localObject struct {
	*os.File
	info ObjectInfo
}

func (o localObject) Info() ObjectInfo { return o.info }

// Open opens the file.
func (d LocalStore) Open(_ context.Context, key string) (Object, error) {
	if err := checkKey(key); err != nil {
		return nil, ErrNoObject
	}
	f, err := os.Open(d.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoObject
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = ErrNoObject
		}
		return nil, err
	}
	return localObject{File: f, info: ObjectInfo{Key: key, Size: st.Size(), ModTime: st.ModTime()}}, nil
}

// List walks the folder (without the staging folder and dot names).
func (d LocalStore) List(_ context.Context, prefix string) ([]ObjectInfo, error) {
	var out []ObjectInfo
	root := string(d)
	if id, _, ok := strings.Cut(prefix, "/"); ok && validBase(id) == nil {
		root = filepath.Join(root, id) // one item: walk its folder only
	}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(string(d), p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel != "." && (rel == StagingDir || strings.HasPrefix(e.Name(), ".") || strings.Contains(rel, "/")) {
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") || !strings.HasPrefix(rel, prefix) {
			return nil
		}
		if _, _, ok := SplitKey(rel); !ok {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		out = append(out, ObjectInfo{Key: rel, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	return out, err
}

// Delete removes the files, and their item folders once empty.
func (d LocalStore) Delete(_ context.Context, keys []string) error {
	var errs []error
	dirs := map[string]bool{}
	for _, k := range keys {
		if checkKey(k) != nil {
			continue
		}
		if err := os.Remove(d.path(k)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		dirs[filepath.Dir(d.path(k))] = true
	}
	for dir := range dirs {
		_ = os.Remove(dir) // only when empty
	}
	return errors.Join(errs...)
}

// Publish does nothing: reviewd serves the files and checks the review's state.
func (LocalStore) Publish(context.Context, string, []string) error { return nil }

// Unpublish does nothing (see Publish).
func (LocalStore) Unpublish(context.Context, string) error { return nil }

// ListPublic is empty: no public copies.
func (LocalStore) ListPublic(context.Context) ([]ObjectInfo, error) { return nil, nil }

// DeleteItem removes every stored file of a media item, public copies included.
func DeleteItem(ctx context.Context, s Store, id string) error {
	if validBase(id) != nil {
		return nil
	}
	list, err := s.List(ctx, id+"/")
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(list))
	for _, o := range list {
		keys = append(keys, o.Key)
	}
	return errors.Join(s.Delete(ctx, keys), s.Unpublish(ctx, id))
}

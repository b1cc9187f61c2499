package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"time"
)

// Store keeps the processed files of media items (the stored original and its
// renditions) under keys "<media id>/<file name>". Uploads are scanned and
// processed from a local staging folder first (clamd and ffmpeg need a file); only
// finished files enter the store.
//
// Two implementations exist: LocalStore (data_dir/media, served by reviewd) and
// S3Store (an S3-compatible bucket). Both answer ErrNoObject for a missing key.
type Store interface {
	// Kind is "local" or "s3".
	Kind() string
	// PutFile moves the local file at src into the store under key: it returns
	// once the store confirmed the write, and only then is src removed.
	PutFile(ctx context.Context, key, src string) error
	// Put writes size bytes from r under key (a copy; the caller keeps r).
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Open opens a stored file for reading with Seek (ranged reads).
	Open(ctx context.Context, key string) (Object, error)
	// List lists every stored file whose key starts with prefix ("" is all).
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Delete removes the given keys; missing keys are not an error.
	Delete(ctx context.Context, keys []string) error
	// Publish puts the named files of a media item at its public address and
	// Unpublish removes them from there (every file of the item). A store whose
	// files are served by reviewd itself (PublicCopies false) does nothing.
	Publish(ctx context.Context, id string, names []string) error
	Unpublish(ctx context.Context, id string) error
	// ListPublic lists the public copies ("<id>/<name>" keys); empty without them.
	ListPublic(ctx context.Context) ([]ObjectInfo, error)
	// PublicCopies reports whether the store keeps public copies of published
	// items (S3: yes, under the public/ prefix; local: no, reviewd checks the
	// review's state on every request).
	PublicCopies() bool
}

// Object is one opened stored file.
type Object interface {
	io.ReadSeekCloser
	Info() ObjectInfo
}

// ObjectInfo describes a stored file.
type ObjectInfo struct {
	Key     string
	Size    int64
	ModTime time.Time
	// ETag is the store's entity tag, quoted (empty when the store has none).
	ETag string
}

// ErrNoObject is returned for a key the store does not hold.
var ErrNoObject = errors.New("media: no such stored file")

// Key is the store key of a file of a media item.
func Key(id, name string) string { return id + "/" + name }

// SplitKey splits a store key into media id and file name; ok is false for keys
// that are not "<id>/<name>".
func SplitKey(key string) (id, name string, ok bool) {
	id, name, ok = strings.Cut(key, "/")
	if !ok || id == "" || validBase(name) != nil || validBase(id) != nil {
		return "", "", false
	}
	return id, name, true
}

func checkKey(key string) error {
	if _, _, ok := SplitKey(key); !ok || path.Clean(key) != key {
		return fmt.Errorf("media: invalid store key %q", key)
	}
	return nil
}

// ContentType is the MIME type of a processed file by its name.
func ContentType(name string) string {
	switch path.Ext(name) {
	case ".jpg":
		return "image/jpeg"
	case ".mp4":
		return "video/mp4"
	}
	return "application/octet-stream"
}

// SHA256 reads r to its end and returns the hex SHA-256 and the byte count.
func SHA256(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// Store kinds (media.store).
const (
	StoreLocal = "local"
	StoreS3    = "s3"
)

// Config is the media block of the configuration (media.* keys).
type Config struct {
	// Store is local (data_dir/media, the default) or s3.
	Store string `mapstructure:"store"`
	// S3 is the bucket of the s3 store.
	S3 S3Config `mapstructure:"s3"`
	// PublicURL is the address media addresses (url, srcset, poster_url) start
	// with: "<public_url>/<media id>/<file>". Empty: {public_url}/media, served by
	// reviewd. With s3 it may be the bucket's or a CDN's address of the public/
	// prefix (see the README).
	PublicURL string `mapstructure:"public_url"`
}

// S3Config is media.s3.*.
type S3Config struct {
	// Endpoint is the address of an S3-compatible server; empty is Amazon S3.
	Endpoint  string `mapstructure:"endpoint"`
	Bucket    string `mapstructure:"bucket"`
	Region    string `mapstructure:"region"`
	AccessKey string `mapstructure:"access_key"`
	SecretKey string `mapstructure:"secret_key"`
	// PathStyle addresses the bucket as endpoint/bucket instead of
	// bucket.endpoint (MinIO, Garage and most self-hosted servers need it).
	PathStyle bool `mapstructure:"path_style"`
	// Prefix is put before every key (for sharing a bucket, e.g. with the
	// database replica): private files under <prefix>media/, public copies under
	// <prefix>public/.
	Prefix string `mapstructure:"prefix"`
}

// Validate reports every problem of the block at once, each prefixed with its key.
func (c Config) Validate() error {
	var errs []error
	switch c.Store {
	case StoreLocal, "":
	case StoreS3:
		if c.S3.Bucket == "" {
			errs = append(errs, errors.New("media.s3.bucket: required with media.store s3"))
		}
		if c.S3.Endpoint != "" {
			u, err := url.Parse(c.S3.Endpoint)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				errs = append(errs, fmt.Errorf("media.s3.endpoint: %q is not an http(s) address", c.S3.Endpoint))
			}
		}
		if (c.S3.AccessKey == "") != (c.S3.SecretKey == "") {
			errs = append(errs, errors.New("media.s3.access_key and media.s3.secret_key: give both or neither"))
		}
		if strings.HasPrefix(c.S3.Prefix, "/") || strings.Contains(c.S3.Prefix, "..") {
			errs = append(errs, fmt.Errorf("media.s3.prefix: %q must be relative (no leading slash, no ..)", c.S3.Prefix))
		}
	default:
		errs = append(errs, fmt.Errorf("media.store: %q is not local or s3", c.Store))
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			errs = append(errs, fmt.Errorf("media.public_url: %q is not an http(s) address", c.PublicURL))
		}
	}
	return errors.Join(errs...)
}

// KeyPrefix is media.s3.prefix ending in "/" ("" when empty).
func (c S3Config) KeyPrefix() string {
	p := strings.Trim(c.Prefix, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

// Open opens the configured store; dir is the local media folder (data_dir/media).
func (c Config) Open(ctx context.Context, dir string) (Store, error) {
	if c.Store == StoreS3 {
		return OpenS3(ctx, c.S3)
	}
	return LocalStore(dir), nil
}

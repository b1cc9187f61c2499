// Package replica streams the database to object storage (S3-compatible or a local
// folder) with Litestream, embedded as a library, and mirrors the media files and the
// master key beside it, so a new machine can be restored to within seconds of a loss.
// It imports only the standard library, Litestream and the S3 client; it knows the
// data folder only by the paths it is given.
package replica

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// Config is the replica block of the configuration (replica.* keys).
type Config struct {
	// URL is s3://bucket/prefix, file:///folder or a plain folder path; empty is off.
	URL string `mapstructure:"url"`
	// Endpoint is the address of an S3-compatible server; empty is Amazon S3.
	Endpoint string `mapstructure:"endpoint"`
	// Region of the bucket; empty picks us-east-1.
	Region          string `mapstructure:"region"`
	AccessKeyID     string `mapstructure:"access_key_id"`
	SecretAccessKey string `mapstructure:"secret_access_key"`
	// SyncInterval is how often new database pages are shipped.
	SyncInterval time.Duration `mapstructure:"sync_interval"`
	// SnapshotInterval is how often a full snapshot is written (restores read the
	// latest snapshot plus the changes after it).
	SnapshotInterval time.Duration `mapstructure:"snapshot_interval"`
	// Retention is how long history (for --timestamp) is kept on the replica.
	Retention time.Duration `mapstructure:"retention"`
	// MediaInterval is how often the media folder is compared with the replica.
	MediaInterval time.Duration `mapstructure:"media_interval"`
}

// Defaults are the values of the keys nobody set.
var Defaults = Config{
	SyncInterval:     time.Second,
	SnapshotInterval: 24 * time.Hour,
	Retention:        72 * time.Hour,
	MediaInterval:    10 * time.Second,
}

// Enabled reports whether a replica is configured.
func (c Config) Enabled() bool { return c.URL != "" }

// Validate reports every problem of the block at once, each prefixed with its key.
func (c Config) Validate() error {
	var errs []error
	if c.URL != "" {
		if _, err := parseURL(c.URL); err != nil {
			errs = append(errs, fmt.Errorf("replica.url: %w", err))
		}
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("replica.endpoint: %q is not an http(s) address", c.Endpoint))
		}
	}
	if (c.AccessKeyID == "") != (c.SecretAccessKey == "") {
		errs = append(errs, errors.New("replica.access_key_id and replica.secret_access_key: give both or neither"))
	}
	check := func(key string, d, min time.Duration) {
		if d < min {
			errs = append(errs, fmt.Errorf("replica.%s: %s is below %s", key, d, min))
		}
	}
	check("sync_interval", c.SyncInterval, 100*time.Millisecond)
	check("snapshot_interval", c.SnapshotInterval, time.Minute)
	check("retention", c.Retention, time.Hour)
	check("media_interval", c.MediaInterval, 100*time.Millisecond)
	return errors.Join(errs...)
}

// EndpointWarning is a warning when replica.endpoint is plain http to a host that is
// not this machine (localhost, 127.0.0.0/8, ::1): database pages, media files and
// the master key would cross the network unencrypted. "" when there is nothing to
// warn about.
func (c Config) EndpointWarning() string {
	u, err := url.Parse(c.Endpoint)
	if _, _, s3 := c.S3Location(); !s3 || c.Endpoint == "" || err != nil || !strings.EqualFold(u.Scheme, "http") {
		return ""
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("replica.endpoint %s is plain http to %s: the database, the media files and the master key travel unencrypted; use https", c.Endpoint, host)
}

// S3Location is the bucket and key prefix (without slashes at the ends) of an
// s3:// replica; ok is false for a folder replica or none.
func (c Config) S3Location() (bucket, prefix string, ok bool) {
	l, err := parseURL(c.URL)
	if c.URL == "" || err != nil || l.kind != "s3" {
		return "", "", false
	}
	return l.bucket, l.prefix, true
}

// location is a parsed replica.url.
type location struct {
	kind   string // "s3" or "file"
	bucket string // s3 only
	prefix string // s3: key prefix without slashes at the ends
	dir    string // file: absolute folder
}

func parseURL(raw string) (location, error) {
	if !strings.Contains(raw, "://") {
		abs, err := filepath.Abs(raw)
		if err != nil {
			return location{}, err
		}
		return location{kind: "file", dir: abs}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return location{}, fmt.Errorf("%q is not an address", raw)
	}
	if u.User != nil {
		return location{}, errors.New("put credentials in replica.access_key_id and replica.secret_access_key, not in the address")
	}
	switch u.Scheme {
	case "s3":
		if u.Host == "" {
			return location{}, fmt.Errorf("%q names no bucket", raw)
		}
		return location{kind: "s3", bucket: u.Host, prefix: strings.Trim(u.Path, "/")}, nil
	case "file":
		if u.Host != "" && u.Host != "localhost" || u.Path == "" {
			return location{}, fmt.Errorf("%q is not file:///absolute/folder", raw)
		}
		return location{kind: "file", dir: filepath.Clean(u.Path)}, nil
	}
	return location{}, fmt.Errorf("%q: scheme must be s3 or file", raw)
}

// String is the address of the location, without credentials.
func (l location) String() string {
	if l.kind == "s3" {
		return "s3://" + l.bucket + "/" + l.prefix
	}
	return "file://" + l.dir
}

package replica

import (
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	ok := Defaults
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		want string // substring of the error; empty: valid
	}{
		{"off", func(c *Config) {}, ""},
		{"s3", func(c *Config) { c.URL = "s3://bucket/prod/shop"; c.Endpoint = "http://127.0.0.1:9000" }, ""},
		{"folder", func(c *Config) { c.URL = "/srv/replica" }, ""},
		{"file url", func(c *Config) { c.URL = "file:///srv/replica" }, ""},
		{"no bucket", func(c *Config) { c.URL = "s3:///prefix" }, "replica.url"},
		{"gcs", func(c *Config) { c.URL = "gs://bucket/x" }, "scheme must be s3 or file"},
		{"keys in url", func(c *Config) { c.URL = "s3://AK:SK@bucket/x" }, "access_key_id"},
		{"file host", func(c *Config) { c.URL = "file://host/srv" }, "file:///absolute/folder"},
		{"endpoint", func(c *Config) { c.Endpoint = "minio:9000" }, "replica.endpoint"},
		{"half keys", func(c *Config) { c.AccessKeyID = "AK" }, "give both or neither"},
		{"sync", func(c *Config) { c.SyncInterval = time.Millisecond }, "replica.sync_interval"},
		{"retention", func(c *Config) { c.Retention = time.Minute }, "replica.retention"},
	} {
		c := ok
		tc.edit(&c)
		err := c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParseURL(t *testing.T) {
	l, err := parseURL("s3://acme-reviews/prod/")
	if err != nil || l.kind != "s3" || l.bucket != "acme-reviews" || l.prefix != "prod" || l.String() != "s3://acme-reviews/prod" {
		t.Fatalf("%+v %v", l, err)
	}
	l, err = parseURL("file:///srv/replica/")
	if err != nil || l.kind != "file" || l.dir != "/srv/replica" {
		t.Fatalf("%+v %v", l, err)
	}
}

func TestSafeRel(t *testing.T) {
	for rel, want := range map[string]bool{
		"incoming/m_abc.jpg": true, "m_abc/full.jpg": true,
		"": false, "../secret.key": false, "a/../../b": false, "/etc/passwd": false, "a//b": false, `a\b`: false, "./a": false,
	} {
		if safeRel(rel) != want {
			t.Errorf("safeRel(%q) = %v", rel, !want)
		}
	}
}

// TestEndpointWarning: an s3 replica over plain http to a host other than this
// machine is warned about (at start and in replica status); https, loopback and
// folder replicas are not.
func TestEndpointWarning(t *testing.T) {
	for _, tc := range []struct {
		url, endpoint string
		warn          bool
	}{
		{"s3://b/p", "http://minio.internal:9000", true},
		{"s3://b/p", "HTTP://10.0.0.5:9000", true},
		{"s3://b/p", "http://[2001:db8::1]:9000", true},
		{"s3://b/p", "https://minio.internal:9000", false},
		{"s3://b/p", "http://127.0.0.1:9000", false},
		{"s3://b/p", "http://127.8.0.1:9000", false},
		{"s3://b/p", "http://localhost:9000", false},
		{"s3://b/p", "http://[::1]:9000", false},
		{"s3://b/p", "", false},
		{"/srv/replica", "http://minio.internal:9000", false},
	} {
		c := Defaults
		c.URL, c.Endpoint = tc.url, tc.endpoint
		w := c.EndpointWarning()
		if (w != "") != tc.warn || (tc.warn && !strings.Contains(w, "plain http") || tc.warn && !strings.Contains(w, "use https")) {
			t.Errorf("%s %s: warning %q, want one: %v", tc.url, tc.endpoint, w, tc.warn)
		}
	}
}

// Package s3test runs an in-process S3-compatible server (gofakes3 over memory)
// for tests of the s3 media store: it speaks the real S3 wire format, so the
// store's client is exercised as against AWS, MinIO or Garage.
package s3test

import (
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"reviewd/app/media"
)

// Server is one running fake S3 server with one bucket.
type Server struct {
	URL     string
	Bucket  string
	backend *s3mem.Backend
	down    *atomic.Bool
}

// Down makes the server answer every request 503 Service Unavailable (true) or
// work again (false), as a bucket that is unreachable for a while.
func (s *Server) Down(down bool) { s.down.Store(down) }

// Start starts a server with the bucket and stops it when the test ends.
func Start(t testing.TB, bucket string) *Server {
	t.Helper()
	b := s3mem.New()
	if err := b.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	down := &atomic.Bool{}
	h := gofakes3.New(b).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return &Server{URL: srv.URL, Bucket: bucket, backend: b, down: down}
}

// Config is the media configuration of the s3 store on this server under
// prefix, with media.public_url the public prefix's path-style address.
func (s *Server) Config(prefix string) media.Config {
	c := media.Config{Store: media.StoreS3, S3: media.S3Config{Endpoint: s.URL, Bucket: s.Bucket,
		Region: "us-east-1", AccessKey: "test-key", SecretKey: "test-secret", PathStyle: true, Prefix: prefix}}
	c.PublicURL = s.URL + "/" + s.Bucket + "/" + c.S3.KeyPrefix() + "public"
	return c
}

// Keys lists every key of the bucket that starts with prefix, sorted.
func (s *Server) Keys(t testing.TB, prefix string) []string {
	t.Helper()
	var out []string
	var marker string
	for {
		page := gofakes3.ListBucketPage{HasMarker: marker != "", Marker: marker, MaxKeys: 1000}
		res, err := s.backend.ListBucket(s.Bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Contents {
			out = append(out, c.Key)
		}
		if !res.IsTruncated || len(res.Contents) == 0 {
			break
		}
		marker = res.Contents[len(res.Contents)-1].Key
	}
	sort.Strings(out)
	return out
}

// KeysOf lists the bucket keys that contain the media id.
func (s *Server) KeysOf(t testing.TB, id string) []string {
	var out []string
	for _, k := range s.Keys(t, "") {
		if strings.Contains(k, id) {
			out = append(out, k)
		}
	}
	return out
}

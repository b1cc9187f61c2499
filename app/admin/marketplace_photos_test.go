package admin_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/platform/platformtest"
)

// withComment puts a JPEG comment segment carrying text right after the SOI
// marker (metadata the media pipeline must not pass on).
func withComment(jpg []byte, text string) []byte {
	seg := []byte{0xFF, 0xFE}
	seg = binary.BigEndian.AppendUint16(seg, uint16(len(text)+2))
	seg = append(seg, text...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// photoHost is an https server of marketplace photos (images.trendyol.com) that
// counts the requests of each path.
type photoHost struct {
	mu    sync.Mutex
	files map[string][]byte
	down  map[string]bool // 503 while set
	hits  map[string]int
	srv   *platformtest.TLSServer
}

func startPhotoHost(t *testing.T) *photoHost {
	h := &photoHost{files: map[string][]byte{}, down: map[string]bool{}, hits: map[string]int{}}
	h.srv = platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.hits[r.URL.Path]++
		if h.down[r.URL.Path] {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		b, ok := h.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(b)
	}), "images.trendyol.com")
	return h
}

func (h *photoHost) set(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fn()
}

func (h *photoHost) hit(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// reviewMedia returns the storefront media of the blue mug's review with body,
// after the media job ran.
func (f *marketFx) reviewMedia(body string) []map[string]any {
	f.t.Helper()
	if _, err := f.env.App.Reviews.ProcessMedia(context.Background(), f.env.Clock.T, 50); err != nil {
		f.t.Fatal(err)
	}
	for _, r := range f.list("product=MUG-BLUE")["reviews"].([]any) {
		r := r.(map[string]any)
		if r["body"] == body {
			var out []map[string]any
			for _, m := range r["media"].([]any) {
				out = append(out, m.(map[string]any))
			}
			return out
		}
	}
	f.t.Fatalf("no storefront review %q", body)
	return nil
}

// TestMarketplacePhotos: photo addresses of a marketplace file are fetched over
// the outbound client (an https server with real JPEG bytes) after the import,
// scanned (when the tests have clamd), stripped of metadata and shown on the
// storefront review; a failing address is counted in photos_missing and tried
// again by the marketplace job an hour later; an address gone for good (404) is not tried again; a
// photo the row no longer lists is removed; a removal request purges them.
func TestMarketplacePhotos(t *testing.T) {
	clamd := os.Getenv("REVIEWD_TEST_CLAMD")
	f := newMarketFxWith(t, func(c *app.Config) { c.Clamd.Address = clamd })
	const marker = "CAMERA-GPS-41.0082N-28.9784E"
	host := startPhotoHost(t)
	host.set(func() {
		host.files["/a.jpg"] = withComment(photo(t, 1600, 1200), marker)
		host.files["/b.jpg"] = photo(t, 800, 600)
		host.files["/c.jpg"] = photo(t, 640, 480)
		host.down["/c.jpg"] = true
		host.files["/virus.jpg"] = withComment(photo(t, 64, 64), "EICAR-STANDARD-"+"ANTIVIRUS-TEST-FILE")
		host.down["/b.jpg"] = true
	})
	f.env.App.Marketplace.Outbound = host.srv.Client
	src := f.source("trendyol", "file", nil)
	head, rows := header("trendyol", true), marketRows("trendyol")
	rows[0][8] = "https://images.trendyol.com/a.jpg | https://images.trendyol.com/b.jpg;https://images.trendyol.com/c.jpg"
	rows[1][8] = "https://images.trendyol.com/gone.jpg"
	wantMissing := 3.0 // b.jpg and c.jpg (503 for now) and gone.jpg (404)
	if clamd != "" {
		rows[2][8] = "https://images.trendyol.com/virus.jpg"
		wantMissing++
	}
	file := csvFile(t, head, rows, ',')
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "photos.csv", file, nil), 202, "")
	run := f.waitRun(src)
	if run["state"] != "succeeded" || counts(run)["photos_missing"] != wantMissing || report(run)["photos_missing"] != wantMissing {
		t.Fatalf("first run: %v", run)
	}
	first := "Çok güzel bir kupa, tavsiye ederim."
	media := f.reviewMedia(first)
	if len(media) != 1 || media[0]["kind"] != "image" || media[0]["width"] != float64(1600) {
		t.Fatalf("storefront media: %v", media)
	}
	// The served files are the pipeline's: renditions, no metadata.
	if !strings.Contains(media[0]["srcset"].(string), "640w") {
		t.Fatalf("renditions: %v", media[0])
	}
	res := f.env.Do("GET", strings.TrimPrefix(media[0]["url"].(string), "http://reviewd.test"), nil, nil)
	if res.Status != 200 || res.Header.Get("Content-Type") != "image/jpeg" || bytes.Contains(res.Body, []byte(marker)) {
		t.Fatalf("served photo: %d %s, marker kept %v", res.Status, res.Header.Get("Content-Type"), bytes.Contains(res.Body, []byte(marker)))
	}
	if clamd != "" {
		entries, _ := os.ReadDir(f.env.App.MediaDir() + "/incoming")
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				t.Fatalf("a refused photo was kept: %s", e.Name())
			}
		}
	}

	// The marketplace job tries the failed address again an hour later (the
	// file route has no scheduled reads).
	host.set(func() { host.down["/b.jpg"] = false })
	if _, _, err := f.env.App.Marketplace.RunDue(context.Background(), f.env.Clock.Now()); err != nil || host.hit("/b.jpg") != 1 {
		t.Fatalf("job retried at once: %v, %d requests", err, host.hit("/b.jpg"))
	}
	f.env.Clock.T = f.env.Clock.T.Add(61 * time.Minute)
	if _, _, err := f.env.App.Marketplace.RunDue(context.Background(), f.env.Clock.Now()); err != nil || host.hit("/b.jpg") != 2 {
		t.Fatalf("job retry: %v, %d requests", err, host.hit("/b.jpg"))
	}
	// The next read tries c.jpg again at once; the 404 is not asked again.
	host.set(func() { host.down["/c.jpg"] = false })
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "photos.csv", file, nil), 202, "")
	run = f.waitRun(src)
	if run["state"] != "succeeded" || counts(run)["unchanged"] != float64(3) || report(run)["photos_missing"] != wantMissing-2 {
		t.Fatalf("second run: %v", run)
	}
	if host.hit("/gone.jpg") != 1 || host.hit("/b.jpg") != 2 || host.hit("/c.jpg") != 3 || host.hit("/a.jpg") != 1 {
		t.Fatalf("requests: %v", host.hits)
	}
	media = f.reviewMedia(first)
	if len(media) != 3 || media[1]["width"] != float64(800) || media[2]["width"] != float64(640) {
		t.Fatalf("storefront media after retry: %v", media)
	}

	// The marketplace row drops a.jpg: its photo goes from the review.
	rows[0][8] = "https://images.trendyol.com/b.jpg https://images.trendyol.com/c.jpg"
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "photos.csv", csvFile(t, head, rows, ','), nil), 202, "")
	if run := f.waitRun(src); run["state"] != "succeeded" || counts(run)["updated"] != float64(1) {
		t.Fatalf("third run: %v", run)
	}
	media = f.reviewMedia(first)
	if len(media) != 2 || media[0]["width"] != float64(800) || media[1]["width"] != float64(640) {
		t.Fatalf("storefront media after the row changed: %v", media)
	}

	// A removal request purges the review's photos.
	res = f.do("GET", "/admin/v1/marketplace/imported-reviews?q=R-1", nil)
	id := res.JSON["items"].([]any)[0].(map[string]any)["id"].(string)
	res = f.do("POST", "/admin/v1/marketplace/removals", map[string]any{"reviews": []string{id}})
	expect(t, res, 201, "")
	if res.JSON["media_purged"] != float64(2) {
		t.Fatalf("removal: %s", res)
	}
	if res := f.env.Do("GET", strings.TrimPrefix(media[0]["url"].(string), "http://reviewd.test"), nil, nil); res.Status != 404 {
		t.Fatalf("purged photo still served: %d", res.Status)
	}
}

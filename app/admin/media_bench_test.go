package admin_test

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/media"
)

// TestMediaUploadBench measures upload-to-published time of a 12 MB photo and a
// 60-second video on the local store and on the s3 store (an in-process S3 server
// over loopback): POST /v1/media (received, virus-scanned when
// REVIEWD_TEST_CLAMD is set, checked), the review written, the media job
// (processing, then the files written to the store), the moderator's approval
// (public copies on s3) and the first answer with content from the public address
// (the first KiB, as a player starts). Not run in CI:
//
//	REVIEWD_BENCH_MEDIA=1 go test -run TestMediaUploadBench -v -timeout 30m ./app/admin/
//
// REVIEWD_BENCH_MEDIA_RUNS sets the runs per case (default 3); the median is
// reported. Needs ffmpeg and ffprobe (REVIEWD_FFMPEG, REVIEWD_FFPROBE or PATH).
func TestMediaUploadBench(t *testing.T) {
	if os.Getenv("REVIEWD_BENCH_MEDIA") == "" {
		t.Skip("set REVIEWD_BENCH_MEDIA=1")
	}
	ffmpeg, ffprobe := os.Getenv("REVIEWD_FFMPEG"), os.Getenv("REVIEWD_FFPROBE")
	if ffmpeg == "" {
		ffmpeg, _ = exec.LookPath("ffmpeg")
	}
	if ffprobe == "" {
		ffprobe, _ = exec.LookPath("ffprobe")
	}
	runs := 3
	if n := os.Getenv("REVIEWD_BENCH_MEDIA_RUNS"); n != "" {
		fmt.Sscan(n, &runs)
	}
	photoFile := benchPhoto(t)
	video := benchVideo(t, ffmpeg)
	t.Logf("photo %d bytes, video %d bytes (60 s, 1280x720, H.264)", len(photoFile), len(video))
	for _, kind := range []struct {
		name string
		file []byte
	}{{"photo 12 MB", photoFile}, {"video 60 s", video}} {
		// The stores take turns run by run, so a machine whose load changes
		// weighs on both alike.
		type times struct{ total, upload, process, publish []time.Duration }
		got := make([]times, len(mediaStores))
		for range runs {
			for i, sc := range mediaStores {
				edit, _ := sc.config(t)
				m := newModEnvWith(t, func(c *app.Config) {
					if edit != nil {
						edit(c)
					}
					c.Clamd.Address = os.Getenv("REVIEWD_TEST_CLAMD")
					c.FFmpeg = app.FFmpeg{FFmpeg: ffmpeg, FFprobe: ffprobe}
				})
				m.env.NoLimits()
				ext := m.order(review{channel: "web", email: "a@mail.example", variant: "SKU-1", product: "Kettle"})
				t0 := time.Now()
				mid := m.upload(ext, kind.file)
				t1 := time.Now()
				id := m.writeFor(ext, review{channel: "web", body: "Benchmark.", media: []string{mid}})
				m.runMedia()
				t2 := time.Now()
				expect(t, m.transition(id, "approve", ""), 200, "")
				it := item(t, m, mid)
				if code := fetch(t, m, it.URL); code != 200 {
					t.Fatalf("%s %s: public address %d", kind.name, sc.name, code)
				}
				t3 := time.Now()
				g := &got[i]
				g.total, g.upload = append(g.total, t3.Sub(t0)), append(g.upload, t1.Sub(t0))
				g.process, g.publish = append(g.process, t2.Sub(t1)), append(g.publish, t3.Sub(t2))
			}
		}
		for i, sc := range mediaStores {
			g := got[i]
			t.Logf("%-12s %-5s upload-to-published median %7.0f ms (medians: upload %6.0f ms, write+process+store %6.0f ms, approve+public %5.0f ms) over %d runs",
				kind.name, sc.name, ms(median(g.total)), ms(median(g.upload)), ms(median(g.process)), ms(median(g.publish)), runs)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func item(t *testing.T, m *modEnv, mid string) (it struct{ URL string }) {
	t.Helper()
	mm, err := m.env.App.DB.Read().MediaByPublicID(m.ctx, mid)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := m.env.App.Read.PublicMediaItem(mm)
	if !ok {
		t.Fatalf("media %s not ready: %s", mid, mm.Refusal)
	}
	it.URL = v.URL
	return it
}

// fetch asks the public address for the first KiB (as a video player starts) and
// answers the status; 206 is mapped to 200.
func fetch(t *testing.T, m *modEnv, url string) int {
	t.Helper()
	code := func(c int) int {
		if c == http.StatusPartialContent {
			return http.StatusOK
		}
		return c
	}
	if p, ok := bytes.CutPrefix([]byte(url), []byte("http://reviewd.test")); ok {
		return code(m.do("GET", string(p), nil, map[string]string{"Range": "bytes=0-1023"}).Status)
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Range", "bytes=0-1023")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = bytes.NewBuffer(nil).ReadFrom(res.Body)
	return code(res.StatusCode)
}

// benchPhoto makes a noisy JPEG just under the 12 MB limit (noise keeps the
// encoder from compressing it small, as a camera photo of foliage would).
func benchPhoto(t *testing.T) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for side := 3000; side > 1000; side -= 100 {
		w, h := side*4/3, side
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = uint8(rng.IntN(256))
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		if b.Len() <= media.ImageMaxBytes && b.Len() > media.ImageMaxBytes*85/100 {
			return b.Bytes()
		}
		if b.Len() <= media.ImageMaxBytes {
			t.Fatalf("noise JPEG of %dx%d is only %d bytes", w, h, b.Len())
		}
	}
	t.Fatal("no photo under the limit")
	return nil
}

// benchVideo encodes a 60-second 720p H.264 MP4 with ffmpeg.
func benchVideo(t *testing.T, ffmpeg string) []byte {
	t.Helper()
	if ffmpeg == "" {
		t.Skip("no ffmpeg")
	}
	out := filepath.Join(t.TempDir(), "bench.mp4")
	cmd := exec.Command(ffmpeg, "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "60",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-b:v", "6M", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package storefront_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/buyer"
	"reviewd/app/core/reviews"
	"reviewd/app/media"
)

// TestMediaRefusals: every refusal of spec 2 "Media upload" that a file can earn.
func TestMediaRefusals(t *testing.T) {
	f := newFx(t)
	f.order("M-1", "ayse@example.com", line{ref: "1"}, line{ref: "2"})
	tok := f.issue(buyer.TokenInvitation, "M-1", "1", "2")

	// The crafted WebP of the security review: a 1x1 VP8X canvas in front of a
	// 16382x16000 lossless frame, refused from its headers at upload.
	bomb, err := os.ReadFile("../media/testdata/bomb.webp")
	if err != nil {
		t.Fatal(err)
	}
	bigImage := append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, make([]byte, 12<<20)...)
	cases := []struct {
		name   string
		token  string
		ref    string
		file   []byte
		status int
		want   string
	}{
		{"gif", tok, "1", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), 400, "refused / type_not_allowed: gif"},
		{"pdf named .jpg", tok, "1", []byte("%PDF-1.7\n%..."), 400, "refused / type_not_allowed: pdf"},
		{"empty", tok, "1", []byte{}, 400, "refused / type_not_allowed: unknown"},
		{"image over 12 MB", tok, "1", bigImage, 400, "refused / too_large: 12"},
		{"unreadable jpeg", tok, "1", append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, bytes.Repeat([]byte("x"), 300)...), 422, "refused / image_unreadable"},
		{"webp frame larger than its canvas", tok, "1", bomb, 422, "refused / image_unreadable"},
		{"over 40 megapixels", tok, "1", hugePNGHeader(8000, 6000), 422, "refused / image_too_large"},
		{"no token", "", "1", testPNG(t, 4, 4), 401, "token_required / token_required"},
		{"unknown token", "abc", "1", testPNG(t, 4, 4), 403, "token_refused / token_unknown"},
		{"line out of scope", tok, "9", testPNG(t, 4, 4), 403, "token_refused / line_out_of_scope"},
		{"no line", tok, "", testPNG(t, 4, 4), 400, "invalid / line_reference_required"},
		{"no file", tok, "1", nil, 400, "invalid / file_required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantCode(t, f.upload(c.token, c.ref, c.file), c.status, c.want)
		})
	}
	// 18 unattached files per line, then too_many_items: 18; other lines are apart.
	for i := 0; i < 18; i++ {
		res := f.upload(tok, "1", testPNG(t, 4, 4))
		if res.Status != 201 || res.JSON["kind"] != "image" || res.JSON["state"] != "uploaded" || res.JSON["url"] != nil {
			t.Fatalf("upload %d: %d %s", i, res.Status, res.Body)
		}
	}
	wantCode(t, f.upload(tok, "1", testPNG(t, 4, 4)), 400, "refused / too_many_items: 18")
	if res := f.upload(tok, "2", testPNG(t, 4, 4)); res.Status != 201 {
		t.Fatalf("line 2: want 201, got %s", res)
	}
	// Nothing refused was kept.
	entries, _ := os.ReadDir(f.App.MediaDir() + "/incoming")
	if len(entries) != 19 {
		t.Fatalf("%d files waiting, want 19", len(entries))
	}
}

// TestMediaBodyTooLarge: a request body over the limit is 413 refused / too_large:
// 200 before it is read.
func TestMediaBodyTooLarge(t *testing.T) {
	f := newFx(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/media HTTP/1.1\r\nHost: x\r\nX-Service-Site-Key: %s\r\nOrigin: https://shop.example\r\n"+
		"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n--b\r\n", f.site, reviews.MaxUploadBody+1)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 413 || !strings.Contains(string(body), `"detail":"too_large: 200"`) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

// TestMediaQuarantined: a file the real test clamd finds is refused and deleted.
func TestMediaQuarantined(t *testing.T) {
	addr := os.Getenv("REVIEWD_TEST_CLAMD")
	if addr == "" {
		t.Skip("REVIEWD_TEST_CLAMD is not set: start the test clamd with scripts/clamd-test.sh start and export its address")
	}
	f := newFx(t)
	f.App.SetScanner(&media.Scanner{Address: addr})
	f.order("Q-1", "ayse@example.com")
	tok := f.issue(buyer.TokenInvitation, "Q-1", "1")
	infected := append(testJPEG(t, 16, 16), []byte("EICAR-STANDARD-"+"ANTIVIRUS-TEST-FILE")...)
	wantCode(t, f.upload(tok, "1", infected), 422, "refused / quarantined")
	entries, _ := os.ReadDir(f.App.MediaDir() + "/incoming")
	if len(entries) != 0 {
		t.Fatalf("quarantined file kept: %v", entries)
	}
	if res := f.upload(tok, "1", testJPEG(t, 16, 16)); res.Status != 201 {
		t.Fatalf("clean file: want 201, got %s", res)
	}
	// An unreachable scanner never lets a file through.
	f.App.SetScanner(&media.Scanner{Address: "tcp:127.0.0.1:1"})
	wantCode(t, f.upload(tok, "1", testJPEG(t, 16, 16)), 422, "refused / scan_failed")
}

// TestMediaVideoLimits: a real 120 fps clip is refused at upload with
// video_frame_rate_too_high: 60; a good clip is processed with a poster.
func TestMediaVideoLimits(t *testing.T) {
	fast := clip(t, 120, 1)
	f := newFx(t)
	f.useVideoTools()
	f.order("VD-1", "ayse@example.com")
	tok := f.issue(buyer.TokenInvitation, "VD-1", "1")
	wantCode(t, f.upload(tok, "1", fast), 422, "refused / video_frame_rate_too_high: 60")

	f.setMethod("automatic")
	vid := f.mustUpload(tok, "1", clip(t, 25, 1.5))
	id, _ := f.mustWrite(tok, row("1", map[string]any{"media": []string{vid}}))
	if s := f.runMedia(); !strings.HasPrefix(s, "ready=1 ") {
		t.Fatalf("media job: %s", s)
	}
	m := f.media(vid)
	item, ok := f.App.Read.PublicMediaItem(m)
	if !ok || m.Kind != "video" || m.Width != 160 || m.DurationMs < 1400 || item.PosterURL == "" ||
		!strings.HasSuffix(item.URL, "/video.mp4") || !strings.Contains(item.Srcset, "-poster") {
		t.Fatalf("video %+v %+v", m, item)
	}
	if res := f.Do("GET", "/media/"+vid+"/video.mp4", nil, nil); res.Status != 200 || res.Header.Get("Content-Type") != "video/mp4" {
		t.Fatalf("video: want 200, got %s", res)
	}
	if f.review(id).State != "published" {
		t.Fatal("not published")
	}
}

// TestMediaPipeline: a JPEG with EXIF GPS is processed by the media job; the served
// files carry no EXIF; they are reachable only while the review is published, with
// Range support.
func TestMediaPipeline(t *testing.T) {
	f := newFx(t)
	f.setMethod("manual")
	f.order("MP-1", "ayse@example.com")
	tok := f.issue(buyer.TokenInvitation, "MP-1", "1")
	photo := withGPS(testJPEG(t, 1600, 1200))
	if !bytes.Contains(photo, []byte(gpsMarker)) {
		t.Fatal("test photo has no EXIF")
	}
	mid := f.mustUpload(tok, "1", photo)
	id, state := f.mustWrite(tok, row("1", map[string]any{"media": []string{mid}}))
	if state != "pending" {
		t.Fatal(state)
	}
	if res := f.Do("GET", "/media/"+mid+"/image.jpg", nil, nil); res.Status != 404 {
		t.Fatalf("before processing: want 404, got %s", res)
	}
	if s := f.runMedia(); s != "ready=1 failed=0 retried=0" {
		t.Fatalf("media job: %s", s)
	}
	m := f.media(mid)
	item, ok := f.App.Read.PublicMediaItem(m)
	if !ok || m.State != "ready" || m.Width != 1600 || m.Height != 1200 {
		t.Fatalf("media %+v", m)
	}
	base := "http://reviewd.test/media/" + mid + "/"
	wantSet := base + "image-320.jpg 320w, " + base + "image-640.jpg 640w, " + base + "image-1280.jpg 1280w, " + base + "image.jpg 1600w"
	if item.URL != base+"image.jpg" || item.Srcset != wantSet || item.Kind != "image" || item.Width != 1600 || item.PosterURL != "" {
		t.Fatalf("item %+v", item)
	}
	// Pending review: not public.
	for _, name := range []string{"image.jpg", "image-640.jpg"} {
		if res := f.Do("GET", "/media/"+mid+"/"+name, nil, nil); res.Status != 404 || res.Code() != "not_found / not_found" {
			t.Fatalf("pending %s: %d", name, res.Status)
		}
	}
	f.setState(id, core.ReviewPublished)
	for _, name := range []string{"image.jpg", "image-320.jpg", "image-640.jpg", "image-1280.jpg"} {
		res := f.Do("GET", "/media/"+mid+"/"+name, nil, nil)
		if res.Status != 200 || res.Header.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("%s: %d", name, res.Status)
		}
		if bytes.Contains(res.Body, []byte("Exif")) || bytes.Contains(res.Body, []byte(gpsMarker)) {
			t.Fatalf("%s still carries EXIF", name)
		}
		if _, _, err := readJPEGSize(res.Body); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	res := f.Do("GET", "/media/"+mid+"/image-320.jpg", nil, map[string]string{"Range": "bytes=0-99"})
	if res.Status != 206 || len(res.Body) != 100 || !strings.HasPrefix(res.Header.Get("Content-Range"), "bytes 0-99/") {
		t.Fatalf("range: %d %d %s", res.Status, len(res.Body), res.Header.Get("Content-Range"))
	}
	if res := f.Do("GET", "/media/"+mid+"/other.jpg", nil, nil); res.Status != 404 {
		t.Fatalf("unknown file: want 404, got %s", res)
	}
	// A frozen brand still shows its published media; a closed one shows none.
	for _, c := range []struct {
		state  string
		status int
	}{{access.BrandFrozen, 200}, {access.BrandClosed, 403}, {access.BrandActive, 200}} {
		if err := f.App.Access.SetBrandState(context.Background(), core.Console(), c.state); err != nil {
			t.Fatal(err)
		}
		res := f.Do("GET", "/media/"+mid+"/image.jpg", nil, nil)
		if res.Status != c.status || (c.status == 403 && res.Code() != "refused / tenant_inactive") {
			t.Fatalf("brand %s: want %d, got %s", c.state, c.status, res)
		}
	}
	f.setState(id, core.ReviewHidden)
	if res := f.Do("GET", "/media/"+mid+"/image.jpg", nil, nil); res.Status != 404 {
		t.Fatalf("hidden: want 404, got %s", res)
	}
	// The waiting upload is gone once processed.
	if entries, _ := os.ReadDir(f.App.MediaDir() + "/incoming"); len(entries) != 0 {
		t.Fatalf("incoming not emptied: %v", entries)
	}
}

// TestMediaUnreadableVideoFailsLater: a video that cannot be read at upload is
// accepted, then refused by the job and never shown.
func TestMediaUnreadableVideoFailsLater(t *testing.T) {
	ffmpeg(t)
	f := newFx(t)
	f.useVideoTools()
	f.order("MU-1", "ayse@example.com")
	tok := f.issue(buyer.TokenInvitation, "MU-1", "1")
	broken := append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"), bytes.Repeat([]byte{7}, 2000)...)
	mid := f.mustUpload(tok, "1", broken)
	f.runMedia()
	if m := f.media(mid); m.State != "failed" || m.Refusal == "" {
		t.Fatalf("media %+v", m)
	}
}

package storefront_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cdn"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/media"
	"reviewd/store"
	"reviewd/store/storetest"
)

// fx is a running installation with a TR channel "web" (verified domain
// shop.example), its server and site keys.
type fx struct {
	*apptest.Env
	server, site string
}

func newFx(t *testing.T) *fx {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	return &fx{Env: env, server: env.Key("server", "web"), site: env.Key("site", "web")}
}

// newCDNFx is newFx with a CDN purge route configured (cdn.purge.kind): only then
// do the public answers carry the CDN's directives and tags.
func newCDNFx(t *testing.T) *fx {
	t.Helper()
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.CDN.Purge = cdn.PurgeConfig{Kind: cdn.KindCloudflare, ZoneID: "zone123", APIToken: "cf-token"}
	})
	env.Channel("web", "TR", "tr")
	return &fx{Env: env, server: env.Key("server", "web"), site: env.Key("site", "web")}
}

var ctx = context.Background()

// browser are the headers of a store page on the verified domain.
func (f *fx) browser() map[string]string {
	return map[string]string{"X-Service-Site-Key": f.site, "Origin": "https://shop.example"}
}

// post sends a JSON body from the store page.
func (f *fx) post(path string, body any) apptest.Response {
	f.T.Helper()
	return f.Do("POST", path, body, f.browser())
}

// line is an order line of the test orders; state "" is delivered.
type line struct {
	ref, variant, group, state string
}

// order ingests an order through POST /v1/ingest/orders with the server key: paid,
// placed 12 days ago, lines delivered 2 days ago unless they say otherwise.
func (f *fx) order(ext, email string, lines ...line) {
	f.T.Helper()
	f.orderWith(ext, email, "paid", lines...)
}

func (f *fx) orderWith(ext, email, payment string, lines ...line) {
	f.T.Helper()
	if len(lines) == 0 {
		lines = []line{{ref: "1"}}
	}
	var items []any
	for _, l := range lines {
		it := map[string]any{"line_reference": l.ref, "variant_key": "SKU-" + l.ref, "title": "Product " + l.ref}
		if l.variant != "" {
			it["variant_key"] = l.variant
		}
		if l.group != "" {
			it["group_key"] = l.group
		}
		switch l.state {
		case "":
			it["fulfilment_state"] = "delivered"
			it["delivered_at"] = f.Clock.T.Add(-48 * time.Hour).Format(time.RFC3339)
		default:
			it["fulfilment_state"] = l.state
		}
		items = append(items, it)
	}
	body := map[string]any{"channel": "web", "external_id": ext, "payment_state": payment,
		"placed_at": f.Clock.T.Add(-12 * 24 * time.Hour).Format(time.RFC3339), "customer_email": email, "items": items}
	res := f.Do("POST", "/v1/ingest/orders", body, map[string]string{"Authorization": "Bearer " + f.server})
	if res.Status != 200 && res.Status != 201 && res.Status != 202 {
		f.T.Fatalf("ingest order %s: %d %s", ext, res.Status, res.Body)
	}
}

// issue makes a token of kind for lines of an order directly (as the invitations
// job would), valid for 30 days unless expires is given; it returns the link form.
func (f *fx) issue(kind, ext string, refs ...string) string {
	f.T.Helper()
	return f.issueUntil(kind, ext, f.Clock.T.Add(30*24*time.Hour), refs...)
}

func (f *fx) issueUntil(kind, ext string, expires time.Time, refs ...string) string {
	f.T.Helper()
	var tok string
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		o, err := tx.OrderByExternalID(ctx, ext)
		if err != nil {
			return err
		}
		lines, err := tx.LinesOfOrder(ctx, o.ID)
		if err != nil {
			return err
		}
		var ids []int64
		for _, l := range lines {
			for _, r := range refs {
				if l.LineReference == r {
					ids = append(ids, l.ID)
				}
			}
		}
		plain, _, err := buyer.IssueToken(ctx, tx, kind, o, ids, expires, 0)
		tok = f.App.Buyer.TagToken(plain)
		return err
	})
	if err != nil {
		f.T.Fatal(err)
	}
	return tok
}

// row is a review row with a rating of 5 and a short text.
func row(ref string, mods ...map[string]any) map[string]any {
	r := map[string]any{"line_reference": ref, "rating": 5, "title": "Nice", "body": "Does what it should."}
	for _, m := range mods {
		for k, v := range m {
			if v == nil {
				delete(r, k)
			} else {
				r[k] = v
			}
		}
	}
	return r
}

// write posts reviews with a token.
func (f *fx) write(token string, rows ...map[string]any) apptest.Response {
	f.T.Helper()
	return f.post("/v1/reviews", map[string]any{"token": token, "reviews": rows})
}

// mustWrite writes one review and returns its id and state.
func (f *fx) mustWrite(token string, r map[string]any) (string, string) {
	f.T.Helper()
	res := f.write(token, r)
	if res.Status != 201 {
		f.T.Fatalf("write: want 201, got %s", res)
	}
	got := res.JSON["reviews"].([]any)[0].(map[string]any)
	return got["id"].(string), got["state"].(string)
}

func (f *fx) review(id string) store.Review {
	f.T.Helper()
	r, err := f.App.DB.Read().ReviewByPublicID(ctx, id)
	if err != nil {
		f.T.Fatalf("review %s: %v", id, err)
	}
	return r
}

// setMethod sets the publishing method.
func (f *fx) setMethod(method string) {
	f.T.Helper()
	if _, err := f.App.Brand.UpdateSettings(ctx, core.Console(), map[string]json.RawMessage{
		"publishing_method": json.RawMessage(`"` + method + `"`)}); err != nil {
		f.T.Fatal(err)
	}
}

// setState moves a review as a moderator would (moderation endpoints are not ours).
func (f *fx) setState(id, state string) {
	f.T.Helper()
	r := f.review(id)
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error { return storetest.SetReviewState(ctx, tx, r.ID, state) })
	if err != nil {
		f.T.Fatal(err)
	}
}

// correction rejects a review and returns its correction token.
func (f *fx) correction(id string) string {
	f.T.Helper()
	f.setState(id, core.ReviewRejected)
	var link string
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		link, err = f.App.Reviews.IssueCorrectionLink(ctx, tx, f.review(id).ID)
		return err
	})
	if err != nil {
		f.T.Fatal(err)
	}
	_, tok, ok := strings.Cut(link, "#review_token=")
	if !ok {
		f.T.Fatalf("correction link %q", link)
	}
	return tok
}

// upload posts a file to POST /v1/media.
func (f *fx) upload(token, ref string, file []byte) apptest.Response {
	f.T.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("token", token)
	_ = mw.WriteField("line_reference", ref)
	if file != nil {
		w, _ := mw.CreateFormFile("file", "photo.bin")
		_, _ = w.Write(file)
	}
	_ = mw.Close()
	h := f.browser()
	h["Content-Type"] = mw.FormDataContentType()
	return f.Do("POST", "/v1/media", buf.Bytes(), h)
}

// mustUpload uploads and returns the media id.
func (f *fx) mustUpload(token, ref string, file []byte) string {
	f.T.Helper()
	res := f.upload(token, ref, file)
	if res.Status != 201 {
		f.T.Fatalf("upload: want 201, got %s", res)
	}
	return res.JSON["id"].(string)
}

// runMedia runs the media job once.
func (f *fx) runMedia() string {
	f.T.Helper()
	run, err := f.App.Reviews.ProcessMedia(ctx, f.Clock.T, 50)
	if err != nil {
		f.T.Fatal(err)
	}
	return run.String()
}

func (f *fx) media(id string) store.Media {
	f.T.Helper()
	m, err := f.App.DB.Read().MediaByPublicID(ctx, id)
	if err != nil {
		f.T.Fatal(err)
	}
	return m
}

// testJPEG encodes a w x h photo.
func testJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gpsMarker is written into the EXIF of withGPS so tests can look for it.
const gpsMarker = "Canon EOS GPS-TEST-DEVICE"

// withGPS inserts an EXIF block (camera model and a GPS position) after the JPEG's
// SOI marker.
func withGPS(jpg []byte) []byte {
	le := binary.LittleEndian
	var t bytes.Buffer
	entry := func(tag, typ uint16, count, value uint32) {
		_ = binary.Write(&t, le, tag)
		_ = binary.Write(&t, le, typ)
		_ = binary.Write(&t, le, count)
		_ = binary.Write(&t, le, value)
	}
	model := gpsMarker + "\x00"
	const ifdLen = 2 + 2*12 + 4
	modelOff := 8 + ifdLen
	gpsOff := modelOff + len(model)
	latOff := gpsOff + ifdLen
	t.WriteString("II*\x00")
	_ = binary.Write(&t, le, uint32(8))
	// IFD0: Model (ASCII) and the GPS IFD pointer.
	_ = binary.Write(&t, le, uint16(2))
	entry(0x0110, 2, uint32(len(model)), uint32(modelOff))
	entry(0x8825, 4, 1, uint32(gpsOff))
	_ = binary.Write(&t, le, uint32(0))
	t.WriteString(model)
	// GPS IFD: GPSLatitudeRef "N" (inline) and GPSLatitude 41/1 0/1 0/1.
	_ = binary.Write(&t, le, uint16(2))
	entry(0x0001, 2, 2, uint32('N'))
	entry(0x0002, 5, 3, uint32(latOff))
	_ = binary.Write(&t, le, uint32(0))
	for _, v := range []uint32{41, 1, 0, 1, 0, 1} {
		_ = binary.Write(&t, le, v)
	}
	payload := append([]byte("Exif\x00\x00"), t.Bytes()...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	seg = append(seg, payload...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// hugePNGHeader is a PNG whose header states width x height (no pixels).
func hugePNGHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	chunk("IHDR", ihdr)
	chunk("IEND", nil)
	return b.Bytes()
}

// ffmpeg returns the path of ffmpeg, skipping the test when there is none.
func ffmpeg(t *testing.T) string {
	t.Helper()
	p := os.Getenv("REVIEWD_FFMPEG")
	if p == "" {
		p = "ffmpeg"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		t.Skip("ffmpeg not found (set REVIEWD_FFMPEG): video tests skipped")
	}
	return path
}

// clip makes a short test video with ffmpeg.
func clip(t *testing.T, fps int, seconds float64) []byte {
	t.Helper()
	bin := ffmpeg(t)
	out := filepath.Join(t.TempDir(), "clip.mp4")
	args := []string{"-v", "error", "-f", "lavfi", "-i", fmt.Sprintf("testsrc=size=160x120:rate=%d", fps),
		"-t", fmt.Sprint(seconds), "-pix_fmt", "yuv420p", "-c:v", "libx264", out}
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		args[len(args)-2] = "mpeg4"
		if b2, err2 := exec.Command(bin, args...).CombinedOutput(); err2 != nil {
			t.Fatalf("ffmpeg: %v %s %s", err, b, b2)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// useVideoTools points the installation at the test ffmpeg/ffprobe.
func (f *fx) useVideoTools() {
	f.App.SetProbe(media.Probe{FFmpeg: os.Getenv("REVIEWD_FFMPEG"), FFprobe: os.Getenv("REVIEWD_FFPROBE")})
}

func wantCode(t *testing.T, res apptest.Response, status int, code string) {
	t.Helper()
	if res.Status != status || res.Code() != code {
		t.Fatalf("want %d %q, got %d %q for\n  %s", status, code, res.Status, res.Code(), res)
	}
}

// readJPEGSize decodes a JPEG header.
func readJPEGSize(b []byte) (int, int, error) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	return cfg.Width, cfg.Height, err
}

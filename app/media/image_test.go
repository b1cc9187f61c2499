package media_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"reviewd/app/media"
)

// exifTIFF builds a big-endian TIFF block with IFD0 (Make, Orientation, GPS
// pointer) and a GPS IFD with latitude and longitude.
func exifTIFF(orientation uint16) []byte {
	var b bytes.Buffer
	be := binary.BigEndian
	w16 := func(v uint16) { _ = binary.Write(&b, be, v) }
	w32 := func(v uint32) { _ = binary.Write(&b, be, v) }
	entry := func(tag, typ uint16, count, value uint32) { w16(tag); w16(typ); w32(count); w32(value) }

	const ifd0, makeAt, gpsAt = 8, 50, 62
	const latAt, lonAt = 116, 140
	b.WriteString("MM\x00\x2a")
	w32(ifd0)
	w16(3)
	entry(0x010F, 2, 12, makeAt)                 // Make
	entry(0x0112, 3, 1, uint32(orientation)<<16) // Orientation (SHORT, left-justified)
	entry(0x8825, 4, 1, gpsAt)                   // GPSInfo IFD pointer
	w32(0)                                       // no next IFD
	b.WriteString("SecretPhone\x00")             // 12 bytes at 50
	w16(4)                                       // GPS IFD at 62
	entry(0x0001, 2, 2, uint32('N')<<24)         // GPSLatitudeRef
	entry(0x0002, 5, 3, latAt)                   // GPSLatitude
	entry(0x0003, 2, 2, uint32('E')<<24)         // GPSLongitudeRef
	entry(0x0004, 5, 3, lonAt)                   // GPSLongitude
	w32(0)
	for _, v := range []uint32{41, 1, 0x2A2A, 1, 1234, 100} { // 41 deg 10794 min 12.34 s
		w32(v)
	}
	for _, v := range []uint32{29, 1, 0x3B3B, 1, 5678, 100} {
		w32(v)
	}
	return b.Bytes()
}

// withExif splices an APP1 Exif segment right after a JPEG's SOI marker.
func withExif(t *testing.T, jpg []byte, orientation uint16) []byte {
	t.Helper()
	payload := append([]byte("Exif\x00\x00"), exifTIFF(orientation)...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(2+len(payload)))
	seg = append(seg, payload...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// appSegments lists the APPn markers (0xE0-0xEF) of a JPEG before its first scan.
func appSegments(b []byte) []byte {
	var found []byte
	for i := 2; i+4 <= len(b) && b[i] == 0xFF; {
		m := b[i+1]
		if m == 0xDA {
			break
		}
		if m >= 0xE0 && m <= 0xEF {
			found = append(found, m)
		}
		i += 2 + int(binary.BigEndian.Uint16(b[i+2:i+4]))
	}
	return found
}

func decodeFile(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func isRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r > 0xC000 && g < 0x4000 && b < 0x4000
}

func isBlue(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return b > 0xC000 && r < 0x4000 && g < 0x4000
}

func TestProcessImageStripsExifAndAppliesOrientation(t *testing.T) {
	// 400x200 blue with a red block in the top-left corner, stored sideways:
	// orientation 6 means the viewer turns it 90 degrees clockwise.
	img := solid(400, 200, color.RGBA{0, 0, 255, 255})
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			img.Set(x, y, color.RGBA{255, 0, 0, 255})
		}
	}
	src := withExif(t, encodeJPEG(t, img), 6)
	if !bytes.Contains(src, []byte("Exif\x00\x00")) || !bytes.Contains(src, []byte("SecretPhone")) {
		t.Fatal("test input has no EXIF")
	}
	if _, err := jpeg.Decode(bytes.NewReader(src)); err != nil {
		t.Fatalf("test input is not a valid JPEG: %v", err)
	}

	dir := t.TempDir()
	res, err := media.ProcessImage(context.Background(), src, dir, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 200 || res.Height != 400 {
		t.Fatalf("size %dx%d, want 200x400 (turned upright)", res.Width, res.Height)
	}
	if len(res.Files) != 1 || res.Files[0].Name != "p1.jpg" {
		t.Fatalf("files %+v, want only p1.jpg (200 px wide has no renditions)", res.Files)
	}
	out, err := os.ReadFile(filepath.Join(dir, "p1.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(out)) != res.Files[0].Bytes {
		t.Errorf("Bytes %d, file has %d", res.Files[0].Bytes, len(out))
	}
	for _, secret := range []string{"Exif\x00\x00", "SecretPhone", "MM\x00\x2a"} {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("output still contains %q", secret)
		}
	}
	if apps := appSegments(out); len(apps) != 0 {
		t.Errorf("output has APP segments %x", apps)
	}
	got := decodeFile(t, filepath.Join(dir, "p1.jpg"))
	if b := got.Bounds(); b.Dx() != 200 || b.Dy() != 400 {
		t.Fatalf("decoded %v", b)
	}
	// Turned clockwise, the top-left corner is now top-right.
	if !isRed(got.At(150, 50)) || !isBlue(got.At(50, 50)) || !isBlue(got.At(150, 350)) {
		t.Errorf("orientation not applied: (150,50)=%v (50,50)=%v (150,350)=%v", got.At(150, 50), got.At(50, 50), got.At(150, 350))
	}
}

func TestProcessImageOrientations(t *testing.T) {
	// A 4x2 pattern scaled up: red quadrant top-left of a 200x100 image. For each
	// orientation, where the red block should end up in the upright picture.
	img := solid(200, 100, color.RGBA{0, 0, 255, 255})
	for y := 0; y < 50; y++ {
		for x := 0; x < 50; x++ {
			img.Set(x, y, color.RGBA{255, 0, 0, 255})
		}
	}
	base := encodeJPEG(t, img)
	tests := []struct {
		o            uint16
		w, h         int
		redX, redY   int
		blueX, blueY int
	}{
		{1, 200, 100, 25, 25, 175, 75},
		{2, 200, 100, 175, 25, 25, 25},
		{3, 200, 100, 175, 75, 25, 25},
		{4, 200, 100, 25, 75, 25, 25},
		{5, 100, 200, 25, 25, 75, 25},
		{6, 100, 200, 75, 25, 25, 25},
		{7, 100, 200, 75, 175, 25, 25},
		{8, 100, 200, 25, 175, 25, 25},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		res, err := media.ProcessImage(context.Background(), withExif(t, base, tc.o), dir, "o")
		if err != nil {
			t.Fatalf("orientation %d: %v", tc.o, err)
		}
		got := decodeFile(t, filepath.Join(dir, "o.jpg"))
		if res.Width != tc.w || res.Height != tc.h || !isRed(got.At(tc.redX, tc.redY)) || !isBlue(got.At(tc.blueX, tc.blueY)) {
			t.Errorf("orientation %d: %dx%d, red at (%d,%d)=%v, blue at (%d,%d)=%v", tc.o, res.Width, res.Height,
				tc.redX, tc.redY, got.At(tc.redX, tc.redY), tc.blueX, tc.blueY, got.At(tc.blueX, tc.blueY))
		}
	}
}

func TestProcessImageRenditions(t *testing.T) {
	// Horizontal stripes so the scaler has something to average.
	img := image.NewRGBA(image.Rect(0, 0, 3000, 1000))
	for y := 0; y < 1000; y++ {
		for x := 0; x < 3000; x++ {
			c := color.RGBA{200, 100, 50, 255}
			if y%2 == 0 {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	dir := t.TempDir()
	res, err := media.ProcessImage(context.Background(), encodeJPEG(t, img), dir, "big")
	if err != nil {
		t.Fatal(err)
	}
	want := []media.ImageFile{
		{Name: "big.jpg", Width: 2560, Height: 853},
		{Name: "big-320.jpg", Width: 320, Height: 107},
		{Name: "big-640.jpg", Width: 640, Height: 213},
		{Name: "big-1280.jpg", Width: 1280, Height: 427},
	}
	if res.Width != 2560 || res.Height != 853 || len(res.Files) != len(want) {
		t.Fatalf("result %+v", res)
	}
	for i, f := range res.Files {
		if f.Name != want[i].Name || f.Width != want[i].Width || f.Height != want[i].Height || f.Bytes <= 0 {
			t.Errorf("file %d = %+v, want %+v", i, f, want[i])
		}
		got := decodeFile(t, filepath.Join(dir, f.Name))
		if b := got.Bounds(); b.Dx() != f.Width || b.Dy() != f.Height {
			t.Errorf("%s decodes as %v", f.Name, b)
		}
		// Stripes averaged: about half of (200,100,50), no aliasing to black or orange.
		if f.Name == "big-320.jpg" {
			r, g, b, _ := got.At(160, 50).RGBA()
			if r>>8 < 80 || r>>8 > 120 || g>>8 < 35 || g>>8 > 65 || b>>8 > 45 {
				t.Errorf("downscaled colour %d,%d,%d, want about 100,50,25", r>>8, g>>8, b>>8)
			}
		}
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"big-1280.jpg", "big-320.jpg", "big-640.jpg", "big.jpg"}) {
		t.Errorf("folder holds %v", names)
	}

	// A portrait photo only gets renditions narrower than its width.
	dir = t.TempDir()
	res, err = media.ProcessImage(context.Background(), encodeJPEG(t, solid(500, 800, color.White)), dir, "tall")
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 500 || res.Height != 800 || len(res.Files) != 2 || res.Files[1].Name != "tall-320.jpg" || res.Files[1].Height != 512 {
		t.Errorf("portrait result %+v", res)
	}
}

func TestProcessImagePNGAlphaAndWebP(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64)) // fully transparent
	for y := 0; y < 32; y++ {
		for x := 0; x < 32; x++ {
			img.Set(x, y, color.NRGBA{0, 0, 0, 255})
		}
	}
	dir := t.TempDir()
	res, err := media.ProcessImage(context.Background(), encodePNG(t, img), dir, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	got := decodeFile(t, filepath.Join(dir, res.Files[0].Name))
	if r, g, b, _ := got.At(48, 48).RGBA(); r < 0xF000 || g < 0xF000 || b < 0xF000 {
		t.Errorf("transparent area = %v, want white", got.At(48, 48))
	}
	if r, _, _, _ := got.At(8, 8).RGBA(); r > 0x1000 {
		t.Errorf("opaque black area = %v", got.At(8, 8))
	}

	webp, err := os.ReadFile("testdata/red16.webp")
	if err != nil {
		t.Fatal(err)
	}
	res, err = media.ProcessImage(context.Background(), webp, dir, "w")
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 16 || res.Height != 16 || !isRed(decodeFile(t, filepath.Join(dir, "w.jpg")).At(8, 8)) {
		t.Errorf("webp result %+v", res)
	}
}

func TestProcessImageRefusals(t *testing.T) {
	jpg := encodeJPEG(t, solid(64, 64, color.White))
	tests := []struct {
		name string
		src  []byte
		want error
	}{
		// 8000x6000 = 48 MP: refused from the header; the pixel data is junk, so
		// reaching the decoder would have said image_unreadable instead.
		{"48 megapixel png header", pngHeaderOnly(8000, 6000), media.ErrImageTooLarge},
		{"just over 40 megapixels", pngHeaderOnly(40001, 1000), media.ErrImageTooLarge},
		{"exactly 40 megapixels is decoded", pngHeaderOnly(8000, 5000), media.ErrImageUnreadable},
		{"truncated jpeg", jpg[:len(jpg)/2], media.ErrImageUnreadable},
		{"png with junk pixels", pngHeaderOnly(100, 100), media.ErrImageUnreadable},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), media.ErrImageUnreadable},
		{"mp4 bytes", []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), media.ErrImageUnreadable},
		{"empty", nil, media.ErrImageUnreadable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := media.ProcessImage(context.Background(), tc.src, dir, "x")
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			r, ok := media.AsRefusal(err)
			if !ok || r.Status() != 422 {
				t.Errorf("refusal %v", r)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("left files %v", names)
			}
		})
	}
	w, h, err := media.ImageSize(pngHeaderOnly(6000, 6000))
	if w != 6000 || h != 6000 || err != nil {
		t.Errorf("ImageSize = %d, %d, %v", w, h, err)
	}
}

func TestProcessImageLeavesNothingOnFailure(t *testing.T) {
	src := encodeJPEG(t, solid(700, 300, color.White))

	// The last file cannot take its name (a folder is in the way): the files
	// already renamed are taken back and no temporary file stays.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "x-640.jpg"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := media.ProcessImage(context.Background(), src, dir, "x")
	if !errors.Is(err, media.ErrProcessingFailed) {
		t.Fatalf("err = %v", err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"x-640.jpg"}) {
		t.Errorf("folder holds %v", names)
	}

	_, err = media.ProcessImage(context.Background(), src, filepath.Join(dir, "missing"), "x")
	if !errors.Is(err, media.ErrProcessingFailed) {
		t.Errorf("missing folder: err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir = t.TempDir()
	if _, err := media.ProcessImage(ctx, src, dir, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("cancelled: left %v", names)
	}

	if _, err := media.ProcessImage(context.Background(), src, t.TempDir(), "../x"); err == nil {
		t.Error("base name with a path accepted")
	}
}

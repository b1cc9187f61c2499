package media_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"reviewd/app/media"
)

// FuzzImage: sniffing, the header check and processing of an uploaded photo never
// panic, whatever the bytes; failures are media refusals.
func FuzzImage(f *testing.F) {
	img := image.NewRGBA(image.Rect(0, 0, 6, 4))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.Set(1, 1, color.RGBA{255, 0, 0, 128})
	var j, p bytes.Buffer
	_ = jpeg.Encode(&j, img, nil)
	_ = png.Encode(&p, img)
	f.Add(j.Bytes())
	exif := append([]byte("Exif\x00\x00"), exifTIFF(6)...)
	seg := append([]byte{0xFF, 0xE1, byte((len(exif) + 2) >> 8), byte(len(exif) + 2)}, exif...)
	f.Add(append(append(append([]byte{}, j.Bytes()[:2]...), seg...), j.Bytes()[2:]...))
	f.Add(p.Bytes())
	if w, err := os.ReadFile(filepath.Join("testdata", "red16.webp")); err == nil {
		f.Add(w)
	}
	f.Add([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"))
	// The crafted WebP (a 1x1 canvas around a 16382x16000 frame) and frames whose
	// canvas is missing or agrees; testdata/fuzz/FuzzImage holds the shipped copy.
	f.Add(webpBomb())
	f.Add(webpFile(0, 0, "VP8L", vp8lSolid(30, 20)))
	f.Add(webpFile(30, 20, "VP8L", vp8lSolid(30, 20)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		if kind, mime, ok := media.Sniff(src); ok && (kind == "" || mime == "") {
			t.Fatalf("Sniff accepted %q (%q)", kind, mime)
		}
		w, h, err := media.ImageSize(src)
		if err != nil {
			if _, ok := media.AsRefusal(err); !ok {
				t.Fatalf("ImageSize: %T %v is not a refusal", err, err)
			}
			return
		}
		if int64(w)*int64(h) > media.ImageMaxPixels {
			t.Fatalf("ImageSize accepted %dx%d", w, h)
		}
		if w*h > 1_000_000 {
			return // large photos are valid; fuzzing them only burns time
		}
		res, err := media.ProcessImage(context.Background(), src, dir, "fz")
		if err != nil {
			if _, ok := media.AsRefusal(err); !ok {
				t.Fatalf("ProcessImage: %T %v is not a refusal", err, err)
			}
		} else if res.Width > media.OriginalMaxSide || res.Height > media.OriginalMaxSide {
			t.Fatalf("stored %dx%d", res.Width, res.Height)
		}
		names, _ := os.ReadDir(dir)
		for _, n := range names {
			_ = os.RemoveAll(filepath.Join(dir, n.Name()))
		}
	})
}

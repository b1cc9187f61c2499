package media_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"testing"

	"reviewd/app/media"
)

func encodeJPEG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func solid(w, h int, c color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	return img
}

// pngChunk frames one PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// pngHeaderOnly is a PNG whose valid IHDR claims w x h but whose pixel data is a
// few bytes of nothing.
func pngHeaderOnly(w, h int) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03})...)
	return append(out, pngChunk("IEND", nil)...)
}

func TestSniff(t *testing.T) {
	webp, err := os.ReadFile("testdata/red16.webp")
	if err != nil {
		t.Fatal(err)
	}
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, solid(4, 4, color.White), nil); err != nil {
		t.Fatal(err)
	}
	ftyp := func(major string, compat ...string) []byte {
		b := []byte{0, 0, 0, byte(16 + 4*len(compat))}
		b = append(b, "ftyp"+major+"\x00\x00\x02\x00"...)
		for _, c := range compat {
			b = append(b, c...)
		}
		return append(b, "\x00\x00\x00\x08free"...)
	}
	tests := []struct {
		name string
		head []byte
		kind string
		mime string
		ok   bool
	}{
		{"jpeg", encodeJPEG(t, solid(8, 8, color.White)), "jpeg", "image/jpeg", true},
		{"png", encodePNG(t, solid(8, 8, color.White)), "png", "image/png", true},
		{"webp", webp, "webp", "image/webp", true},
		{"mp4 isom", ftyp("isom", "isom", "iso2", "avc1", "mp41"), "mp4", "video/mp4", true},
		{"mp4 mp42", ftyp("mp42", "mp42", "isom"), "mp4", "video/mp4", true},
		{"mov", ftyp("qt  ", "qt  "), "mov", "video/quicktime", true},
		{"mp4 by compatible brand", ftyp("abcd", "abcd", "mp42"), "mp4", "video/mp4", true},
		{"heic", ftyp("heic", "mif1", "heic"), "heic", "", false},
		{"avif", ftyp("avif", "avif", "mif1", "miaf"), "avif", "", false},
		{"m4a", ftyp("M4A ", "M4A ", "mp42", "isom"), "m4a", "", false},
		{"unknown brand", ftyp("abcd", "abcd"), "unknown", "", false},
		{"gif", gifBuf.Bytes(), "gif", "", false},
		{"pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj"), "pdf", "", false},
		{"avi", []byte("RIFF\x10\x00\x00\x00AVI LIST"), "avi", "", false},
		{"text named .jpg", []byte("hello, this is not a photo"), "unknown", "", false},
		{"empty", nil, "unknown", "", false},
		{"short", []byte{0xFF, 0xD8}, "unknown", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind, mime, ok := media.Sniff(tc.head)
			if kind != tc.kind || mime != tc.mime || ok != tc.ok {
				t.Errorf("Sniff = %q, %q, %v; want %q, %q, %v", kind, mime, ok, tc.kind, tc.mime, tc.ok)
			}
			if !ok {
				r := media.TypeNotAllowed(kind)
				if r.Status() != http.StatusBadRequest || r.Detail() != "type_not_allowed: "+tc.kind {
					t.Errorf("refusal = %d %q", r.Status(), r.Detail())
				}
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		err    *media.Refusal
		status int
		detail string
	}{
		{media.ErrImageTooBig, 400, "too_large: 12"},
		{media.ErrVideoTooBig, 400, "too_large: 200"},
		{media.TypeNotAllowed("gif"), 400, "type_not_allowed: gif"},
		{media.ErrVideoTooLong, 422, "video_too_long: 60"},
		{media.ErrQuarantined, 422, "quarantined"},
		{media.ErrImageUnreadable, 422, "image_unreadable"},
		{media.ErrImageTooLarge, 422, "image_too_large"},
		{media.ErrVideoUnreadable, 422, "video_unreadable"},
		{media.ErrVideoStreamMissing, 422, "video_stream_missing"},
		{media.ErrVideoFrameTooLarge, 422, "video_frame_too_large: 3840x2160"},
		{media.ErrVideoFrameRateTooHigh, 422, "video_frame_rate_too_high: 60"},
		{media.ErrVideoCodecNotAllowed, 422, "video_codec_not_allowed"},
		{media.ErrScanFailed, 422, "scan_failed"},
		{media.ErrProcessingFailed, 422, "processing_failed"},
	}
	for _, tc := range tests {
		if tc.err.Status() != tc.status || tc.err.Detail() != tc.detail || tc.err.Code() != "refused" {
			t.Errorf("%v: got %d %s / %s, want %d refused / %s", tc.err, tc.err.Status(), tc.err.Code(), tc.err.Detail(), tc.status, tc.detail)
		}
	}
	if media.ImageMaxBytes != 12582912 || media.VideoMaxBytes != 209715200 {
		t.Errorf("byte limits %d %d", media.ImageMaxBytes, media.VideoMaxBytes)
	}
}

func TestCheckSize(t *testing.T) {
	tests := []struct {
		kind string
		size int64
		want error
	}{
		{"jpeg", 12582912, nil},
		{"jpeg", 12582913, media.ErrImageTooBig},
		{"webp", 13 << 20, media.ErrImageTooBig},
		{"mp4", 12582913, nil},
		{"mov", 209715200, nil},
		{"mov", 209715201, media.ErrVideoTooBig},
	}
	for _, tc := range tests {
		err := media.CheckSize(tc.kind, tc.size)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckSize(%s, %d) = %v, want %v", tc.kind, tc.size, err, tc.want)
		}
	}
	if media.KindOf("mov") != "video" || media.KindOf("webp") != "image" {
		t.Error("KindOf")
	}
}

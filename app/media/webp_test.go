package media_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"reviewd/app/media"
)

// bitWriter writes a VP8L bit stream (least significant bit first).
type bitWriter struct {
	buf  []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) write(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

func (w *bitWriter) bytes() []byte {
	if w.nacc > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
	return w.buf
}

// vp8lSolid is a valid lossless frame of w x h opaque pixels whose five prefix codes
// each hold one symbol, so every pixel costs zero bits: a few bytes decode to any
// size up to 16384 x 16384.
func vp8lSolid(w, h int) []byte {
	var bw bitWriter
	bw.write(0x2f, 8)
	bw.write(uint64(w-1), 14)
	bw.write(uint64(h-1), 14)
	bw.write(0, 1)                                     // alpha not used
	bw.write(0, 3)                                     // version
	bw.write(0, 1)                                     // no transform
	bw.write(0, 1)                                     // no colour cache
	bw.write(0, 1)                                     // no meta prefix codes
	for i, sym := range []uint64{0, 200, 40, 255, 0} { // green, red, blue, alpha, distance
		bw.write(1, 1) // simple code
		bw.write(0, 1) // one symbol
		if sym < 2 && i != 3 {
			bw.write(0, 1) // 1-bit symbol
			bw.write(sym, 1)
			continue
		}
		bw.write(1, 1) // 8-bit symbol
		bw.write(sym, 8)
	}
	return bw.bytes()
}

func riffChunk(fcc string, data []byte) []byte {
	out := append([]byte(fcc), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(data)))
	out = append(out, data...)
	if len(data)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// webpFile wraps a frame in RIFF/WEBP; with canvasW > 0 a VP8X chunk stating that
// canvas comes first.
func webpFile(canvasW, canvasH int, frameFCC string, frame []byte) []byte {
	var body []byte
	body = append(body, "WEBP"...)
	if canvasW > 0 {
		x := make([]byte, 10)
		cw, ch := uint32(canvasW-1), uint32(canvasH-1)
		x[4], x[5], x[6] = byte(cw), byte(cw>>8), byte(cw>>16)
		x[7], x[8], x[9] = byte(ch), byte(ch>>8), byte(ch>>16)
		body = append(body, riffChunk("VP8X", x)...)
	}
	body = append(body, riffChunk(frameFCC, frame)...)
	out := append([]byte("RIFF"), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(body)))
	return append(out, body...)
}

// webpBomb is the crafted upload of the security review: a VP8X header stating a
// 1x1 canvas in front of a 16382x16000 lossless frame (262 megapixels, about 1 GB
// once decoded) that the decoder would allocate at the frame's size.
func webpBomb() []byte { return webpFile(1, 1, "VP8L", vp8lSolid(16382, 16000)) }

func TestWebPBombShippedCopy(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("testdata", "bomb.webp"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(webpBomb()) {
		t.Fatal("testdata/bomb.webp differs from webpBomb(); rewrite it from the test helper")
	}
}

func TestWebPFrameGeneratorDecodes(t *testing.T) {
	// The same bit stream with an honest header is an ordinary photo, so the bomb
	// below is refused for its header, not for a broken frame.
	for name, src := range map[string][]byte{
		"simple": webpFile(0, 0, "VP8L", vp8lSolid(300, 200)),
		"vp8x":   webpFile(300, 200, "VP8L", vp8lSolid(300, 200)),
	} {
		t.Run(name, func(t *testing.T) {
			res, err := media.ProcessImage(context.Background(), src, t.TempDir(), "p")
			if err != nil {
				t.Fatalf("ProcessImage: %v", err)
			}
			if res.Width != 300 || res.Height != 200 {
				t.Fatalf("size %dx%d, want 300x200", res.Width, res.Height)
			}
		})
	}
}

func TestWebPFrameLargerThanCanvasRefused(t *testing.T) {
	bomb := webpBomb()
	if len(bomb) > 10<<10 {
		t.Fatalf("crafted file is %d bytes", len(bomb))
	}
	cases := map[string][]byte{
		"vp8l frame over 1x1 canvas":      bomb,
		"vp8l frame over 40 MP":           webpFile(0, 0, "VP8L", vp8lSolid(16382, 16000)),
		"vp8l frame smaller than canvas":  webpFile(400, 400, "VP8L", vp8lSolid(300, 200)),
		"vp8 frame over 1x1 canvas":       webpFile(1, 1, "VP8 ", vp8Header(16000, 16000)),
		"vp8x without any frame":          webpFile(1, 1, "ALPH", []byte{0}),
		"vp8x with cut-short frame chunk": webpFile(1, 1, "VP8L", []byte{0x2f, 1})[:30],
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, err := media.ImageSize(src); !errors.Is(err, media.ErrImageUnreadable) && !errors.Is(err, media.ErrImageTooLarge) {
				t.Fatalf("ImageSize: %v, want image_unreadable or image_too_large", err)
			}
		})
	}
}

// vp8Header is the start of a lossy key frame stating w x h (enough for the size
// checks; the rest of the frame is missing).
func vp8Header(w, h int) []byte {
	b := []byte{0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0, 0, 0, 0}
	binary.LittleEndian.PutUint16(b[6:], uint16(w))
	binary.LittleEndian.PutUint16(b[8:], uint16(h))
	return append(b, make([]byte, 20)...)
}

// TestWebPBombBoundedMemory processes the crafted file the way the media job does
// and measures every byte allocated meanwhile: the refusal comes from the headers,
// before the decoder allocates anything near the frame's size.
func TestWebPBombBoundedMemory(t *testing.T) {
	bomb := webpBomb()
	dir := t.TempDir()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := media.ProcessImage(context.Background(), bomb, dir, "bomb")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, media.ErrImageUnreadable) {
		t.Fatalf("ProcessImage: %v, want image_unreadable", err)
	}
	const bound = 4 << 20
	if got := after.TotalAlloc - before.TotalAlloc; got > bound {
		t.Fatalf("processing the crafted file allocated %d bytes, bound %d", got, bound)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Fatalf("files left behind: %v", names)
	}
}

package media

import (
	"encoding/binary"
	"testing"
)

// leExif is a JPEG start with a little-endian APP1 Exif block holding only
// Orientation o in IFD0.
func leExif(o uint16) []byte {
	tiff := []byte("II*\x00\x08\x00\x00\x00")
	tiff = binary.LittleEndian.AppendUint16(tiff, 1)
	tiff = binary.LittleEndian.AppendUint16(tiff, 0x0112)
	tiff = binary.LittleEndian.AppendUint16(tiff, 3)
	tiff = binary.LittleEndian.AppendUint32(tiff, 1)
	tiff = binary.LittleEndian.AppendUint16(tiff, o)
	tiff = append(tiff, 0, 0, 0, 0, 0, 0)
	seg := append([]byte("Exif\x00\x00"), tiff...)
	out := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 'J', 'F'} // an APP0 first
	out = append(out, 0xFF, 0xE1)
	out = binary.BigEndian.AppendUint16(out, uint16(2+len(seg)))
	out = append(out, seg...)
	return append(out, 0xFF, 0xDA, 0x00, 0x02)
}

func TestJPEGOrientation(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want int
	}{
		{"little endian 8", leExif(8), 8},
		{"little endian 3", leExif(3), 3},
		{"out of range value", leExif(9), 1},
		{"no exif", []byte{0xFF, 0xD8, 0xFF, 0xDA, 0, 2}, 1},
		{"not a jpeg", []byte("hello"), 1},
		{"truncated", leExif(6)[:20], 1},
		{"empty", nil, 1},
	}
	for _, tc := range tests {
		if got := jpegOrientation(tc.b); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

func FuzzJPEGOrientation(f *testing.F) {
	f.Add(leExif(6))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 'E', 'x', 'i', 'f', 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := jpegOrientation(b); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		Sniff(b)
	})
}

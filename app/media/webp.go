package media

import (
	"encoding/binary"
	"fmt"
)

// webpFrameSize reads the size of the picture a WebP file actually carries: the
// header of its VP8 (lossy) or VP8L (lossless) frame. It also returns the VP8X
// canvas size when the file has one (0, 0 otherwise).
//
// webp.DecodeConfig reports the VP8X canvas, while the decoder allocates the frame
// at the frame's own size; a small canvas in front of a huge frame would pass the
// pixel limit and then take gigabytes to decode. Callers compare both sizes before
// any decoding.
func webpFrameSize(src []byte) (fw, fh, cw, ch int, err error) {
	if len(src) < 12 || string(src[0:4]) != "RIFF" || string(src[8:12]) != "WEBP" {
		return 0, 0, 0, 0, fmt.Errorf("webp: not a RIFF WEBP file")
	}
	end := min(len(src), 8+int(binary.LittleEndian.Uint32(src[4:8])))
	for at := 12; at+8 <= end; {
		fcc := string(src[at : at+4])
		n := int(binary.LittleEndian.Uint32(src[at+4 : at+8]))
		data := src[at+8:]
		if n < 0 || n > len(data) {
			return 0, 0, 0, 0, fmt.Errorf("webp: chunk %q of %d bytes is cut short", fcc, n)
		}
		data = data[:n]
		switch fcc {
		case "VP8X":
			if n < 10 {
				return 0, 0, 0, 0, fmt.Errorf("webp: short VP8X chunk")
			}
			cw = 1 + int(uint32(data[4])|uint32(data[5])<<8|uint32(data[6])<<16)
			ch = 1 + int(uint32(data[7])|uint32(data[8])<<8|uint32(data[9])<<16)
		case "VP8 ":
			// Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
			if n < 10 || data[0]&1 != 0 || data[3] != 0x9d || data[4] != 0x01 || data[5] != 0x2a {
				return 0, 0, 0, 0, fmt.Errorf("webp: bad VP8 frame header")
			}
			fw = int(binary.LittleEndian.Uint16(data[6:8]) & 0x3fff)
			fh = int(binary.LittleEndian.Uint16(data[8:10]) & 0x3fff)
			return fw, fh, cw, ch, nil
		case "VP8L":
			// Signature 0x2f, then 14 bits width-1 and 14 bits height-1, LSB first.
			if n < 5 || data[0] != 0x2f {
				return 0, 0, 0, 0, fmt.Errorf("webp: bad VP8L frame header")
			}
			bits := binary.LittleEndian.Uint32(data[1:5])
			fw = 1 + int(bits&0x3fff)
			fh = 1 + int(bits>>14&0x3fff)
			return fw, fh, cw, ch, nil
		}
		at += 8 + n + n&1
	}
	return 0, 0, 0, 0, fmt.Errorf("webp: no VP8 or VP8L frame")
}

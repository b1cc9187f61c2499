package media

import (
	"bytes"
	"encoding/binary"
)

// jpegOrientation reads the EXIF Orientation tag (0x0112 in IFD0 of the APP1 "Exif"
// segment) of a JPEG. It returns 1 (as stored) when there is none or it is broken.
func jpegOrientation(b []byte) int {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return 1
	}
	i := 2
	for i+4 <= len(b) {
		if b[i] != 0xFF {
			return 1
		}
		marker := b[i+1]
		switch {
		case marker == 0xFF: // fill byte
			i++
			continue
		case marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7): // no length
			i += 2
			continue
		case marker == 0xDA || marker == 0xD9: // start of scan / end: no more metadata
			return 1
		}
		n := int(binary.BigEndian.Uint16(b[i+2 : i+4]))
		if n < 2 || i+2+n > len(b) {
			return 1
		}
		seg := b[i+4 : i+2+n]
		if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			if o := tiffOrientation(seg[6:]); o != 0 {
				return o
			}
		}
		i += 2 + n
	}
	return 1
}

// tiffOrientation reads Orientation from IFD0 of a TIFF structure; 0 if absent.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 0
	}
	off := int(bo.Uint32(t[4:8]))
	if off < 8 || off+2 > len(t) {
		return 0
	}
	count := int(bo.Uint16(t[off : off+2]))
	for k := 0; k < count; k++ {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			return 0
		}
		if bo.Uint16(t[e:e+2]) != 0x0112 {
			continue
		}
		typ, n := bo.Uint16(t[e+2:e+4]), bo.Uint32(t[e+4:e+8])
		var v int
		switch {
		case typ == 3 && n == 1: // SHORT
			v = int(bo.Uint16(t[e+8 : e+10]))
		case typ == 4 && n == 1: // LONG, seen in some writers
			v = int(bo.Uint32(t[e+8 : e+12]))
		default:
			return 0
		}
		if v >= 1 && v <= 8 {
			return v
		}
		return 0
	}
	return 0
}

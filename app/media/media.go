// Package media checks and prepares uploaded review photos and videos: type sniffing
// by content, size and format limits, clamd virus scanning, and re-encoding that
// strips location and device data (images in Go, videos with ffmpeg/ffprobe).
//
// It owns no HTTP handlers and no database access and imports neither app/core nor
// store; callers turn a *Refusal into the spec's "refused / <detail>" answer, e.g.
// core.E(r.Status(), "refused", r.Detail()).
package media

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// Limits from the storefront spec (POST /v1/media, Media upload errors, Limits).
const (
	ImageMaxBytes   = 12 << 20  // 12582912, "too_large: 12"
	VideoMaxBytes   = 200 << 20 // 209715200, "too_large: 200"
	VideoMaxSeconds = 60
	ImageMaxPixels  = 40_000_000
	VideoMaxWidth   = 3840 // landscape frame limit; portrait is VideoMaxHeight x VideoMaxWidth
	VideoMaxHeight  = 2160
	VideoMaxFPS     = 60

	// OriginalMaxSide caps the long side of the stored original photo (the same cap
	// the form applies before upload).
	OriginalMaxSide = 2560
)

// VideoCodecs are the ffprobe codec names a video stream may have.
var VideoCodecs = []string{"h264", "hevc", "mpeg4", "vp9", "av1"}

// RenditionWidths are the srcset widths made for photos and video posters; only
// widths smaller than the stored original are produced.
var RenditionWidths = []int{320, 640, 1280}

// File types returned by Sniff.
const (
	TypeJPEG = "jpeg"
	TypePNG  = "png"
	TypeWebP = "webp"
	TypeMP4  = "mp4"
	TypeMOV  = "mov"
)

// Media item kinds (the spec's media item field kind).
const (
	KindImage = "image"
	KindVideo = "video"
)

// SniffLen is how many leading bytes Sniff looks at; pass at least this many when
// the file is that long.
const SniffLen = 512

// Sniff names the type of a file from its first bytes, never from its name. For an
// allowed type it returns the type (jpeg, png, webp, mp4, mov), its MIME type and
// ok; otherwise a short type name for "type_not_allowed: <type>" (gif, pdf, heic,
// unknown, ...) and ok false.
func Sniff(head []byte) (kind string, mime string, ok bool) {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return TypeJPEG, "image/jpeg", true
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return TypePNG, "image/png", true
	case len(head) >= 12 && string(head[0:4]) == "RIFF":
		switch string(head[8:12]) {
		case "WEBP":
			return TypeWebP, "image/webp", true
		case "AVI ":
			return "avi", "", false
		case "WAVE":
			return "wav", "", false
		}
		return "unknown", "", false
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		return sniffFtyp(head)
	}
	for _, m := range refusedMagic {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.name, "", false
		}
	}
	return "unknown", "", false
}

var refusedMagic = []struct{ magic, name string }{
	{"GIF87a", "gif"},
	{"GIF89a", "gif"},
	{"%PDF-", "pdf"},
	{"BM", "bmp"},
	{"II*\x00", "tiff"},
	{"MM\x00*", "tiff"},
	{"\x1a\x45\xdf\xa3", "webm"},
	{"PK\x03\x04", "zip"},
	{"ID3", "mp3"},
	{"OggS", "ogg"},
	{"fLaC", "flac"},
	{"\x00\x00\x01\xba", "mpeg"},
	{"\x00\x00\x01\x00", "ico"},
	{"\x00\x00\x00\x0cJXL ", "jxl"},
	{"\xff\x0a", "jxl"},
	{"<svg", "svg"},
	{"<?xml", "xml"},
}

// sniffFtyp reads an ISO BMFF ftyp box: major brand, then the compatible brands.
func sniffFtyp(head []byte) (string, string, bool) {
	major := string(head[8:12])
	if t := brandType(major); t != "" {
		return ftypResult(t)
	}
	size := int(binary.BigEndian.Uint32(head[0:4]))
	if size > len(head) || size < 16 {
		size = len(head)
	}
	// Compatible brands start after major brand (4) and minor version (4).
	for i := 16; i+4 <= size; i += 4 {
		if t := brandType(string(head[i : i+4])); t == TypeMP4 || t == TypeMOV {
			return ftypResult(t)
		}
	}
	return ftypResult("")
}

func ftypResult(t string) (string, string, bool) {
	switch t {
	case TypeMP4:
		return TypeMP4, "video/mp4", true
	case TypeMOV:
		return TypeMOV, "video/quicktime", true
	case "":
		return "unknown", "", false
	}
	return t, "", false
}

// brandType maps an ftyp brand to a type name; "" when the brand says nothing.
func brandType(b string) string {
	switch b {
	case "qt  ":
		return TypeMOV
	case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9",
		"mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "XAVC", "MSNV", "dash", "mmp4":
		return TypeMP4
	case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1":
		return "heic"
	case "avif", "avis":
		return "avif"
	case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ":
		return "m4a"
	case "crx ":
		return "cr3"
	}
	if strings.HasPrefix(b, "3gp") || strings.HasPrefix(b, "3g2") {
		return "3gp"
	}
	return ""
}

// IsVideo reports whether a type returned by Sniff is a video.
func IsVideo(kind string) bool { return kind == TypeMP4 || kind == TypeMOV }

// KindOf gives the media item kind (image or video) of a type returned by Sniff.
func KindOf(kind string) string {
	if IsVideo(kind) {
		return KindVideo
	}
	return KindImage
}

// MaxBytes is the size limit of a type returned by Sniff.
func MaxBytes(kind string) int64 {
	if IsVideo(kind) {
		return VideoMaxBytes
	}
	return ImageMaxBytes
}

// CheckSize returns the too_large refusal (400, "too_large: 12" or "too_large: 200")
// when size exceeds the limit of kind, else nil.
func CheckSize(kind string, size int64) error {
	if size <= MaxBytes(kind) {
		return nil
	}
	if IsVideo(kind) {
		return ErrVideoTooBig
	}
	return ErrImageTooBig
}

package media

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// Refusal is a file the service refuses, with the spec's HTTP status and detail
// (error code "refused"). It may carry an internal cause for logs; the cause is
// never part of Detail. errors.Is matches refusals by status and detail, so
// errors.Is(err, media.ErrScanFailed) holds for any scan_failed refusal.
type Refusal struct {
	status int
	detail string
	cause  error
}

// Status is the HTTP status the spec gives (400 or 422).
func (r *Refusal) Status() int { return r.status }

// Detail is the spec's detail code, e.g. "too_large: 12" or "video_frame_rate_too_high: 60".
func (r *Refusal) Detail() string { return r.detail }

// Code is the spec's error code for every media refusal: "refused".
func (r *Refusal) Code() string { return "refused" }

// Error is for logs: detail and, when known, the internal cause.
func (r *Refusal) Error() string {
	if r.cause != nil {
		return "media: refused " + r.detail + ": " + r.cause.Error()
	}
	return "media: refused " + r.detail
}

// Unwrap gives the internal cause, if any.
func (r *Refusal) Unwrap() error { return r.cause }

// Is matches any refusal with the same status and detail.
func (r *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	return ok && t.status == r.status && t.detail == r.detail
}

// because returns a copy of r carrying cause for logs.
func (r *Refusal) because(cause error) *Refusal {
	c := *r
	c.cause = cause
	return &c
}

func becausef(r *Refusal, format string, args ...any) *Refusal {
	return r.because(fmt.Errorf(format, args...))
}

func refusal(status int, detail string) *Refusal {
	return &Refusal{status: status, detail: detail}
}

// Refusals of the spec's "Media upload" table.
var (
	ErrImageTooBig           = refusal(http.StatusBadRequest, "too_large: "+strconv.Itoa(ImageMaxBytes>>20))
	ErrVideoTooBig           = refusal(http.StatusBadRequest, "too_large: "+strconv.Itoa(VideoMaxBytes>>20))
	ErrVideoTooLong          = refusal(http.StatusUnprocessableEntity, "video_too_long: "+strconv.Itoa(VideoMaxSeconds))
	ErrQuarantined           = refusal(http.StatusUnprocessableEntity, "quarantined")
	ErrImageUnreadable       = refusal(http.StatusUnprocessableEntity, "image_unreadable")
	ErrImageTooLarge         = refusal(http.StatusUnprocessableEntity, "image_too_large")
	ErrVideoUnreadable       = refusal(http.StatusUnprocessableEntity, "video_unreadable")
	ErrVideoStreamMissing    = refusal(http.StatusUnprocessableEntity, "video_stream_missing")
	ErrVideoFrameTooLarge    = refusal(http.StatusUnprocessableEntity, fmt.Sprintf("video_frame_too_large: %dx%d", VideoMaxWidth, VideoMaxHeight))
	ErrVideoFrameRateTooHigh = refusal(http.StatusUnprocessableEntity, "video_frame_rate_too_high: "+strconv.Itoa(VideoMaxFPS))
	ErrVideoCodecNotAllowed  = refusal(http.StatusUnprocessableEntity, "video_codec_not_allowed")
	ErrScanFailed            = refusal(http.StatusUnprocessableEntity, "scan_failed")
	ErrProcessingFailed      = refusal(http.StatusUnprocessableEntity, "processing_failed")
)

// TypeNotAllowed is 400 "type_not_allowed: <type>" for a type name from Sniff.
func TypeNotAllowed(typ string) *Refusal {
	return refusal(http.StatusBadRequest, "type_not_allowed: "+typ)
}

// ErrToolMissing is returned (not a Refusal) when ffmpeg or ffprobe cannot be found:
// a set-up problem, not a fault of the file.
var ErrToolMissing = errors.New("media: ffmpeg/ffprobe not found")

// AsRefusal returns the *Refusal in err's chain, if any.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

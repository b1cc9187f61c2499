package storefront

import (
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/web"
)

// maxFormField is the longest text field of the upload form that is read.
const maxFormField = 4 << 10

// handleMediaUpload serves POST /v1/media: one photo or video as multipart form
// fields token, line_reference and file, in that order (a file before its token
// is refused with token_required, without reading it). The body is streamed to disk; over 200 MB
// it answers 413 refused / too_large: 200. 201 with id, kind and state, never a
// file address.
func (h *Handler) handleMediaUpload(w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if err != nil {
			// A refused upload's unread body is not drained (a client could trickle
			// it); the connection ends with the answer.
			w.Header().Set("Connection", "close")
		}
	}()
	a, acc, err := h.Auth.SiteKey(r, true)
	if err != nil {
		return err
	}
	if r.ContentLength > reviews.MaxUploadBody {
		return reviews.ErrBodyTooLarge
	}
	release, err := h.uploads.take(web.ClientIP(r.Context()))
	if err != nil {
		return err
	}
	defer release()
	r.Body = http.MaxBytesReader(w, r.Body, reviews.MaxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return core.Invalid("file_required")
	}
	var in reviews.UploadInput
	defer func() { in.File.Discard() }()
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return uploadReadError(err)
		}
		switch part.FormName() {
		case "token":
			in.Token, err = formValue(part)
		case "line_reference":
			in.LineReference, err = formValue(part)
		case "file":
			// The token and line come first: without them no byte is spooled.
			if err := h.Reviews.CheckUploadToken(r.Context(), acc.Channel, in.Token, in.LineReference); err != nil {
				return err
			}
			if in.File == nil {
				in.File, err = h.Reviews.ReceiveUpload(part)
			}
		}
		if err != nil {
			return uploadReadError(err)
		}
		part.Close()
	}
	out, err := h.Reviews.UploadMedia(r.Context(), a, acc.Channel, in)
	in.File = nil // UploadMedia keeps or discards it
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

func formValue(p *multipart.Part) (string, error) {
	b, err := io.ReadAll(io.LimitReader(p, maxFormField))
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if !web.Storable(v) {
		return "", core.ErrBodyInvalid
	}
	return v, nil
}

// uploadReadError maps a failure while reading the form: a body over the limit is
// 413 refused / too_large: 200, anything else an unreadable body.
func uploadReadError(err error) error {
	var mbe *http.MaxBytesError
	var ce *core.Error
	switch {
	case errors.As(err, &mbe):
		return reviews.ErrBodyTooLarge.AsRefusal()
	case errors.As(err, &ce):
		return ce
	}
	return core.ErrBodyInvalid.AsRefusal()
}

package web

import (
	"net/http"
	"strconv"
)

// WriteDownload sends a built file as an attachment (never cached), with
// X-Service-Fingerprint when fingerprint is not empty: the admin API's and the
// panel's download routes answer through it.
func WriteDownload(w http.ResponseWriter, contentType, name, fingerprint string, body []byte) error {
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	hd.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	hd.Set("Cache-Control", "no-store")
	if fingerprint != "" {
		hd.Set("X-Service-Fingerprint", fingerprint)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

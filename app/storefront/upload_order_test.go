package storefront_test

import (
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"reviewd/app/core/buyer"
	"reviewd/app/storefront"
)

// pendingUpload is an upload whose file part is still being sent: the request
// body is a pipe the test writes to.
type pendingUpload struct {
	pw   *io.PipeWriter
	mw   *multipart.Writer
	done chan *http.Response
}

// startUpload sends the given fields in order, then the head of a file part and
// keeps the body open.
func (f *fx) startUpload(t *testing.T, fields [][2]string) *pendingUpload {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, err := http.NewRequest("POST", f.URL+"/v1/media", pr)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range f.browser() {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	p := &pendingUpload{pw: pw, mw: mw, done: make(chan *http.Response, 1)}
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			p.done <- nil
			return
		}
		res.Body.Close()
		p.done <- res
	}()
	go func() {
		for _, kv := range fields {
			if kv[0] == "file" {
				w, _ := mw.CreateFormFile("file", "photo.png")
				_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
				_, _ = w.Write(make([]byte, 4096))
				continue
			}
			_ = mw.WriteField(kv[0], kv[1])
		}
	}()
	t.Cleanup(func() { pw.CloseWithError(io.ErrClosedPipe) })
	return p
}

// answer waits for the server's answer while the file is still unfinished.
func (p *pendingUpload) answer(t *testing.T) *http.Response {
	t.Helper()
	select {
	case res := <-p.done:
		if res == nil {
			t.Fatal("request failed without an answer")
		}
		return res
	case <-time.After(20 * time.Second):
		t.Fatal("waited 20s for an answer to an unfinished upload")
	}
	return nil
}

func incomingFiles(t *testing.T, f *fx) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(f.App.MediaDir(), "incoming"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestUploadTokenCheckedBeforeFile: the token and line are checked before any
// byte of the file is read: a file before its token, or after a refused token,
// is answered while the client is still sending it, and nothing is spooled.
func TestUploadTokenCheckedBeforeFile(t *testing.T) {
	f := newFx(t)
	f.order("M-1", "ayse@example.com", line{ref: "1"})
	tok := f.issue(buyer.TokenInvitation, "M-1", "1")
	cases := []struct {
		name   string
		fields [][2]string
		status int
	}{
		{"file before token", [][2]string{{"file", ""}, {"token", tok}, {"line_reference", "1"}}, 401},
		{"unknown token", [][2]string{{"token", "abc"}, {"line_reference", "1"}, {"file", ""}}, 403},
		{"line out of scope", [][2]string{{"token", tok}, {"line_reference", "9"}, {"file", ""}}, 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := f.startUpload(t, c.fields).answer(t)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d", res.StatusCode, c.status)
			}
			if files := incomingFiles(t, f); len(files) != 0 {
				t.Fatalf("spooled %v", files)
			}
		})
	}
}

// TestUploadConcurrencyPerIP: a third upload from the same address while two are
// being received is 429 rate_limited; when one ends, the next is accepted.
func TestUploadConcurrencyPerIP(t *testing.T) {
	f := newFx(t)
	f.order("M-1", "ayse@example.com", line{ref: "1"})
	tok := f.issue(buyer.TokenInvitation, "M-1", "1")
	fields := [][2]string{{"token", tok}, {"line_reference", "1"}, {"file", ""}}
	var pending []*pendingUpload
	for range storefront.UploadsPerIP {
		pending = append(pending, f.startUpload(t, fields))
	}
	// Wait until both are being spooled.
	deadline := time.Now().Add(20 * time.Second)
	for len(incomingFiles(t, f)) < storefront.UploadsPerIP {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20s for %d uploads to be received: %v", storefront.UploadsPerIP, incomingFiles(t, f))
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantCode(t, f.upload(tok, "1", testPNG(t, 4, 4)), 429, "rate_limited / rate_limited")

	// Finish one: it is stored, and a new upload fits again.
	p := pending[0]
	_ = p.mw.Close()
	_ = p.pw.Close()
	if res := p.answer(t); res.StatusCode != 422 && res.StatusCode != 201 {
		t.Fatalf("finished upload: %d", res.StatusCode)
	}
	if res := f.upload(tok, "1", testPNG(t, 4, 4)); res.Status != 201 {
		t.Fatalf("upload after one ended: %d %s", res.Status, res.Body)
	}
}

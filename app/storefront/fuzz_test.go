package storefront_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/buyer"
)

// fuzzFx is an installation with delivered orders and writing tokens for the fuzz
// targets of the writing flow. A fuzz input may say TOKEN where a real writing
// token belongs (and REVISE for a revise token), so mutations reach past the token
// check.
type fuzzFx struct {
	*fx
	token, revise string
}

func newFuzzFx(f *testing.F) *fuzzFx {
	env := apptest.New(f, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	env.NoLimits()
	x := &fx{Env: env, server: env.Key("server", "web"), site: env.Key("site", "web")}
	x.order("FZ-1", "fuzz.one@mail.example", line{ref: "1"}, line{ref: "2"})
	x.order("FZ-2", "fuzz.two@mail.example")
	tok := x.issue(buyer.TokenInvitation, "FZ-1", "1", "2")
	first := x.issue(buyer.TokenInvitation, "FZ-2", "1")
	if res := x.write(first, row("1")); res.Status != 201 {
		f.Fatalf("seed review: %d %s", res.Status, res.Body)
	}
	// The invitation token of a reviewed order opens the revise mode.
	return &fuzzFx{fx: x, token: tok, revise: first}
}

func (z *fuzzFx) fill(body []byte) []byte {
	body = bytes.ReplaceAll(body, []byte("REVISE"), []byte(z.revise))
	return bytes.ReplaceAll(body, []byte("TOKEN"), []byte(z.token))
}

func (z *fuzzFx) headers(contentType string) map[string]string {
	h := z.browser()
	h["Content-Type"] = contentType
	return h
}

func seed(f *testing.F, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// FuzzReviewWriting: POST /v1/reviews, /v1/reviews/revise, /v1/eligibility and
// /v1/eligibility/token never answer 5xx, whatever the body.
func FuzzReviewWriting(f *testing.F) {
	z := newFuzzFx(f)
	seed(f, map[string]any{"token": "TOKEN", "language": "tr", "reviews": []any{row("1"), row("2", map[string]any{"rating": 3,
		"aspects": map[string]any{"quality": 4}, "author_name": "Ayşe", "hide_name": true})}})
	seed(f, map[string]any{"token": "TOKEN", "reviews": []any{row("1", map[string]any{"rating": 9, "title": "", "media": []any{"m_x"}})}})
	seed(f, map[string]any{"token": "REVISE", "rating": 2, "title": "Changed my mind", "body": "It cracked after a week of daily use, sadly.",
		"kept_media": []any{}, "media": []any{}})
	seed(f, map[string]any{"order": "FZ-1", "email": "fuzz.one@mail.example", "language": "en"})
	seed(f, map[string]any{"token": "TOKEN"})
	f.Fuzz(func(t *testing.T, body []byte) {
		body = z.fill(body)
		h := z.headers("application/json")
		for _, path := range []string{"/v1/reviews", "/v1/reviews/revise", "/v1/eligibility", "/v1/eligibility/token"} {
			z.Env.Fuzz(t, "POST", path, body, h)
		}
	})
}

// FuzzMediaUpload: POST /v1/media never answers 5xx, whatever the multipart body
// (parts, names, file contents).
func FuzzMediaUpload(f *testing.F) {
	z := newFuzzFx(f)
	const boundary = "fuzzboundary"
	form := func(fields map[string]string, file []byte) []byte {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.SetBoundary(boundary)
		for k, v := range fields {
			_ = mw.WriteField(k, v)
		}
		if file != nil {
			w, _ := mw.CreateFormFile("file", "photo.jpg")
			_, _ = w.Write(file)
		}
		_ = mw.Close()
		return buf.Bytes()
	}
	f.Add(form(map[string]string{"token": "TOKEN", "line_reference": "1"}, testJPEG(f, 16, 12)))
	f.Add(form(map[string]string{"token": "TOKEN", "line_reference": "2"}, testPNG(f, 8, 8)))
	f.Add(form(map[string]string{"token": "TOKEN", "line_reference": "1"}, hugePNGHeader(100000, 100000)))
	f.Add(form(map[string]string{"token": "TOKEN", "line_reference": "9"}, []byte("GIF89a")))
	f.Add(form(map[string]string{"token": "TOKEN"}, nil))
	f.Fuzz(func(t *testing.T, body []byte) {
		z.Env.Fuzz(t, "POST", "/v1/media", z.fill(body), z.headers("multipart/form-data; boundary="+boundary))
	})
}

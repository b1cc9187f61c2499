package panel_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
)

// countingBody counts the bytes the server reads of a request body.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestUploadFormChecksSessionFirst: a marketplace file posted to the panel without
// a valid session, or by a member without the route's permission, is answered
// (sign-in redirect, 401 for the script, 403 scope_missing) before its body is
// read: nothing is spooled to disk.
func TestUploadFormChecksSessionFirst(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	env.User(access.NewUser{Username: "vera", Email: "vera@shop.example", Role: "viewer", Password: "Old-Lantern-Harbor-31"})
	viewer, err := env.App.Access.SignIn(context.Background(), core.Console(), "vera", "Old-Lantern-Harbor-31", "")
	if err != nil {
		t.Fatal(err)
	}
	var read atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = countingBody{r.Body, &read}
		env.Server.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", "whatever-token-0123456789")
	fw, _ := mw.CreateFormFile("file", "reviews.csv")
	_, _ = fw.Write(bytes.Repeat([]byte("barcode,rating,body\n"), 15<<20/20)) // 15 MB, under the form's limit
	_ = mw.Close()

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		name, cookie, accept string
		status               int
		want                 string
	}{
		{"no valid session", "not-a-session-token", "", http.StatusSeeOther, "/panel/sign-in?next="},
		{"no valid session, script", "not-a-session-token", "application/json", http.StatusUnauthorized, "session_invalid"},
		{"viewer without the permission", viewer.Token, "", http.StatusForbidden, "scope_missing"},
	} {
		read.Store(0)
		req, _ := http.NewRequest("POST", srv.URL+"/panel/marketplace/mks_1/runs", bytes.NewReader(body.Bytes()))
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Cookie", access.SessionCookie+"="+tc.cookie)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(res.Header.Get("Location")+string(got), tc.want) {
			t.Fatalf("%s: %d %q\n%.400s", tc.name, res.StatusCode, res.Header.Get("Location"), got)
		}
		// The server may drain a little of an unread body to keep the connection.
		if n := read.Load(); n > 1<<20 {
			t.Errorf("%s: the server read %d bytes of the %d-byte upload before refusing it", tc.name, n, body.Len())
		}
	}
}

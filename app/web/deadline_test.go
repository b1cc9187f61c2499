package web_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"reviewd/app/web"
)

// TestReadDeadlineTrickledBody: a body trickled past the short deadline is cut off
// on ordinary routes, while an upload route may take longer.
func TestReadDeadlineTrickledBody(t *testing.T) {
	type result struct {
		path string
		n    int
		err  error
	}
	results := make(chan result, 2)
	h := web.ReadDeadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		results <- result{r.URL.Path, len(b), err}
	}), 300*time.Millisecond, time.Minute, web.IsUpload)
	srv := httptest.NewServer(h)
	defer srv.Close()

	send := func(path string) net.Conn {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf-", path)
		return c
	}
	upload := send("/v1/media")
	send("/v1/reviews")

	wait := func(what string) result {
		select {
		case r := <-results:
			return r
		case <-time.After(20 * time.Second):
			t.Fatalf("waited 20s for %s", what)
		}
		return result{}
	}
	// The ordinary route gives up first: its deadline is the short one.
	r := wait("the trickled /v1/reviews body to time out")
	if r.path != "/v1/reviews" || r.err == nil || !strings.Contains(r.err.Error(), "timeout") {
		t.Fatalf("first result %+v, want /v1/reviews cut off by its deadline", r)
	}
	// The upload, started at the same time, is still being received.
	fmt.Fprint(upload, "rest!")
	r = wait("the upload body")
	if r.path != "/v1/media" || r.err != nil || r.n != 10 {
		t.Fatalf("upload result %+v, want all 10 bytes", r)
	}
	_, _ = bufio.NewReader(upload).ReadString('\n')
}

package outbound

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestOperatorEndpoint: the configured endpoint is reached on loopback over
// plain http on its own port; any other address, and a redirect, is refused.
func TestOperatorEndpoint(t *testing.T) {
	mine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/away" {
			http.Redirect(w, r, "http://example.com/", http.StatusFound)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer mine.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("other")) }))
	defer other.Close()
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	hc, err := c.OperatorEndpoint(mine.URL+"/v1", 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := hc.Get(mine.URL + "/v1/chat/completions")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("configured endpoint: %v %v", res, err)
	}
	res.Body.Close()
	if _, err := hc.Get(other.URL + "/v1/chat/completions"); Code(err) != CodeURLInvalid {
		t.Errorf("another loopback port: %v (%s)", err, Code(err))
	}
	if _, err := hc.Get(mine.URL + "/v1/away"); Code(err) != CodeRedirectRefused {
		t.Errorf("redirect: %v (%s)", err, Code(err))
	}
	// The ordinary client still refuses the loopback address.
	if _, err := c.HTTPClient(0).Get(mine.URL); err == nil {
		t.Error("the guarded client reached a loopback address")
	}
	if _, err := c.OperatorEndpoint("ftp://x", 0); err == nil {
		t.Error("an ftp endpoint was accepted")
	}
}

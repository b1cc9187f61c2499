package platformtest

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
)

// Canned is an https fake for fuzz targets: it answers each path with the body set
// for it (200, application/json), and 404 for any other path.
type Canned struct {
	*TLSServer
	mu     sync.Mutex
	bodies map[string][]byte
}

// StartCanned starts a canned fake for host until the test ends.
func StartCanned(t testing.TB, host string) *Canned {
	t.Helper()
	c := &Canned{bodies: map[string][]byte{}}
	c.TLSServer = StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		body, ok := c.bodies[r.URL.Path]
		c.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusNotFound, []byte(`{"message":"not found"}`))
			return
		}
		writeJSON(w, http.StatusOK, body)
	}), host)
	return c
}

// Set makes path answer body.
func (c *Canned) Set(path string, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bodies[path] = body
}

// FixtureJSON is the first n orders of a fixture, wrapped by wrap, as JSON.
func FixtureJSON(t testing.TB, name string, n int, wrap func(orders []map[string]any) any) []byte {
	t.Helper()
	orders := Fixture(t, name)
	if n < len(orders) {
		orders = orders[:n]
	}
	b, err := json.Marshal(wrap(orders))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

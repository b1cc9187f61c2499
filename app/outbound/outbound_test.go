package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testServer is an httptest TLS server that counts the connections it accepts.
type testServer struct {
	*httptest.Server
	conns atomic.Int64
}

func newTestServer(t *testing.T, h http.Handler) *testServer {
	t.Helper()
	ts := &testServer{Server: httptest.NewUnstartedServer(h)}
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			ts.conns.Add(1)
		}
	}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts
}

// port is the loopback port the server listens on.
func (ts *testServer) port() string {
	_, p, _ := net.SplitHostPort(ts.Listener.Addr().String())
	return p
}

// writeCA writes the server certificate as a PEM file and returns its path.
func writeCA(t *testing.T, ts *testServer) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newClient builds a Client that trusts ts and pins each host (HOST:443) to it.
func newClient(t *testing.T, ts *testServer, hosts ...string) *Client {
	t.Helper()
	cfg := Config{CAFile: writeCA(t, ts)}
	for _, h := range hosts {
		cfg.Resolve = append(cfg.Resolve, h+"=127.0.0.1:"+ts.port())
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := Code(err); got != code {
		t.Fatalf("code = %q, want %q (err: %v)", got, code, err)
	}
	if code != "" {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("err %T is not an *Error", err)
		}
	}
}

func TestDoSuccess(t *testing.T) {
	ts := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Echo-Method", r.Method)
		w.Header().Set("X-Echo-Host", r.Host)
		w.Header().Set("X-Echo-Header", r.Header.Get("X-Test"))
		w.Header().Set("X-Echo-SNI", r.TLS.ServerName)
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		} else {
			w.WriteHeader(http.StatusCreated)
		}
		fmt.Fprintf(w, "%s %s", r.URL.Path, body)
	}))
	c := newClient(t, ts, "example.com:443")

	tests := []struct {
		name       string
		method     string
		url        string
		body       string
		wantMethod string
		wantStatus int
		wantBody   string
	}{
		{"post with body", http.MethodPost, "https://example.com/hook", "payload", "POST", 201, "/hook payload"},
		{"default get", "", "https://example.com/", "", "GET", 201, "/ "},
		{"explicit port 443", http.MethodPut, "https://EXAMPLE.com:443/x", "p", "PUT", 201, "/x p"},
		{"404 is not an error", http.MethodGet, "https://example.com/missing", "", "GET", 404, "/missing "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Do(context.Background(), Request{
				Method:   tt.method,
				URL:      tt.url,
				Header:   http.Header{"X-Test": {"yes"}},
				Body:     []byte(tt.body),
				Timeout:  5 * time.Second,
				MaxBytes: 1 << 20,
			})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.Status, tt.wantStatus)
			}
			if string(resp.Body) != tt.wantBody {
				t.Errorf("body = %q, want %q", resp.Body, tt.wantBody)
			}
			h := resp.Header
			if h.Get("X-Echo-Method") != tt.wantMethod || h.Get("X-Echo-Header") != "yes" {
				t.Errorf("server saw method %q header %q", h.Get("X-Echo-Method"), h.Get("X-Echo-Header"))
			}
			if !strings.EqualFold(h.Get("X-Echo-SNI"), "example.com") {
				t.Errorf("SNI = %q, want example.com", h.Get("X-Echo-SNI"))
			}
		})
	}
}

func TestDoTLSFailures(t *testing.T) {
	ts := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))

	// The certificate does not cover hooks.example.test.
	c := newClient(t, ts, "hooks.example.test:443", "example.com:443")
	_, err := c.Do(context.Background(), Request{URL: "https://hooks.example.test/", Timeout: 5 * time.Second, MaxBytes: 100})
	wantCode(t, err, CodeTLSFailed)

	// Without CAFile the test certificate is not trusted.
	untrusting, err := New(Config{Resolve: []string{"example.com:443=127.0.0.1:" + ts.port()}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = untrusting.Do(context.Background(), Request{URL: "https://example.com/", Timeout: 5 * time.Second, MaxBytes: 100})
	wantCode(t, err, CodeTLSFailed)
}

func TestDoConnectionFailed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more

	c, err := New(Config{Resolve: []string{"example.com:443=" + addr}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), Request{URL: "https://example.com/", Timeout: 5 * time.Second, MaxBytes: 100})
	wantCode(t, err, CodeConnectionFailed)
}

func TestDoAddressRefused(t *testing.T) {
	ts := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	// The client trusts the server but has no Resolve entry for these hosts, so
	// every dial goes through the guard. Port 443 on loopback is never reached.
	c, err := New(Config{CAFile: writeCA(t, ts)})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{
		"https://127.0.0.1/",
		"https://localhost/",
		"https://[::1]/",
		"https://[::ffff:127.0.0.1]/",
		"https://10.0.0.1/",
		"https://169.254.169.254/latest/meta-data/",
		"https://[fe80::1%25lo]/",
	} {
		t.Run(u, func(t *testing.T) {
			_, err := c.Do(context.Background(), Request{URL: u, Timeout: 2 * time.Second, MaxBytes: 100})
			wantCode(t, err, CodeAddressRefused)
		})
	}
}

func TestControlPublic(t *testing.T) {
	tests := []struct {
		address string
		ok      bool
	}{
		{"8.8.8.8:443", true},
		{"[2606:4700::1111]:443", true},
		{"127.0.0.1:443", false},
		{"[::ffff:127.0.0.1]:443", false},
		{"[fe80::1%eth0]:443", false},
		{"nonsense", false},
	}
	for _, tt := range tests {
		err := controlPublic(context.Background(), "tcp", tt.address, nil)
		if (err == nil) != tt.ok {
			t.Errorf("controlPublic(%q) = %v, want ok=%v", tt.address, err, tt.ok)
		}
		if err != nil && Code(err) != CodeAddressRefused {
			t.Errorf("controlPublic(%q) code = %q", tt.address, Code(err))
		}
	}
}

func TestIsPublic(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		// Public.
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"2606:4700::1111", true},
		{"2a00:1450:4001:80b::200e", true},
		{"::ffff:8.8.8.8", true}, // mapped public IPv4 is judged as 8.8.8.8
		{"100.63.255.255", true},
		{"100.128.0.0", true},
		{"172.32.0.1", true},
		{"198.20.0.1", true},
		{"223.255.255.255", true},
		// Loopback.
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"::1", false},
		// RFC 1918.
		{"10.0.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		// CGNAT.
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		// Link-local.
		{"169.254.169.254", false},
		{"fe80::1", false},
		{"febf::1", false},
		// ULA.
		{"fc00::1", false},
		{"fd12:3456::1", false},
		// Unspecified and "this network".
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"::", false},
		// Multicast and broadcast.
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"ff02::1", false},
		{"ff0e::1", false},
		{"255.255.255.255", false},
		// Documentation and benchmarking.
		{"192.0.2.1", false},
		{"198.51.100.1", false},
		{"203.0.113.1", false},
		{"198.18.0.1", false},
		{"198.19.255.255", false},
		{"2001:db8::1", false},
		// NAT64 and IPv4-mapped private addresses.
		{"64:ff9b::7f00:1", false},
		{"64:ff9b::808:808", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		// Reserved.
		{"240.0.0.1", false},
		{"250.1.2.3", false},
		// Extras: IETF protocol assignments, 6to4, Teredo, IPv4-compatible.
		{"192.0.0.1", false},
		{"2002:7f00:1::", false},
		{"2001::1", false},
		{"::127.0.0.1", false},
	}
	for _, tt := range tests {
		if got := isPublic(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("isPublic(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
	if isPublic(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

func TestDoURLRefusedBeforeDial(t *testing.T) {
	ts := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	// Pin every host:port in the URLs below to the test server, so a dial would
	// reach it and be counted.
	c := newClient(t, ts, "example.com:8443", "example.com:80", "example.com:443")

	tests := []struct {
		url  string
		code string
	}{
		{"https://example.com:8443/x", CodePortRefused},
		{"https://example.com:80/x", CodePortRefused},
		{"http://example.com/x", CodeSchemeRefused},
		{"http://example.com:443/x", CodeSchemeRefused},
		{"ftp://example.com/x", CodeSchemeRefused},
		{"https://user:pw@example.com/x", CodeURLInvalid},
		{"/relative", CodeSchemeRefused},
		{"https:///nohost", CodeURLInvalid},
		{"https://exa mple.com/", CodeURLInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := c.Do(context.Background(), Request{URL: tt.url, Timeout: 2 * time.Second, MaxBytes: 100})
			wantCode(t, err, tt.code)
		})
	}
	if n := ts.conns.Load(); n != 0 {
		t.Errorf("server accepted %d connections, want 0", n)
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url  string
		code string
	}{
		{"https://example.com/", ""},
		{"HTTPS://Example.COM/path?q=1#f", ""},
		{"https://example.com:443/x", ""},
		{"https://[2606:4700::1111]/", ""},
		{"https://example.com:8443/x", CodePortRefused},
		{"https://example.com:0/", CodePortRefused},
		{"https://example.com:0443/", CodePortRefused},
		{"https://[2606:4700::1111]:8443/", CodePortRefused},
		{"http://example.com/", CodeSchemeRefused},
		{"file:///etc/passwd", CodeSchemeRefused},
		{"example.com", CodeSchemeRefused},
		{"", CodeSchemeRefused},
		{"https://user@example.com/", CodeURLInvalid},
		{"https:example.com", CodeURLInvalid},
		{"https://", CodeURLInvalid},
		{"https://%zz/", CodeURLInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			wantCode(t, CheckURL(tt.url), tt.code)
		})
	}
}

func TestDoRedirectRefused(t *testing.T) {
	var targetHits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusFound)
	})
	mux.HandleFunc("/permanent", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/target", func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
	})
	ts := newTestServer(t, mux)
	c := newClient(t, ts, "example.com:443")

	for _, path := range []string{"/start", "/permanent"} {
		t.Run(path, func(t *testing.T) {
			_, err := c.Do(context.Background(), Request{URL: "https://example.com" + path, Timeout: 5 * time.Second, MaxBytes: 100})
			wantCode(t, err, CodeRedirectRefused)
		})
	}
	if n := targetHits.Load(); n != 0 {
		t.Errorf("redirect target called %d times", n)
	}
}

func TestDoLimits(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/sized/{n}", func(w http.ResponseWriter, r *http.Request) {
		// Content-Length is set by net/http for small single writes.
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		w.Write([]byte(strings.Repeat("x", n)))
	})
	mux.HandleFunc("/chunked/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		for range n {
			w.Write([]byte("x"))
			w.(http.Flusher).Flush() // no Content-Length: chunked
		}
	})
	mux.HandleFunc("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("start"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	ts := newTestServer(t, mux)
	c := newClient(t, ts, "example.com:443")

	tests := []struct {
		name    string
		path    string
		timeout time.Duration
		max     int64
		code    string
	}{
		{"exactly the limit", "/sized/10", 5 * time.Second, 10, ""},
		{"over the limit", "/sized/11", 5 * time.Second, 10, CodeTooLarge},
		{"chunked at the limit", "/chunked/10", 5 * time.Second, 10, ""},
		{"chunked over the limit", "/chunked/11", 5 * time.Second, 10, CodeTooLarge},
		{"slow headers", "/slow-headers", 200 * time.Millisecond, 100, CodeTimeout},
		{"slow body", "/slow-body", 200 * time.Millisecond, 100, CodeTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			resp, err := c.Do(context.Background(), Request{URL: "https://example.com" + tt.path, Timeout: tt.timeout, MaxBytes: tt.max})
			wantCode(t, err, tt.code)
			if tt.code == "" && int64(len(resp.Body)) != tt.max {
				t.Errorf("body length = %d, want %d", len(resp.Body), tt.max)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("call took %v", d)
			}
			// Stream holds the same limits while the body is read in small steps.
			var got int64
			err = c.Stream(context.Background(), Request{URL: "https://example.com" + tt.path, Timeout: tt.timeout, MaxBytes: tt.max},
				func(_ int, _ Header, body io.Reader) error {
					var err error
					got, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{body}, make([]byte, 3))
					return err
				})
			wantCode(t, err, tt.code)
			if tt.code == "" && got != tt.max {
				t.Errorf("streamed body length = %d, want %d", got, tt.max)
			}
		})
	}
}

func TestDoCanceled(t *testing.T) {
	ts := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	c := newClient(t, ts, "example.com:443")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Do(ctx, Request{URL: "https://example.com/", Timeout: 5 * time.Second, MaxBytes: 100})
	wantCode(t, err, CodeCanceled)
}

func TestDoRequestInvalid(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []Request{
		{URL: "https://example.com/", MaxBytes: 100},
		{URL: "https://example.com/", Timeout: time.Second},
		{URL: "https://example.com/", Method: "BAD METHOD", Timeout: time.Second, MaxBytes: 100},
	} {
		_, err := c.Do(context.Background(), req)
		wantCode(t, err, CodeRequestInvalid)
	}
}

func TestHTTPClient(t *testing.T) {
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusFound)
	})
	ts := newTestServer(t, mux)
	c := newClient(t, ts, "example.com:443", "example.com:8443")
	hc := c.HTTPClient(5 * time.Second)

	resp, err := hc.Get("https://example.com/ok")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}

	tests := []struct {
		url  string
		code string
	}{
		{"https://example.com/redirect", CodeRedirectRefused},
		{"https://example.com:8443/ok", CodePortRefused},
		{"http://example.com/ok", CodeSchemeRefused},
		{"https://127.0.0.1/ok", CodeAddressRefused},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			resp, err := hc.Get(tt.url)
			if err == nil {
				resp.Body.Close()
			}
			wantCode(t, err, tt.code)
		})
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("/ok called %d times, want 1", n)
	}
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"empty", Config{}, false},
		{"resolve entries", Config{Resolve: []string{"example.com:443=127.0.0.1:8443", "Hooks.Example.test:443=[::1]:443"}}, false},
		{"ca file missing", Config{CAFile: filepath.Join(dir, "missing.pem")}, true},
		{"ca file not PEM", Config{CAFile: garbage}, true},
		{"resolve without =", Config{Resolve: []string{"example.com:443"}}, true},
		{"resolve without port", Config{Resolve: []string{"example.com=127.0.0.1:443"}}, true},
		{"resolve to a name", Config{Resolve: []string{"example.com:443=localhost:443"}}, true},
		{"resolve target without port", Config{Resolve: []string{"example.com:443=127.0.0.1"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func TestResolveEntryCaseInsensitive(t *testing.T) {
	ts := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	c := newClient(t, ts, "EXAMPLE.COM:443")
	resp, err := c.Do(context.Background(), Request{URL: "https://Example.Com/", Timeout: 5 * time.Second, MaxBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "ok" {
		t.Fatalf("body %q", resp.Body)
	}
}

func TestClassify(t *testing.T) {
	live := context.Background()
	expired, cancel := context.WithDeadline(live, time.Now().Add(-time.Second))
	defer cancel()
	canceled, cancel2 := context.WithCancel(live)
	cancel2()

	tests := []struct {
		name string
		ctx  context.Context
		err  error
		code string
	}{
		{"dns not found", live, &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}}, CodeHostUnresolved},
		{"dns timeout", live, &net.DNSError{Err: "i/o timeout", IsTimeout: true}, CodeTimeout},
		{"refused", live, &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, CodeConnectionFailed},
		{"reset", live, &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, CodeConnectionFailed},
		{"unknown authority", live, &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, CodeTLSFailed},
		{"hostname", live, x509.HostnameError{Host: "x"}, CodeTLSFailed},
		{"record header", live, tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, CodeTLSFailed},
		{"remote alert", live, &net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}, CodeTLSFailed},
		{"refusal kept", live, fmt.Errorf("wrapped: %w", refuse(CodeAddressRefused, "x")), CodeAddressRefused},
		{"deadline wins", expired, errors.New("anything"), CodeTimeout},
		{"cancel wins", canceled, errors.New("anything"), CodeCanceled},
		{"other", live, io.ErrUnexpectedEOF, CodeConnectionFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, classify(tt.ctx, tt.err), tt.code)
		})
	}
}

func TestCodeAndError(t *testing.T) {
	if got := Code(nil); got != "" {
		t.Errorf("Code(nil) = %q", got)
	}
	if got := Code(errors.New("x")); got != CodeUnexpected {
		t.Errorf("Code(plain) = %q", got)
	}
	cause := errors.New("cause")
	e := &Error{Code: CodeTimeout, Err: cause}
	if got := Code(fmt.Errorf("ctx: %w", e)); got != CodeTimeout {
		t.Errorf("Code(wrapped) = %q", got)
	}
	if !errors.Is(e, cause) {
		t.Error("Unwrap does not reach the cause")
	}
	if got := e.Error(); got != "outbound: timeout: cause" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Code: CodeTooLarge}).Error(); got != "outbound: too_large" {
		t.Errorf("Error() = %q", got)
	}
}

// TestObserve: every Do is reported with its target kind (WithTarget, else
// "notice" for a signed notice, else "other"), its status or failure code.
func TestObserve(t *testing.T) {
	ts := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	cfg := Config{CAFile: writeCA(t, ts), Resolve: []string{"example.com:443=127.0.0.1:" + ts.port()}}
	type call struct {
		target string
		status int
		code   string
	}
	var got []call
	cfg.Observe = func(target string, status int, code string, d time.Duration) {
		if d < 0 {
			t.Errorf("negative duration %v", d)
		}
		got = append(got, call{target, status, code})
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{URL: "https://example.com/orders", Timeout: 5 * time.Second, MaxBytes: 1 << 10}
	ctx := context.Background()
	_, _ = c.Do(WithTarget(ctx, "shopify"), req)
	signed := req
	signed.Method, signed.Header = http.MethodPost, http.Header{"X-Service-Signature": {"abc"}}
	_, _ = c.Do(ctx, signed)
	_, _ = c.Do(ctx, req)
	refused := req
	refused.URL = "http://example.com/"
	_, _ = c.Do(WithTarget(ctx, "woocommerce"), refused)
	want := []call{{"shopify", 503, ""}, {"notice", 503, ""}, {"other", 503, ""}, {"woocommerce", 0, CodeSchemeRefused}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("observed %v, want %v", got, want)
	}
}

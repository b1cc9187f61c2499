// Package outbound is reviewd's SSRF-safe HTTP client, used for invitation notices,
// platform order reads and marketplace feeds.
//
// Every call is held to the same rules:
//
//   - the URL must be https, carry no userinfo and name no port other than 443;
//   - the address actually dialled must be public: the check runs in the dialer's
//     Control hook on the resolved ip:port, so DNS rebinding cannot slip past it;
//   - redirects are never followed, a 3xx answer is an error;
//   - each call has a time limit covering the whole exchange, body included, and a
//     response size limit;
//   - no proxy is used.
//
// The operator may pin names with Config.Resolve entries (HOST:PORT=IP:PORT, like
// curl --resolve) and add trusted roots with Config.CAFile. A pinned dial is trusted
// and skips the public-address check; TLS still verifies HOST.
//
// Failures are *Error values whose Code says what went wrong; see Code.
package outbound

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
)

// Codes carried by *Error.
const (
	// CodeSchemeRefused: the URL is not https.
	CodeSchemeRefused = "scheme_refused"
	// CodePortRefused: the URL names a port other than 443.
	CodePortRefused = "port_refused"
	// CodeURLInvalid: the URL does not parse, is not absolute, has no host or
	// carries userinfo.
	CodeURLInvalid = "url_invalid"
	// CodeAddressRefused: the host resolved to (or is) a non-public address.
	CodeAddressRefused = "address_refused"
	// CodeRedirectRefused: the server answered 3xx.
	CodeRedirectRefused = "redirect_refused"
	// CodeTimeout: the call's time limit (or the caller's context deadline) passed.
	CodeTimeout = "timeout"
	// CodeTooLarge: the response body is over the call's size limit.
	CodeTooLarge = "too_large"
	// CodeHostUnresolved: the host name did not resolve.
	CodeHostUnresolved = "host_unresolved"
	// CodeConnectionFailed: the connection was refused, reset or otherwise broke.
	CodeConnectionFailed = "connection_failed"
	// CodeTLSFailed: the TLS handshake or the server certificate failed.
	CodeTLSFailed = "tls_failed"
	// CodeCanceled: the caller's context was canceled before the call finished.
	CodeCanceled = "canceled"
	// CodeRequestInvalid: the Request itself is unusable (no Timeout or MaxBytes,
	// bad method).
	CodeRequestInvalid = "request_invalid"
	// CodeUnexpected is what Code reports for an error that is not an *Error.
	CodeUnexpected = "unexpected"
)

// Error is a refused or failed call. Code is one of the Code* constants; Err, when
// set, is the underlying cause. HTTP statuses other than 3xx are not errors here:
// callers look at Response.Status.
type Error struct {
	Code string
	Err  error
}

// Error returns "outbound: CODE: cause".
func (e *Error) Error() string {
	if e.Err == nil {
		return "outbound: " + e.Code
	}
	return "outbound: " + e.Code + ": " + e.Err.Error()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Code returns the outbound code of err: "" when err is nil, the Code of the first
// *Error in its chain, or "unexpected" when there is none.
func Code(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeUnexpected
}

func refuse(code string, format string, args ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Config is the operator's outbound configuration (the outbound section of the
// configuration file).
type Config struct {
	// Resolve holds HOST:PORT=IP:PORT entries: a connection to HOST:PORT is
	// dialled to IP:PORT instead, while TLS still verifies HOST. Entries are
	// trusted, so the public-address check does not apply to them; the URL rules
	// still do, so only entries for port 443 can ever be used.
	Resolve []string
	// CAFile is a PEM file of roots trusted in addition to the system roots.
	CAFile string
	// Observe, when set, is told about every call of Do: the target kind (see
	// WithTarget), the outcome (the HTTP status, or the error code when the call
	// failed) and how long it took.
	Observe func(target string, status int, code string, d time.Duration)
}

type targetKey struct{}

// WithTarget names the kind of outbound target of the calls made with ctx
// ("shopify", "woocommerce", "magento", "notice", ...), for the metrics. A call
// without one that carries a notice signature counts as "notice", else "other".
func WithTarget(ctx context.Context, kind string) context.Context {
	return context.WithValue(ctx, targetKey{}, kind)
}

func targetOf(ctx context.Context, h http.Header) string {
	if k, ok := ctx.Value(targetKey{}).(string); ok && k != "" {
		return k
	}
	if h.Get("X-Service-Signature") != "" {
		return "notice"
	}
	return "other"
}

// Client sends requests under the package rules. It is safe for concurrent use
// and should be shared: it keeps a pool of connections.
type Client struct {
	rt      guardTransport
	hc      *http.Client // no Timeout: Do sets a deadline on each call's context
	observe func(target string, status int, code string, d time.Duration)
}

// New builds a Client. It fails on a malformed Resolve entry and on a CAFile that
// cannot be read or holds no PEM certificate.
func New(cfg Config) (*Client, error) {
	pins := make(map[string]string, len(cfg.Resolve))
	for _, entry := range cfg.Resolve {
		from, to, err := parseResolve(entry)
		if err != nil {
			return nil, fmt.Errorf("outbound: resolve: %w", err)
		}
		pins[from] = to
	}

	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("outbound: ca_file: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("outbound: ca_file %s: no PEM certificate found", cfg.CAFile)
		}
	}

	d := &dialer{
		pins:    pins,
		pinned:  &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		guarded: &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, ControlContext: controlPublic},
	}
	tr := &http.Transport{
		Proxy:                 nil, // never: a proxy would dial on our behalf, past the guard
		DialContext:           d.dialContext,
		TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
	}
	c := &Client{rt: guardTransport{base: tr}, observe: cfg.Observe}
	c.hc = c.HTTPClient(0)
	return c, nil
}

// parseResolve splits HOST:PORT=IP:PORT into a lower-cased "host:port" key and the
// "ip:port" target.
func parseResolve(s string) (from, to string, err error) {
	from, to, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return "", "", fmt.Errorf("%q is not HOST:PORT=IP:PORT", s)
	}
	host, port, err := net.SplitHostPort(from)
	if err != nil || host == "" || port == "" {
		return "", "", fmt.Errorf("%q: %q is not HOST:PORT", s, from)
	}
	ip, ipPort, err := net.SplitHostPort(to)
	if err != nil || ipPort == "" {
		return "", "", fmt.Errorf("%q: %q is not IP:PORT", s, to)
	}
	if _, err := netip.ParseAddr(ip); err != nil {
		return "", "", fmt.Errorf("%q: target %q is not an IP address", s, ip)
	}
	return pinKey(host, port), net.JoinHostPort(ip, ipPort), nil
}

func pinKey(host, port string) string {
	return net.JoinHostPort(strings.ToLower(host), port)
}

// Request is one outbound call.
type Request struct {
	// Method defaults to GET.
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// Timeout bounds the whole call, reading the body included. Required (>0).
	Timeout time.Duration
	// MaxBytes bounds the response body. Required (>0).
	MaxBytes int64
}

// Header is an HTTP header, named here so that callers need not import net/http.
type Header = http.Header

// Response is a completed call: any status except 3xx, with the whole body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends one request under the package rules and reads the whole response body.
// A non-2xx status is not an error (callers decide), except 3xx, which is
// redirect_refused. Every error is an *Error.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	if c.observe == nil {
		return c.do(ctx, req)
	}
	start := time.Now()
	resp, err := c.do(ctx, req)
	status := 0
	if resp != nil {
		status = resp.Status
	}
	c.observe(targetOf(ctx, req.Header), status, Code(err), time.Since(start))
	return resp, err
}

func (c *Client) do(ctx context.Context, req Request) (*Response, error) {
	var out *Response
	err := c.stream(ctx, req, func(status int, h http.Header, body io.Reader) error {
		data, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		out = &Response{Status: status, Header: h, Body: data}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Stream sends one request under the package rules like Do, but hands the body to
// read as a stream instead of reading it whole, so a large answer is never held in
// memory. The body fails with too_large once more than MaxBytes arrive, and with
// the outbound code of a broken connection or a passed deadline (see Code). The
// error of read is returned as is.
func (c *Client) Stream(ctx context.Context, req Request, read func(status int, h http.Header, body io.Reader) error) error {
	if c.observe == nil {
		return c.stream(ctx, req, read)
	}
	start := time.Now()
	status := 0
	err := c.stream(ctx, req, func(st int, h http.Header, body io.Reader) error {
		status = st
		return read(st, h, body)
	})
	c.observe(targetOf(ctx, req.Header), status, Code(err), time.Since(start))
	return err
}

func (c *Client) stream(ctx context.Context, req Request, read func(status int, h http.Header, body io.Reader) error) error {
	if req.Timeout <= 0 {
		return refuse(CodeRequestInvalid, "timeout must be positive")
	}
	if req.MaxBytes <= 0 {
		return refuse(CodeRequestInvalid, "max bytes must be positive")
	}
	if err := CheckURL(req.URL); err != nil {
		return err
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}

	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()

	var body io.Reader = http.NoBody
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		return &Error{Code: CodeRequestInvalid, Err: err}
	}
	if req.Header != nil {
		hreq.Header = req.Header.Clone()
	}

	resp, err := c.hc.Do(hreq)
	if err != nil {
		return classify(ctx, err)
	}
	defer resp.Body.Close()

	if resp.ContentLength > req.MaxBytes {
		return refuse(CodeTooLarge, "content length %d over limit %d", resp.ContentLength, req.MaxBytes)
	}
	if err := read(resp.StatusCode, resp.Header, &limitedBody{ctx: ctx, r: resp.Body, left: req.MaxBytes}); err != nil {
		return err
	}
	// net/http can hand back a response that lost the race with the deadline
	// (the server answered only because the client was hanging up). The exchange
	// still did not finish in time.
	if err := ctx.Err(); err != nil {
		return classify(ctx, err)
	}
	return nil
}

// limitedBody reads a response body up to a byte limit: one byte more is
// too_large (unlike io.LimitReader, which would end the body quietly), and read
// failures become *Error values.
type limitedBody struct {
	ctx  context.Context
	r    io.Reader
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, refuse(CodeTooLarge, "body over limit")
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, refuse(CodeTooLarge, "body over limit")
	}
	if err != nil && err != io.EOF {
		return n, classify(b.ctx, err)
	}
	return n, err
}

// CheckURL validates a URL without calling it: absolute https, a host, no
// userinfo, no port other than 443. It returns an *Error with scheme_refused,
// port_refused or url_invalid.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return &Error{Code: CodeURLInvalid, Err: err}
	}
	return checkURL(u)
}

func checkURL(u *url.URL) error {
	if u.Scheme != "https" { // url.Parse lower-cases the scheme
		return refuse(CodeSchemeRefused, "scheme %q is not https", u.Scheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return refuse(CodeURLInvalid, "no host in %q", u.Redacted())
	}
	if u.User != nil {
		return refuse(CodeURLInvalid, "userinfo is not allowed")
	}
	if p := u.Port(); p != "" && p != "443" {
		return refuse(CodePortRefused, "port %s is not 443", p)
	}
	return nil
}

// HTTPClient returns an *http.Client with the same URL rules, dial guard and
// redirect refusal as Do, and the given overall timeout (0 means none), for
// libraries that need one. Size limits are then the caller's job.
//
// Its errors wrap an *Error (see Code), except that its own Timeout surfaces as
// net/http's timeout error (a net.Error whose Timeout() is true).
func (c *Client) HTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Transport: c.rt,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// guardTransport enforces the URL rules before anything is dialled, turns a 3xx
// answer into redirect_refused and every failure into an *Error.
type guardTransport struct {
	base *http.Transport
}

func (g guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkURL(req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper must close the body, even on error
		}
		return nil, err
	}
	resp, err := g.base.RoundTrip(req)
	if err != nil {
		return nil, classify(req.Context(), err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		resp.Body.Close()
		return nil, refuse(CodeRedirectRefused, "status %d (location %q)", resp.StatusCode, resp.Header.Get("Location"))
	}
	return resp, nil
}

// dialer sends pinned host:ports to their Resolve target and everything else
// through the public-address guard.
type dialer struct {
	pins    map[string]string
	pinned  *net.Dialer
	guarded *net.Dialer
}

func (d *dialer) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &Error{Code: CodeURLInvalid, Err: err}
	}
	if to, ok := d.pins[pinKey(host, port)]; ok {
		return d.pinned.DialContext(ctx, network, to)
	}
	// The URL check already holds the port to 443; repeat it where it matters.
	if port != "443" {
		return nil, refuse(CodePortRefused, "port %s is not 443", port)
	}
	return d.guarded.DialContext(ctx, network, addr)
}

// controlPublic runs just before each connect(2), on the resolved address.
func controlPublic(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refuse(CodeAddressRefused, "unparsable address %q", address)
	}
	if !isPublic(ap.Addr()) {
		return refuse(CodeAddressRefused, "%s is not a public address", ap.Addr())
	}
	return nil
}

// blocked lists the non-public ranges the netip predicates in isPublic do not
// already cover.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT shared space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, includes broadcast 255.255.255.255
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated), includes :: and ::1
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped (unmapped before the check; kept as a backstop)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 well-known prefix
	netip.MustParsePrefix("64:ff9b:1::/48"),  // NAT64 local-use
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo (embeds an IPv4 address)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4 (embeds an IPv4 address)
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// isPublic reports whether ip may be dialled without a Resolve entry. An
// IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
func isPublic(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() ||
		ip.IsUnspecified() ||
		ip.IsLoopback() ||
		ip.IsPrivate() || // RFC 1918 and fc00::/7
		ip.IsLinkLocalUnicast() || // 169.254/16 and fe80::/10
		ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// classify turns a transport or body-read error into an *Error. ctx is the call's
// context: once it is done, its deadline or cancellation is the real cause.
func classify(ctx context.Context, err error) *Error {
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return &Error{Code: CodeTimeout, Err: err}
	case context.Canceled:
		return &Error{Code: CodeCanceled, Err: err}
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeTimeout, Err: err}
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Code: CodeCanceled, Err: err}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsTimeout {
			return &Error{Code: CodeTimeout, Err: err}
		}
		return &Error{Code: CodeHostUnresolved, Err: err}
	}
	if isTLSError(err) {
		return &Error{Code: CodeTLSFailed, Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Code: CodeTimeout, Err: err}
	}
	return &Error{Code: CodeConnectionFailed, Err: err}
}

// isTLSError reports whether err comes from the TLS handshake or the server
// certificate check.
func isTLSError(err error) bool {
	var (
		verifyErr   *tls.CertificateVerificationError
		recordErr   tls.RecordHeaderError
		alertErr    tls.AlertError
		hostErr     x509.HostnameError
		authorityEr x509.UnknownAuthorityError
		invalidErr  x509.CertificateInvalidError
		opErr       *net.OpError
	)
	switch {
	case errors.As(err, &verifyErr),
		errors.As(err, &recordErr),
		errors.As(err, &alertErr),
		errors.As(err, &hostErr),
		errors.As(err, &authorityEr),
		errors.As(err, &invalidErr):
		return true
	case errors.As(err, &opErr) && opErr.Op == "remote error": // TLS alert from the peer
		return true
	}
	return false
}

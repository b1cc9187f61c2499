package outbound

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// OperatorEndpoint returns an *http.Client for one address that the operator
// named in the configuration (ai.endpoint, CONTRACT "AI package"). Unlike Do, it
// may reach loopback and private addresses, plain http and any port, because the
// operator chose the address; but only that one: a request to any other scheme,
// host or port is refused (url_invalid) before anything is dialled, and the
// connection goes only to that host and port. Redirects are refused, no proxy is
// used, and outbound.ca_file roots are trusted for https.
func (c *Client) OperatorEndpoint(base string, timeout time.Duration) (*http.Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("outbound: operator endpoint %q is not an http(s) address", base)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	allowed := net.JoinHostPort(host, port)
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	tr := c.rt.base.Clone()
	tr.Proxy = nil
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !strings.EqualFold(addr, allowed) {
			return nil, refuse(CodeURLInvalid, "%s is not the configured endpoint", addr)
		}
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{
		Transport: operatorTransport{base: tr, scheme: u.Scheme, host: strings.ToLower(u.Host)},
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}, nil
}

// operatorTransport lets requests reach only the configured endpoint and turns
// a 3xx answer into redirect_refused.
type operatorTransport struct {
	base         *http.Transport
	scheme, host string
}

func (o operatorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != o.scheme || strings.ToLower(req.URL.Host) != o.host {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, refuse(CodeURLInvalid, "%s://%s is not the configured endpoint", req.URL.Scheme, req.URL.Host)
	}
	resp, err := o.base.RoundTrip(req)
	if err != nil {
		return nil, classify(req.Context(), err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		resp.Body.Close()
		return nil, refuse(CodeRedirectRefused, "status %d (location %q)", resp.StatusCode, resp.Header.Get("Location"))
	}
	return resp, nil
}

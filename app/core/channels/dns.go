package channels

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"
)

// dnsTimeout bounds one DNS question, retries included.
const dnsTimeout = 5 * time.Second

// Resolver asks one DNS server (the dns.server setting, HOST:PORT) or, without one,
// the system resolver.
type Resolver struct {
	r *net.Resolver
}

// NewResolver builds a resolver for server ("" for the system resolver).
func NewResolver(server string) *Resolver {
	if server == "" {
		return &Resolver{r: net.DefaultResolver}
	}
	d := net.Dialer{Timeout: dnsTimeout}
	return &Resolver{r: &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, server)
	}}}
}

// errNoRecord is a name without records of the type asked (or no name at all).
var errNoRecord = errors.New("channels: no such record")

// TXT returns the TXT strings at name: errNoRecord when there are none, another
// error when the server could not be asked or failed.
func (r *Resolver) TXT(ctx context.Context, name string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, dnsTimeout)
	defer cancel()
	txt, err := r.r.LookupTXT(ctx, rooted(name))
	return txt, classifyDNS(err)
}

// HasMail reports whether name has an MX or a TXT record (a domain set up for
// sending): errNoRecord when it has neither, another error when the server could
// not be asked.
func (r *Resolver) HasMail(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, dnsTimeout)
	defer cancel()
	mx, err := r.r.LookupMX(ctx, rooted(name))
	if err = classifyDNS(err); err == nil && len(mx) > 0 {
		return nil
	} else if err != nil && !errors.Is(err, errNoRecord) {
		return err
	}
	txt, err := r.r.LookupTXT(ctx, rooted(name))
	if err = classifyDNS(err); err != nil {
		return err
	}
	if len(txt) == 0 {
		return errNoRecord
	}
	return nil
}

func classifyDNS(err error) error {
	if err == nil {
		return nil
	}
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		return errNoRecord
	}
	return err
}

// rooted makes name absolute, so no search domain is tried.
func rooted(name string) string {
	if strings.HasSuffix(name, ".") {
		return name
	}
	return name + "."
}

package admin_test

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// dnsServer is an authoritative DNS server on loopback (UDP) serving test zones:
// TXT and MX records by name, names that answer SERVFAIL, and NXDOMAIN for the rest.
type dnsServer struct {
	Addr string
	mu   sync.Mutex
	txt  map[string][]string
	mx   map[string]string
	fail map[string]bool
}

// startDNS starts the server until the test ends.
func startDNS(t *testing.T) *dnsServer {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("dns: listen: %v", err)
	}
	s := &dnsServer{Addr: pc.LocalAddr().String(), txt: map[string][]string{}, mx: map[string]string{}, fail: map[string]bool{}}
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: s, NotifyStartedFunc: func() { close(started) }}
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return s
}

// TXT sets the TXT strings of name (none: the name has no TXT record).
func (s *dnsServer) TXT(name string, values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.txt[dns.Fqdn(strings.ToLower(name))] = values
}

// MX gives name a mail exchanger.
func (s *dnsServer) MX(name, host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mx[dns.Fqdn(strings.ToLower(name))] = dns.Fqdn(host)
}

// Fail makes every question about name (and names under it) answer SERVFAIL.
func (s *dnsServer) Fail(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[dns.Fqdn(strings.ToLower(name))] = true
}

func (s *dnsServer) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(r.Question) != 1 {
		m.Rcode = dns.RcodeFormatError
		_ = w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	name := strings.ToLower(q.Name)
	for f := range s.fail {
		if name == f || strings.HasSuffix(name, "."+f) {
			m.Rcode = dns.RcodeServerFailure
			_ = w.WriteMsg(m)
			return
		}
	}
	txt, hasTXT := s.txt[name]
	mx, hasMX := s.mx[name]
	switch {
	case q.Qtype == dns.TypeTXT && hasTXT:
		for _, v := range txt {
			m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{v}})
		}
	case q.Qtype == dns.TypeMX && hasMX:
		m.Answer = append(m.Answer, &dns.MX{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeMX, Class: dns.ClassINET, Ttl: 60}, Preference: 10, Mx: mx})
	case hasTXT || hasMX:
		// The name exists without records of this type (NODATA).
	default:
		m.Rcode = dns.RcodeNameError
	}
	_ = w.WriteMsg(m)
}

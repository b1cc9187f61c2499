package mail_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// received is one message as the test SMTP server saw it.
type received struct {
	From string
	To   []string
	Data []byte
	TLS  bool
	User string
}

// backend is a real SMTP server (emersion/go-smtp) that stores what it receives
// and answers with the configured errors.
type backend struct {
	mu       sync.Mutex
	msgs     []received
	rcptErr  error
	dataErr  error
	user     string
	password string
	// inData, when set, is closed when DATA starts; Data then waits for release.
	inData  chan struct{}
	release chan struct{}
}

func (b *backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	_, isTLS := c.TLSConnectionState()
	return &session{b: b, cur: received{TLS: isTLS}}, nil
}

func (b *backend) messages() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.msgs...)
}

type session struct {
	b    *backend
	cur  received
	user string
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != s.b.user || password != s.b.password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		s.user = username
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.b.user != "" && s.user == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	s.cur.From = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.b.rcptErr != nil {
		return s.b.rcptErr
	}
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if s.b.inData != nil {
		close(s.b.inData)
		<-s.b.release
	}
	if s.b.dataErr != nil {
		return s.b.dataErr
	}
	s.cur.Data = data
	s.cur.User = s.user
	s.b.mu.Lock()
	s.b.msgs = append(s.b.msgs, s.cur)
	s.b.mu.Unlock()
	return nil
}

func (s *session) Reset()        { s.cur = received{TLS: s.cur.TLS} }
func (s *session) Logout() error { return nil }

type serverOpts struct {
	tls      *tls.Config // offered through STARTTLS, or on connect when implicit
	implicit bool
}

// startServer runs b on 127.0.0.1 and returns the port.
func startServer(t *testing.T, b *backend, o serverOpts) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.implicit {
		ln = tls.NewListener(ln, o.tls)
	}
	s := smtp.NewServer(b)
	s.Domain = "mx.test"
	s.ReadTimeout = 10 * time.Second
	s.WriteTimeout = 10 * time.Second
	s.ErrorLog = log.New(io.Discard, "", 0)
	if !o.implicit {
		s.TLSConfig = o.tls
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { s.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// selfSigned returns a server TLS config for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}

// parsed is a received message taken apart.
type parsed struct {
	Header netmail.Header
	Type   string // media type of the body
	Text   string
	HTML   string
}

func parseMessage(t *testing.T, data []byte) parsed {
	t.Helper()
	m, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("read message: %v", err)
	}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("content type: %v", err)
	}
	p := parsed{Header: m.Header, Type: mt}
	if !strings.HasPrefix(mt, "multipart/") {
		p.Text = decodePart(t, m.Header.Get("Content-Transfer-Encoding"), m.Body)
		return p
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("next part: %v", err)
		}
		pt, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		// multipart.Reader already decodes quoted-printable parts.
		body := decodePart(t, part.Header.Get("Content-Transfer-Encoding"), part)
		switch pt {
		case "text/plain":
			p.Text = body
		case "text/html":
			p.HTML = body
		default:
			t.Errorf("unexpected part %q", pt)
		}
	}
	return p
}

func decodePart(t *testing.T, cte string, r io.Reader) string {
	t.Helper()
	if strings.EqualFold(cte, "quoted-printable") {
		r = quotedprintable.NewReader(r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read part: %v", err)
	}
	return string(b)
}

func decodeHeader(t *testing.T, v string) string {
	t.Helper()
	s, err := new(mime.WordDecoder).DecodeHeader(v)
	if err != nil {
		t.Fatalf("decode header %q: %v", v, err)
	}
	return s
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// freePort returns a port nothing listens on.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

func isErr[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}

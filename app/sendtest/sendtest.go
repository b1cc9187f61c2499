// Package sendtest runs, inside a test, what reviewd sends to: a real SMTP server
// (emersion/go-smtp) that keeps what it receives, and an HTTPS notice receiver
// (httptest) reached through an outbound client whose resolve rule points
// example.com:443 at it. Imported only by _test.go files.
package sendtest

import (
	"bytes"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"reviewd/app/mail"
	"reviewd/app/outbound"
)

// Mail is one message as the SMTP server received it, with its parts decoded.
type Mail struct {
	From   string
	To     []string
	Data   []byte
	Header netmail.Header
	Text   string
	HTML   string
}

// SMTPServer is a real SMTP server on a local port.
type SMTPServer struct {
	Port int
	mu   sync.Mutex
	msgs []Mail
	fail *smtp.SMTPError
}

// StartSMTP starts an SMTP server (no TLS, no login) until the test ends.
func StartSMTP(t testing.TB) *SMTPServer {
	t.Helper()
	s := &SMTPServer{}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sendtest: listen: %v", err)
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Mailer returns a mailer that sends to this server.
func (s *SMTPServer) Mailer() *mail.Mailer {
	return mail.New(mail.Config{Host: "127.0.0.1", Port: s.Port, Security: mail.SecurityNone, From: "reviews@shop.example",
		Timeout: 5 * time.Second})
}

// DownMailer returns a mailer whose server does not answer (a closed port).
func DownMailer(t testing.TB) *mail.Mailer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return mail.New(mail.Config{Host: "127.0.0.1", Port: port, Security: mail.SecurityNone, From: "reviews@shop.example",
		Timeout: 2 * time.Second})
}

// FailData makes every later DATA command fail with an SMTP reply code (0 clears).
func (s *SMTPServer) FailData(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == 0 {
		s.fail = nil
		return
	}
	s.fail = &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0}, Message: "refused by test"}
}

// Messages returns what the server received so far.
func (s *SMTPServer) Messages() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.msgs...)
}

type backend struct{ s *SMTPServer }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *SMTPServer
	from string
	to   []string
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error { x.from = from; return nil }
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error   { x.to = append(x.to, to); return nil }
func (x *session) Reset()                                      { x.from, x.to = "", nil }
func (x *session) Logout() error                               { return nil }

func (x *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	if x.s.fail != nil {
		return x.s.fail
	}
	m := Mail{From: x.from, To: x.to, Data: data}
	if err := m.parse(); err != nil {
		return err
	}
	x.s.msgs = append(x.s.msgs, m)
	return nil
}

// parse reads the header and the text and HTML parts.
func (m *Mail) parse() error {
	msg, err := netmail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return err
	}
	m.Header = msg.Header
	return m.part(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
}

func (m *Mail) part(ctype, cte string, body io.Reader) error {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := m.part(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); err != nil {
				return err
			}
		}
	}
	var rd io.Reader = body
	switch strings.ToLower(cte) {
	case "quoted-printable":
		rd = quotedprintable.NewReader(body)
	case "base64":
		rd = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	switch mt {
	case "text/plain":
		m.Text = string(b)
	case "text/html":
		m.HTML = string(b)
	}
	return nil
}

// DecodedHeader returns a header field with RFC 2047 words decoded.
func (m Mail) DecodedHeader(name string) string {
	v := m.Header.Get(name)
	d, err := new(mime.WordDecoder).DecodeHeader(v)
	if err != nil {
		return v
	}
	return d
}

// Notice is one request the receiver got.
type Notice struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// Receiver is an HTTPS server playing the brand's notice endpoint at URL.
type Receiver struct {
	// URL is the notification address to configure (https://example.com/...).
	URL string
	// Client is an outbound client that reaches the receiver for URL.
	Client *outbound.Client
	server *httptest.Server
	mu     sync.Mutex
	reqs   []Notice
	status []int
	delay  time.Duration
}

// StartReceiver starts the receiver until the test ends. It answers 204 unless
// Respond says otherwise.
func StartReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{URL: "https://example.com/hooks/reviews"}
	r.server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, Notice{Header: req.Header.Clone(), Body: body, At: time.Now()})
		status := http.StatusNoContent
		if len(r.status) > 0 {
			status = r.status[0]
			if len(r.status) > 1 {
				r.status = r.status[1:]
			}
		}
		delay := r.delay
		r.mu.Unlock()
		if delay > 0 {
			// A slow receiver: answers after delay, or not at all once the
			// caller gave up (the test then ends without waiting it out).
			select {
			case <-time.After(delay):
			case <-req.Context().Done():
				return
			}
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.server.Close)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.server.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	port := r.server.Listener.Addr().(*net.TCPAddr).Port
	c, err := outbound.New(outbound.Config{Resolve: []string{"example.com:443=127.0.0.1:" + strconv.Itoa(port)}, CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	r.Client = c
	return r
}

// Respond sets the statuses of the next answers; the last one repeats.
func (r *Receiver) Respond(statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = statuses
}

// Delay makes every answer wait d (to test the time limit).
func (r *Receiver) Delay(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.delay = d
}

// Requests returns what the receiver got so far.
func (r *Receiver) Requests() []Notice {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Notice(nil), r.reqs...)
}

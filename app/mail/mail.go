// Package mail sends the service's e-mails over SMTP (github.com/wneessen/go-mail)
// and renders their texts from the templates embedded in assets/templates/mail.
// It knows nothing about the database or HTTP: callers pass a rendered Message and
// get back the Message-ID or a *SendError saying whether a retry can help.
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"net/textproto"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Security modes of Config.Security.
const (
	SecurityNone     = "none"
	SecurityStartTLS = "starttls"
	SecurityTLS      = "tls"
)

// DefaultTimeout bounds every network step of one Send when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Config is the outgoing mail server (config keys smtp.*).
type Config struct {
	Host     string
	Port     int // 0: 25 for none, 587 for starttls, 465 for tls
	Username string
	Password string
	Security string // none, starttls (default when empty) or tls
	From     string // default sender address
	// RootCAs verifies the server certificate; nil uses the system roots. Tests
	// point it at their self-signed certificate.
	RootCAs *x509.CertPool
	// Timeout bounds each network step; zero means DefaultTimeout.
	Timeout time.Duration
	// Observe, when set, is told the outcome of every Send: nil when the message
	// was handed to the server, else the *SendError.
	Observe func(err *SendError)
}

// Message is one e-mail. Text and HTML become a multipart/alternative body (HTML
// optional).
type Message struct {
	From     string // sender address; empty uses Config.From
	FromName string // display name of the sender, e.g. the brand
	To       string // one recipient address
	Subject  string
	Text     string
	HTML     string
	// ListUnsubscribeURL adds "List-Unsubscribe: <url>"; for an https URL also
	// "List-Unsubscribe-Post: List-Unsubscribe=One-Click" (RFC 8058 allows the
	// one-click header only with https), so the URL must accept that POST.
	ListUnsubscribeURL string
	// MessageID is used as the Message-ID (angle brackets optional); empty generates
	// "<random@domain of the sender>".
	MessageID string
	// Headers are extra header fields. They may not replace the fields Send sets
	// itself (From, To, Subject, Message-ID, Date, MIME and List-Unsubscribe fields).
	Headers map[string]string
}

// SendError is the only error type Send returns. Temporary failures (no
// connection, TLS or login trouble at the server, timeouts, 4xx replies) may
// succeed on a later attempt; permanent ones (5xx replies to the envelope or
// data, an unusable recipient address) will not.
type SendError struct {
	Temporary bool
	// Code is the SMTP reply code when the server gave one (for example 451, 550),
	// otherwise 0.
	Code int
	// Reason is a short code for the message log: "smtp_status: <code>",
	// "connection_failed", "address_invalid", "message_invalid" or "mail_disabled".
	Reason string
	Err    error
}

// Error describes the failure without recipient addresses (they are replaced by
// the word address), so it can be logged.
func (e *SendError) Error() string {
	msg := "mail: send: " + e.Reason
	if e.Err != nil {
		msg += ": " + redact(e.Err.Error())
	}
	return msg
}

func (e *SendError) Unwrap() error { return e.Err }

// ErrDisabled is wrapped by the SendError of a Mailer without a host.
var ErrDisabled = errors.New("mail: no smtp host configured")

// Mailer sends messages through one SMTP server. It is safe for concurrent use;
// each Send opens its own connection.
type Mailer struct {
	cfg Config
	mu  sync.RWMutex
	// over is the mail server set in the panel (Override): while set it replaces
	// cfg's server, login and sender; nil uses cfg.
	over *Config
}

// New returns a Mailer for cfg. It does not connect; a bad configuration shows up
// as a SendError of the first Send (config validation lives in app.Config).
func New(cfg Config) *Mailer {
	return &Mailer{cfg: normalize(cfg)}
}

// normalize trims the host and fills the security, port and timeout defaults.
func normalize(cfg Config) Config {
	cfg.Host = strings.TrimSpace(cfg.Host)
	cfg.Security = strings.ToLower(strings.TrimSpace(cfg.Security))
	if cfg.Security == "" {
		cfg.Security = SecurityStartTLS
	}
	if cfg.Port == 0 {
		switch cfg.Security {
		case SecurityNone:
			cfg.Port = 25
		case SecurityTLS:
			cfg.Port = 465
		default:
			cfg.Port = 587
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return cfg
}

// Override puts the server, login and sender of o in place of the configured ones
// for every later Send (the certificate roots, timeout and observer stay); nil
// goes back to the configuration. Safe while messages are being sent.
func (m *Mailer) Override(o *Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o == nil {
		m.over = nil
		return
	}
	c := m.cfg
	c.Host, c.Port, c.Username, c.Password, c.Security, c.From = o.Host, o.Port, o.Username, o.Password, o.Security, o.From
	c = normalize(c)
	m.over = &c
}

// Overridden reports whether a server set by Override is in use.
func (m *Mailer) Overridden() bool {
	if m == nil {
		return false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.over != nil
}

// config is the configuration Send uses now.
func (m *Mailer) config() Config {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.over != nil {
		return *m.over
	}
	return m.cfg
}

// Enabled reports whether a host is configured; without one e-mail sending is off.
func (m *Mailer) Enabled() bool { return m != nil && m.config().Host != "" }

// Send delivers msg and returns its Message-ID without angle brackets. Every error
// is a *SendError.
func (m *Mailer) Send(ctx context.Context, msg Message) (string, error) {
	if !m.Enabled() {
		return "", &SendError{Temporary: true, Reason: "mail_disabled", Err: ErrDisabled}
	}
	cfg := m.config()
	id, err := send(ctx, cfg, msg)
	if cfg.Observe != nil {
		var se *SendError
		if err != nil && !errors.As(err, &se) {
			se = &SendError{Reason: "message_invalid", Err: err}
		}
		cfg.Observe(se)
	}
	return id, err
}

func send(ctx context.Context, cfg Config, msg Message) (string, error) {
	gm, id, err := build(cfg, msg)
	if err != nil {
		return "", err
	}
	if err := deliver(ctx, cfg, gm); err != nil {
		return "", err
	}
	return id, nil
}

// build turns msg into a go-mail message and returns it with its Message-ID.
func build(cfg Config, msg Message) (*gomail.Msg, string, error) {
	fromAddr := strings.TrimSpace(msg.From)
	if fromAddr == "" {
		fromAddr = strings.TrimSpace(cfg.From)
	}
	from, err := parseAddress(fromAddr)
	if err != nil {
		// The sender comes from configuration: fixing it lets a retry succeed.
		return nil, "", &SendError{Temporary: true, Reason: "address_invalid", Err: fmt.Errorf("from: %w", err)}
	}
	to, err := parseAddress(msg.To)
	if err != nil {
		return nil, "", &SendError{Reason: "address_invalid", Err: fmt.Errorf("to: %w", err)}
	}
	if msg.Text == "" {
		return nil, "", &SendError{Reason: "message_invalid", Err: errors.New("empty text part")}
	}

	gm := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := gm.FromFormat(oneLine(msg.FromName), from); err != nil {
		return nil, "", &SendError{Temporary: true, Reason: "address_invalid", Err: fmt.Errorf("from: %w", err)}
	}
	if err := gm.To(to); err != nil {
		return nil, "", &SendError{Reason: "address_invalid", Err: fmt.Errorf("to: %w", err)}
	}

	// Extra headers first, so nothing below can be overridden by them.
	names := make([]string, 0, len(msg.Headers))
	for k := range msg.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := msg.Headers[k]
		if !validFieldName(k) || strings.ContainsAny(v, "\r\n") {
			return nil, "", &SendError{Reason: "message_invalid", Err: fmt.Errorf("header %q invalid", k)}
		}
		if reservedHeader(k) {
			return nil, "", &SendError{Reason: "message_invalid", Err: fmt.Errorf("header %q is set by the mailer", k)}
		}
		gm.SetGenHeader(gomail.Header(textproto.CanonicalMIMEHeaderKey(k)), v)
	}

	id := strings.TrimSpace(msg.MessageID)
	id = strings.TrimSuffix(strings.TrimPrefix(id, "<"), ">")
	if id == "" {
		id = NewMessageID(from)
	} else if strings.ContainsAny(id, "<> \t\r\n") || !strings.Contains(id, "@") {
		return nil, "", &SendError{Reason: "message_invalid", Err: errors.New("message id invalid")}
	}
	gm.SetMessageIDWithValue(id)
	gm.SetDate()
	gm.Subject(oneLine(msg.Subject))
	// Automated mail: ask auto-responders (out-of-office) not to answer (RFC 3834).
	gm.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")

	if u := strings.TrimSpace(msg.ListUnsubscribeURL); u != "" {
		pu, err := url.Parse(u)
		if err != nil || pu.Host == "" || (pu.Scheme != "https" && pu.Scheme != "http") || strings.ContainsAny(u, "<>\r\n ") {
			return nil, "", &SendError{Reason: "message_invalid", Err: errors.New("unsubscribe url invalid")}
		}
		gm.SetListUnsubscribe(u)
		if pu.Scheme == "https" {
			gm.SetListUnsubscribePost()
		}
	}

	gm.SetBodyString(gomail.TypeTextPlain, msg.Text)
	if msg.HTML != "" {
		gm.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	}
	return gm, id, nil
}

// deliver opens one connection, sends gm and closes the connection.
func deliver(ctx context.Context, cfg Config, gm *gomail.Msg) error {
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	tlsConf := &tls.Config{ServerName: cfg.Host, RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: cfg.Timeout}
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if cfg.Security == SecurityTLS {
			tc := tls.Client(c, tlsConf)
			if err := tc.HandshakeContext(ctx); err != nil {
				c.Close()
				return nil, err
			}
			c = tc
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		return c, nil
	}
	closeAll := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}

	opts := []gomail.Option{
		gomail.WithPort(cfg.Port),
		gomail.WithTimeout(cfg.Timeout),
		gomail.WithDialContextFunc(dial),
		gomail.WithTLSConfig(tlsConf),
	}
	switch cfg.Security {
	case SecurityNone, SecurityTLS:
		// tls: the dialer already wrapped the connection; no STARTTLS on top.
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case SecurityStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		return &SendError{Temporary: true, Reason: "connection_failed", Err: fmt.Errorf("security %q unknown", cfg.Security)}
	}
	if cfg.Username != "" {
		// PLAIN and LOGIN refuse to run without TLS (go-mail checks the connection),
		// so with security none only challenge-response mechanisms can log in.
		opts = append(opts,
			gomail.WithUsername(cfg.Username),
			gomail.WithPassword(cfg.Password),
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin,
				gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1, gomail.SMTPAuthCramMD5))
	}
	client, err := gomail.NewClient(cfg.Host, opts...)
	if err != nil {
		return &SendError{Temporary: true, Reason: "connection_failed", Err: err}
	}

	// go-mail watches ctx only while dialling; closing the connection ends a send
	// that outlives ctx.
	stop := context.AfterFunc(ctx, closeAll)
	defer stop()

	sc, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		closeAll()
		// Greeting, STARTTLS or login failures are about our relay, not about the
		// recipient: always worth a retry once the relay or its settings are fixed.
		return &SendError{Temporary: true, Code: replyCode(err), Reason: "connection_failed", Err: err}
	}
	err = client.SendWithSMTPClient(sc, gm)
	if cerr := client.CloseWithSMTPClient(sc); cerr != nil {
		closeAll()
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return &SendError{Temporary: true, Reason: "connection_failed", Err: ctx.Err()}
	}
	code := replyCode(err)
	if code == 0 {
		return &SendError{Temporary: true, Reason: "connection_failed", Err: err}
	}
	return &SendError{Temporary: code < 500, Code: code, Reason: "smtp_status: " + strconv.Itoa(code), Err: err}
}

// replyCode digs the SMTP reply code out of err, or 0.
func replyCode(err error) int {
	var se *gomail.SendError
	if errors.As(err, &se) && se.ErrorCode() != 0 {
		return se.ErrorCode()
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// NewMessageID returns a fresh Message-ID (without angle brackets) in the domain of
// address, "localhost" when address has none.
func NewMessageID(address string) string {
	domain := "localhost"
	if at := strings.LastIndexByte(address, '@'); at >= 0 && at < len(address)-1 {
		domain = strings.ToLower(strings.TrimSuffix(address[at+1:], ">"))
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "@" + domain
}

func parseAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("address missing")
	}
	if strings.ContainsAny(s, "\r\n") {
		return "", errors.New("address invalid")
	}
	a, err := netmail.ParseAddress(s)
	if err != nil || !strings.Contains(a.Address, "@") {
		return "", errors.New("address invalid")
	}
	return a.Address, nil
}

// oneLine folds any line breaks and runs of white space into single spaces, so a
// subject or display name can never start a new header.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func validFieldName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 33 || c > 126 || c == ':' {
			return false
		}
	}
	return true
}

var reserved = map[string]bool{
	"from": true, "to": true, "cc": true, "bcc": true, "subject": true, "message-id": true,
	"date": true, "mime-version": true, "content-type": true, "content-transfer-encoding": true,
	"list-unsubscribe": true, "list-unsubscribe-post": true, "auto-submitted": true,
	"sender": true, "return-path": true,
}

// reservedHeader reports whether Send sets field k itself.
func reservedHeader(k string) bool { return reserved[strings.ToLower(k)] }

var addressRE = regexp.MustCompile(`[A-Za-z0-9._%+\-=!#$&'*/?^{|}~]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)+`)

// redact hides e-mail addresses in server replies and go-mail messages.
func redact(s string) string { return addressRE.ReplaceAllString(s, "address") }

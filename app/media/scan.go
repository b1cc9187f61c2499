package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Scanner scans files with clamd over its INSTREAM command.
type Scanner struct {
	// Address is "tcp:host:port" or "unix:/path/to/clamd.sock"; empty turns scanning
	// off (Scan returns nil and the caller logs a warning).
	Address string
	// Timeout bounds one scan when ctx has no earlier deadline; 0 means 2 minutes.
	Timeout time.Duration
}

// Enabled reports whether an address is set.
func (s *Scanner) Enabled() bool { return s != nil && s.Address != "" }

const (
	scanChunk    = 64 << 10
	scanReplyMax = 4 << 10
)

// Scan streams r to clamd. It returns nil for "stream: OK", ErrQuarantined (with the
// signature name as cause) for "... FOUND", and ErrScanFailed for every other
// answer, a size-limit error, or a connection failure: a file that could not be
// scanned is never treated as clean. A cancelled ctx returns ctx's error.
func (s *Scanner) Scan(ctx context.Context, r io.Reader) error {
	if !s.Enabled() {
		return nil
	}
	network, addr, ok := strings.Cut(s.Address, ":")
	if !ok || addr == "" || (network != "tcp" && network != "unix") {
		return becausef(ErrScanFailed, "clamd address %q: want tcp:host:port or unix:/path", s.Address)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return scanErr(ctx, fmt.Errorf("clamd dial: %w", err))
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	sendErr := sendInstream(conn, r)
	var srcErr *sourceError
	if errors.As(sendErr, &srcErr) {
		return scanErr(ctx, sendErr)
	}
	// A write error usually means clamd gave up (size limit) and closed the
	// connection; its reply explains, so read it anyway.
	reply, readErr := readReply(conn)
	switch {
	case reply == "stream: OK" && sendErr == nil:
		return nil
	case strings.HasSuffix(reply, " FOUND"):
		sig := strings.TrimSuffix(strings.TrimPrefix(reply, "stream: "), " FOUND")
		return ErrQuarantined.because(fmt.Errorf("clamd: %s", sig))
	case reply != "":
		return scanErr(ctx, fmt.Errorf("clamd: %q (send: %v)", reply, sendErr))
	case sendErr != nil:
		return scanErr(ctx, fmt.Errorf("clamd send: %w", sendErr))
	default:
		return scanErr(ctx, fmt.Errorf("clamd: no reply: %v", readErr))
	}
}

// sourceError marks a failure reading the file being scanned (not clamd's fault).
type sourceError struct{ err error }

func (e *sourceError) Error() string { return "read file: " + e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

func sendInstream(w io.Writer, r io.Reader) error {
	if _, err := io.WriteString(w, "zINSTREAM\x00"); err != nil {
		return err
	}
	buf := make([]byte, 4+scanChunk)
	for {
		n, err := io.ReadFull(r, buf[4:])
		if n > 0 {
			binary.BigEndian.PutUint32(buf[:4], uint32(n))
			if _, werr := w.Write(buf[:4+n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return &sourceError{err}
		}
	}
	_, err := w.Write([]byte{0, 0, 0, 0})
	return err
}

// readReply reads a NUL-terminated (or EOF-terminated) reply.
func readReply(r io.Reader) (string, error) {
	var out []byte
	buf := make([]byte, 512)
	for len(out) < scanReplyMax {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if i := bytes.IndexByte(out, 0); i >= 0 {
			return strings.TrimSpace(string(out[:i])), nil
		}
		if err != nil {
			return strings.TrimSpace(string(out)), err
		}
	}
	return strings.TrimSpace(string(out)), errors.New("reply too long")
}

func scanErr(ctx context.Context, cause error) error {
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return ErrScanFailed.because(cause)
}

package media_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reviewd/app/media"
)

// eicarMarker is the string the test clamd's .ndb signature matches, built at run
// time so this source file does not contain it in one piece.
var eicarMarker = "EICAR-STANDARD-" + "ANTIVIRUS-TEST-FILE"

func TestScanWithClamd(t *testing.T) {
	addr := os.Getenv("REVIEWD_TEST_CLAMD")
	if addr == "" {
		t.Skip("REVIEWD_TEST_CLAMD not set; run scripts/clamd-test.sh start and export the address it prints")
	}
	s := &media.Scanner{Address: addr}
	ctx := context.Background()

	clean := bytes.Repeat([]byte("a clean review photo "), 20000) // ~420 KB, several chunks
	if err := s.Scan(ctx, bytes.NewReader(clean)); err != nil {
		t.Errorf("clean file: %v", err)
	}
	if err := s.Scan(ctx, bytes.NewReader(nil)); err != nil {
		t.Errorf("empty file: %v", err)
	}

	// The marker straddles a 64 KiB chunk boundary inside a larger file.
	infected := append(bytes.Repeat([]byte{0x42}, 64<<10-10), eicarMarker...)
	infected = append(infected, bytes.Repeat([]byte{0x43}, 5000)...)
	err := s.Scan(ctx, bytes.NewReader(infected))
	if !errors.Is(err, media.ErrQuarantined) {
		t.Fatalf("infected file: err = %v, want quarantined", err)
	}
	if r, _ := media.AsRefusal(err); r.Status() != 422 || r.Detail() != "quarantined" {
		t.Errorf("refusal %d %s", r.Status(), r.Detail())
	}
	if !strings.Contains(err.Error(), "EICAR") {
		t.Errorf("signature name missing from log text: %v", err)
	}
}

func TestScanFailures(t *testing.T) {
	ctx := context.Background()
	data := func() io.Reader { return strings.NewReader("some bytes") }

	// Nothing listens on a port that was just closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	for _, addr := range []string{
		"tcp:" + closed,
		"unix:" + filepath.Join(t.TempDir(), "no.sock"),
		"http://127.0.0.1:3310",
	} {
		err := (&media.Scanner{Address: addr}).Scan(ctx, data())
		if !errors.Is(err, media.ErrScanFailed) {
			t.Errorf("%s: err = %v, want scan_failed", addr, err)
		}
	}

	if err := (&media.Scanner{}).Scan(ctx, data()); err != nil {
		t.Errorf("scanning off: %v", err)
	}
	var off *media.Scanner
	if off.Enabled() || (&media.Scanner{}).Enabled() {
		t.Error("Enabled without address")
	}
}

// fakeClamd answers every INSTREAM with reply after reading the whole stream (or
// right away when early is set, closing the connection like clamd does when a
// stream is over StreamMaxLength).
func fakeClamd(t *testing.T, reply string, early bool) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "clamd.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				cmd := make([]byte, len("zINSTREAM\x00"))
				if _, err := io.ReadFull(c, cmd); err != nil || string(cmd) != "zINSTREAM\x00" {
					return
				}
				if !early {
					for {
						var n [4]byte
						if _, err := io.ReadFull(c, n[:]); err != nil {
							return
						}
						size := int64(n[0])<<24 | int64(n[1])<<16 | int64(n[2])<<8 | int64(n[3])
						if size == 0 {
							break
						}
						if _, err := io.CopyN(io.Discard, c, size); err != nil {
							return
						}
					}
				}
				_, _ = c.Write([]byte(reply + "\x00"))
			}()
		}
	}()
	return "unix:" + sock
}

func TestScanClamdAnswers(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 8<<20)
	tests := []struct {
		name  string
		reply string
		early bool
		data  []byte
		want  error
	}{
		{"ok", "stream: OK", false, []byte("hello"), nil},
		{"found", "stream: Win.Test.EICAR_HDB-1 FOUND", false, []byte("hello"), media.ErrQuarantined},
		{"size limit", "INSTREAM size limit exceeded. ERROR", true, big, media.ErrScanFailed},
		{"other error", "Can't allocate memory ERROR", false, []byte("hello"), media.ErrScanFailed},
		{"odd reply", "PONG", false, []byte("hello"), media.ErrScanFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &media.Scanner{Address: fakeClamd(t, tc.reply, tc.early), Timeout: 10 * time.Second}
			err := s.Scan(context.Background(), bytes.NewReader(tc.data))
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}

	// A clamd that never answers: the timeout turns into scan_failed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			defer c.Close()
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	s := &media.Scanner{Address: "tcp:" + l.Addr().String(), Timeout: 300 * time.Millisecond}
	if err := s.Scan(context.Background(), strings.NewReader("x")); !errors.Is(err, media.ErrScanFailed) {
		t.Errorf("silent clamd: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Scan(ctx, strings.NewReader("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

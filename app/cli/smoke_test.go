package cli_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSmoke builds the real binary and drives it from outside: bootstrap with the
// CLI only, serve over HTTP, stop with SIGTERM.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	env := append(os.Environ(), "REVIEWD_JOBS_ENABLED=false", "REVIEWD_LOG_LEVEL=warn")
	cli := func(stdin string, args ...string) (string, string, error) {
		cmd := exec.Command(bin, append(args, "--data", dir)...)
		cmd.Env = env
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	must := func(stdin string, args ...string) string {
		t.Helper()
		out, errOut, err := cli(stdin, args...)
		if err != nil {
			t.Fatalf("reviewd %s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		return out
	}

	must("", "channel", "create", "--code", "tr-main", "--market", "TR", "--language", "tr", "--label", "Türkiye",
		"--brand-name", "Acme", "--domain", "shop.example")
	must("", "key", "create", "--kind", "server", "--channel", "tr-main")
	var api struct{ Key string }
	if err := json.Unmarshal([]byte(must("", "key", "create", "--kind", "api", "--scopes", "read", "--json")), &api); err != nil || api.Key == "" {
		t.Fatalf("api key: %v", err)
	}
	must("Str0ng-kettle-lantern\n", "user", "create", "--username", "ayse", "--email", "ayse@shop.example", "--role", "owner", "--password-stdin")

	// A failing command exits non-zero with one line on stderr.
	_, errOut, err := cli("", "key", "create", "--kind", "api")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 || errOut != "reviewd: invalid: scopes_required\n" {
		t.Fatalf("failing command: %v, stderr %q", err, errOut)
	}

	// The flag beats the environment.
	flagAddr, envAddr := freeAddr(t), freeAddr(t)
	srv := startServe(t, bin, append(env, "REVIEWD_LISTEN="+envAddr), "serve", "--listen", flagAddr, "--data", dir)
	if srv.addr != flagAddr {
		t.Fatalf("serve bound %s; --listen %s should beat REVIEWD_LISTEN %s", srv.addr, flagAddr, envAddr)
	}
	base := "http://" + srv.addr

	res := get(t, base+"/admin/v1/whoami", "Api-Key "+api.Key)
	if res.status != 200 {
		t.Fatalf("whoami with key: %d %s", res.status, res.body)
	}
	res = get(t, base+"/admin/v1/whoami", "")
	if res.status != 401 || res.json["error"] == nil || res.json["detail"] == nil || res.header.Get("X-Request-Id") == "" ||
		!strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
		t.Fatalf("whoami without key: %d %v %s", res.status, res.header, res.body)
	}
	res = get(t, base+"/no/such/path", "")
	if res.status != 404 || res.json["error"] != "not_found" {
		t.Fatalf("unknown path: %d %s", res.status, res.body)
	}
	srv.stop(t)

	// Without the flag, the environment decides.
	srv = startServe(t, bin, append(env, "REVIEWD_LISTEN="+envAddr), "serve", "--data", dir)
	if srv.addr != envAddr {
		t.Fatalf("serve bound %s, want REVIEWD_LISTEN %s", srv.addr, envAddr)
	}
	if res := get(t, "http://"+envAddr+"/healthz", ""); res.status != 200 {
		t.Fatalf("healthz: %d", res.status)
	}
	srv.stop(t)
}

// buildBinary runs `go build -o <tmp>/reviewd .` at the repository root, once per
// test run; TestMain removes the folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir, err := os.MkdirTemp("", "reviewd-bin-*")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		bin := filepath.Join(dir, "reviewd")
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goTool); err != nil {
			goTool = "go"
		}
		cmd := exec.Command(goTool, "build", "-o", bin, ".")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		binPath = bin
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

type serveProc struct {
	cmd    *exec.Cmd
	addr   string
	done   chan error
	stderr *strings.Builder // read only after the process ended
}

// startServe starts the binary and waits until it reports its address and answers
// /healthz.
func startServe(t *testing.T, bin string, env []string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, done: make(chan error, 1), stderr: stderr}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "reviewd listening on "); ok {
				addr, _, _ := strings.Cut(rest, " ")
				addrc <- addr
			}
		}
		io.Copy(io.Discard, stdout)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case p.addr = <-addrc:
	case err := <-p.done:
		t.Fatalf("serve ended before listening: %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-p.done // stderr is complete (and no longer written) once serve ended
		t.Fatalf("serve did not report an address within 30s\n%s", stderr.String())
	}
	if res := get(t, "http://"+p.addr+"/healthz", ""); res.status != 200 || res.json["ok"] != true {
		t.Fatalf("healthz: %d %s", res.status, res.body)
	}
	return p
}

// stop sends SIGTERM and expects a clean exit.
func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("serve exit after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop after SIGTERM")
	}
}

type httpResult struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func get(t *testing.T, url, auth string) httpResult {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	r := httpResult{status: res.StatusCode, header: res.Header, body: body}
	_ = json.Unmarshal(body, &r.json)
	return r
}

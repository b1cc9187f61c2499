package cli_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSystemdUnit checks deploy/reviewd.service: systemd-analyze verify accepts it
// (with ExecStart pointing at the built binary), it carries the hardening of
// docs/install.md, and the binary runs its ExecStartPre and ExecStart command lines
// with the unit's environment (the sandbox itself needs systemd as PID 1).
func TestSystemdUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not found (Debian package systemd); the unit is not checked")
	}
	_, file, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "deploy", "reviewd.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			unit[k] = append(unit[k], v)
		}
	}
	for k, want := range map[string]string{
		"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
		"ReadWritePaths": "/var/lib/reviewd", "User": "reviewd", "CapabilityBoundingSet": "",
		"Environment": "REVIEWD_DATA_DIR=/var/lib/reviewd",
	} {
		if len(unit[k]) != 1 || unit[k][0] != want {
			t.Errorf("%s=%v, want %q", k, unit[k], want)
		}
	}

	bin := buildBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "reviewd.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(raw), "/usr/local/bin/reviewd", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	if out, err := exec.Command(analyze, "security", "--offline=true", path).CombinedOutput(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		t.Logf("systemd-analyze security: %s", lines[len(lines)-1])
	}

	// The unit's command lines, with the data folder and config of the unit moved
	// into the test's folder.
	data := filepath.Join(dir, "state")
	conf := filepath.Join(dir, "reviewd.yaml")
	if err := os.WriteFile(conf, []byte("listen: \"127.0.0.1:0\"\njobs:\n  enabled: false\nlog:\n  level: warn\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "REVIEWD_DATA_DIR="+data)
	args := func(line string) []string {
		f := strings.Fields(strings.ReplaceAll(line, "/etc/reviewd/reviewd.yaml", conf))
		return f[1:]
	}
	pre := exec.Command(bin, args(unit["ExecStartPre"][0])...)
	pre.Env = env
	if out, err := pre.CombinedOutput(); err != nil {
		t.Fatalf("ExecStartPre: %v\n%s", err, out)
	}
	srv := startServe(t, bin, env, append(args(unit["ExecStart"][0]), "--listen", freeAddr(t))...)
	srv.stop(t)
	if _, err := os.Stat(filepath.Join(data, "reviewd.db")); err != nil {
		t.Errorf("the unit's REVIEWD_DATA_DIR was not used: %v", err)
	}
}

package cli_test

import "testing"

// TestDemoRefusesNonLoopbackListen: the demo's pretend store mints writing tokens
// without sign-in, so it never listens beyond this machine.
func TestDemoRefusesNonLoopbackListen(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.10:8080", "example.com:80"} {
		t.Run(addr, func(t *testing.T) {
			dir := t.TempDir()
			failRun(t, dir, "loopback", "demo", "--listen", addr)
		})
	}
}

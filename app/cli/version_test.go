package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"reviewd/store"
)

// TestVersion checks that `reviewd version --json` and GET /healthz name the same
// version, commit and schema version.
func TestVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version --json: %v %s", err, out)
	}
	if v["version"] == "" || v["commit"] == "" || v["schema_version"] != float64(store.SchemaVersion) {
		t.Fatalf("version: %v", v)
	}
	env := append(os.Environ(), "REVIEWD_JOBS_ENABLED=false", "REVIEWD_LOG_LEVEL=warn")
	srv := startServe(t, bin, env, "serve", "--listen", freeAddr(t), "--data", filepath.Join(t.TempDir(), "data"))
	h := get(t, "http://"+srv.addr+"/healthz", "")
	for _, k := range []string{"version", "commit", "schema_version"} {
		if h.json[k] != v[k] {
			t.Errorf("healthz %s = %v, version says %v", k, h.json[k], v[k])
		}
	}
	srv.stop(t)
}

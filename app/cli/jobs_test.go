package cli_test

import (
	"strings"
	"testing"
)

func TestJobs(t *testing.T) {
	dir := t.TempDir()
	var list []map[string]any
	mustJSON(t, dir, &list, "jobs", "list")
	var names []string
	for _, j := range list {
		names = append(names, j["name"].(string))
		if j["schedule"] == "" || j["outcome"] != "" || j["last_started_at"] != nil {
			t.Fatalf("job before any run = %v", j)
		}
	}
	if got := strings.Join(names, ","); got != "ai,cleanup,erasure,invitations,marketplace,media,order-sources,transparency" {
		t.Fatalf("jobs = %s", got)
	}

	var run map[string]any
	mustJSON(t, dir, &run, "jobs", "run", "cleanup", "--now", "2027-01-01T00:00:00Z")
	if run["name"] != "cleanup" || run["outcome"] != "ok" || run["trigger"] != "console" || run["now"] != "2027-01-01T00:00:00Z" {
		t.Fatalf("run = %v", run)
	}
	mustJSON(t, dir, &list, "jobs", "list")
	for _, j := range list {
		if j["name"] == "cleanup" && (j["outcome"] != "ok" || j["last_trigger"] != "console" || j["last_finished_at"] == nil ||
			!strings.HasPrefix(j["detail"].(string), "sessions=")) {
			t.Fatalf("cleanup after run = %v", j)
		}
	}
	if table := mustRun(t, dir, "jobs", "list"); !strings.Contains(table, "cleanup") || !strings.Contains(table, " ok ") {
		t.Fatalf("table:\n%s", table)
	}
	if out := mustRun(t, dir, "jobs", "run", "media"); !strings.Contains(out, "media: ok") {
		t.Fatalf("jobs run media: %s", out)
	}

	failRun(t, dir, `unknown job "nightly"`, "jobs", "run", "nightly")
	failRun(t, dir, "--now", "jobs", "run", "cleanup", "--now", "yesterday")
}

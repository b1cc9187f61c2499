package assets_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reviewd/assets"
)

// TestStripCommentLines: whole-line comments go; a line inside a template literal
// stays even when it starts with //, and quotes, escapes and trailing comments do
// not confuse where a template literal ends.
func TestStripCommentLines(t *testing.T) {
	src := "// head\nconst a = 1; // tail\n  // indented\nconst u = \"//x`\", v = '\\'`';\nconst h = `<p>\n// kept: text of the template\n${a}</p>`;\n\t// gone\nconst r = `a` + `b`; // c\n// gone too\nend();\n"
	want := "const a = 1; // tail\nconst u = \"//x`\", v = '\\'`';\nconst h = `<p>\n// kept: text of the template\n${a}</p>`;\nconst r = `a` + `b`; // c\nend();\n"
	if got := string(assets.StripCommentLines([]byte(src))); got != want {
		t.Fatalf("stripped:\n%s\nwant:\n%s", got, want)
	}
}

// TestServedPageScriptParses: the served page script is the source without its
// comment lines, and node (when installed, as scripts/test.sh installs it) parses it.
func TestServedPageScriptParses(t *testing.T) {
	src, err := assets.Widget.ReadFile("widget/reviews.js")
	if err != nil {
		t.Fatal(err)
	}
	served := assets.PageScript()
	var code []string
	for _, l := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			code = append(code, l)
		}
	}
	if strings.Join(code, "\n") != string(served) {
		t.Fatal("the served script is not the source without its comment lines")
	}
	if len(served) >= len(src) {
		t.Fatalf("served %d bytes of %d", len(served), len(src))
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	f := filepath.Join(t.TempDir(), "reviews.js")
	if err := os.WriteFile(f, served, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", f).CombinedOutput(); err != nil {
		t.Fatalf("node --check: %v\n%s", err, out)
	}
}

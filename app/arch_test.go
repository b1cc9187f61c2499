package app_test

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// layers is the layer table of the domain packages (docs/architecture.md): a
// package imports only packages of lower layers.
var layers = map[string]int{
	"reviewd/app/core":           0,
	"reviewd/app/core/access":    1,
	"reviewd/app/core/checks":    1,
	"reviewd/app/core/audit":     1,
	"reviewd/app/core/brand":     2,
	"reviewd/app/core/channels":  2,
	"reviewd/app/core/buyer":     3,
	"reviewd/app/core/readmodel": 3,
	"reviewd/app/core/sending":   4,
	"reviewd/app/core/reviews":   5,
	"reviewd/app/core/qa":        5,
	"reviewd/app/core/orders":    6,
	"reviewd/app/core/privacy":   7,
	// Catalogue and marketplace import (new services, no kernel embedding).
	"reviewd/app/core/catalogue":   3,
	"reviewd/app/core/marketplace": 7,
	// The go-live checklist and owner alerts read most services.
	"reviewd/app/core/golive": 8,
	// The whole-brand archive (reads every table through store; media store).
	"reviewd/app/core/brandexport": 1,
	// Product-review feeds and the brand's figures.
	"reviewd/app/core/feeds":    1,
	"reviewd/app/core/insights": 3,
	// The transparency log (reviews appends to it in the decision's transaction).
	"reviewd/app/core/transparency": 1,

	"reviewd/app/core/ai": 2,
	// The review trace: one timeline read over the reviews service.
	"reviewd/app/core/reviewtrace": 6,
	// The hint after a refused order check (re-sends a correction link).
	"reviewd/app/core/orderhint": 6,
	// Held panel decisions (the undo window), applied through the reviews service.
	"reviewd/app/core/held": 6,
	// The channel-wide answers (store page, carousel) over the read model.
	"reviewd/app/core/storereviews": 4,
	// Helpful votes, on the reviews a channel shows (the reviews service finds them).
	"reviewd/app/core/votes": 6,
}

// reviewStateWriters are the store methods that change a review's state, content
// or media; only the reviews package calls them (it refreshes the read model).
var reviewStateWriters = regexp.MustCompile(`\.(SetReviewState|UpdateReviewContent|RemoveMedia)\(`)

// imports lists every package under app/ with its direct imports (go list -deps).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports ","}}`, "reviewd/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, imps, _ := strings.Cut(sc.Text(), " ")
		if !strings.HasPrefix(path, "reviewd/") {
			continue
		}
		m[path] = nil
		if imps != "" {
			m[path] = strings.Split(imps, ",")
		}
	}
	return m
}

// httpFiles lists the non-test files of package path (under the module root) that
// import net/http.
func httpFiles(t *testing.T, path string) []string {
	t.Helper()
	dir := filepath.Join("..", strings.TrimPrefix(path, "reviewd/"))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"net/http"` {
				out = append(out, filepath.ToSlash(filepath.Join(strings.TrimPrefix(path, "reviewd/"), name)))
			}
		}
	}
	return out
}

// TestDomainLayers fails on an upward or sideways import between domain packages,
// on a domain package the table does not list, and on net/http in a domain file.
func TestDomainLayers(t *testing.T) {
	all := imports(t)
	for path, imps := range all {
		if !strings.HasPrefix(path, "reviewd/app/core") {
			continue
		}
		layer, ok := layers[path]
		if !ok {
			t.Errorf("%s is not in the layer table (app/arch_test.go, docs/architecture.md)", path)
			continue
		}
		for _, imp := range imps {
			if imp == "net/http" {
				for _, f := range httpFiles(t, path) {
					t.Errorf("%s imports net/http; domain packages do not", f)
				}
			}
			if !strings.HasPrefix(imp, "reviewd/") {
				continue
			}
			switch {
			case strings.HasPrefix(imp, "reviewd/app/core"):
				if l, ok := layers[imp]; ok && l >= layer {
					t.Errorf("%s (layer %d) imports %s (layer %d): only lower layers", path, layer, imp, l)
				}
			case strings.HasPrefix(imp, "reviewd/app/admin"), strings.HasPrefix(imp, "reviewd/app/storefront"),
				strings.HasPrefix(imp, "reviewd/app/ingest"), strings.HasPrefix(imp, "reviewd/app/mailhook"),
				strings.HasPrefix(imp, "reviewd/app/web"), strings.HasPrefix(imp, "reviewd/app/cli"),
				imp == "reviewd/app", strings.HasPrefix(imp, "reviewd/jobs"):
				t.Errorf("%s imports the surface or job package %s", path, imp)
			}
		}
	}
	for path := range layers {
		if _, ok := all[path]; !ok {
			t.Errorf("%s is in the layer table but not in the module", path)
		}
	}
}

// surfaces are the HTTP surface packages (docs/architecture.md, "Beside the domain").
var surfaces = []string{"reviewd/app/admin", "reviewd/app/storefront", "reviewd/app/ingest", "reviewd/app/mailhook", "reviewd/app/panel"}

// TestSurfacesApart fails when a surface imports another surface, the wiring
// (reviewd/app, app/cli) or the jobs: a surface is handed the services it uses.
func TestSurfacesApart(t *testing.T) {
	all := imports(t)
	for _, path := range surfaces {
		imps, ok := all[path]
		if !ok {
			t.Errorf("%s is not in the module", path)
			continue
		}
		for _, imp := range imps {
			bad := imp == "reviewd/app" || imp == "reviewd/app/cli" || strings.HasPrefix(imp, "reviewd/jobs")
			for _, other := range surfaces {
				bad = bad || imp == other
			}
			if bad {
				t.Errorf("%s imports %s; surfaces import only app/web and the domain", path, imp)
			}
		}
	}
}

// TestReviewStateWriters fails when code outside app/core/reviews calls a store
// method that changes a review's state, content or media.
func TestReviewStateWriters(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "store":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if filepath.ToSlash(filepath.Dir(p)) == "../app/core/reviews" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if m := reviewStateWriters.Find(b); m != nil {
			t.Errorf("%s calls %s: only app/core/reviews writes review state", p, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Size limits of the code under app/ (non-test Go, in lines).
const (
	maxPackageLines = 4000
	maxFileLines    = 600
	maxKernelLines  = 1500
)

// TestSizeLimits fails on a package under app/ over maxPackageLines lines of
// non-test Go, on a non-test file over maxFileLines, and on a kernel (app/core top
// level) of maxKernelLines or more.
func TestSizeLimits(t *testing.T) {
	perPackage := map[string]int{}
	err := filepath.WalkDir(filepath.Join("..", "app"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n := bytes.Count(b, []byte("\n"))
		if n > maxFileLines {
			t.Errorf("%s has %d lines (at most %d: split it by aggregate)", filepath.ToSlash(p), n, maxFileLines)
		}
		perPackage[filepath.ToSlash(filepath.Dir(p))] += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(perPackage) == 0 {
		t.Fatal("no Go files found under app/")
	}
	for dir, n := range perPackage {
		if n > maxPackageLines {
			t.Errorf("%s has %d lines of non-test Go (at most %d: split the package)", dir, n, maxPackageLines)
		}
	}
	t.Run("kernel", func(t *testing.T) {
		n := perPackage["../app/core"]
		if n >= maxKernelLines {
			t.Errorf("app/core (the kernel) has %d lines of non-test Go; it stays under %d", n, maxKernelLines)
		}
	})
}

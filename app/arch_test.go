package app_test

import (
	"bufio"
	"bytes"
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
	"reviewd/app/core/checks":    1,
	"reviewd/app/core/brand":     2,
	"reviewd/app/core/buyer":     3,
	"reviewd/app/core/readmodel": 3,
	"reviewd/app/core/sending":   4,
	"reviewd/app/core/reviews":   5,
	"reviewd/app/core/qa":        5,
	"reviewd/app/core/orders":    6,
	// Catalogue and marketplace import (new services, no kernel embedding).
	"reviewd/app/core/catalogue":   3,
	"reviewd/app/core/marketplace": 7,
}

// httpAllowed lists the domain packages that still import net/http (status codes
// of the kernel's errors, notice requests, platform reads). No other domain
// package may start.
var httpAllowed = map[string]bool{
	"reviewd/app/core":           true,
	"reviewd/app/core/buyer":     true,
	"reviewd/app/core/readmodel": true,
	"reviewd/app/core/sending":   true,
	"reviewd/app/core/reviews":   true,
	"reviewd/app/core/qa":        true,
	"reviewd/app/core/orders":    true,
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

// TestDomainLayers fails on an upward or sideways import between domain packages,
// on a domain package the table does not list, and on net/http in a domain package
// not allowed it.
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
			if imp == "net/http" && !httpAllowed[path] {
				t.Errorf("%s imports net/http; domain packages do not", path)
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

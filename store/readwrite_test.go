package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// writeSQL matches a statement that changes the database: a row write or DDL.
// SQLite's replace() function is not REPLACE INTO.
var writeSQL = regexp.MustCompile(`(?i)\b(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+(OR\s+\w+\s+)?[\w."]+\s+SET|DELETE\s+FROM|REPLACE\s+INTO|UPSERT|DO\s+UPDATE|(CREATE|DROP|ALTER)\s+(TEMP\s+|TEMPORARY\s+|UNIQUE\s+|VIRTUAL\s+)?(TABLE|INDEX|TRIGGER|VIEW)|VACUUM|REINDEX)\b`)

// storeFuncs parses the package's non-test files and returns each function and
// method declaration with the package's string constants.
func storeFuncs(t *testing.T) ([]*ast.FuncDecl, map[string]string) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var funcs []*ast.FuncDecl
	consts := map[string]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				funcs = append(funcs, d)
			case *ast.GenDecl:
				if d.Tok != token.CONST && d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							consts[n.Name] = literalText(vs.Values[i], nil)
						}
					}
				}
			}
		}
	}
	return funcs, consts
}

// literalText joins the string literals of n (and the package constants it names)
// with spaces.
func literalText(n ast.Node, consts map[string]string) string {
	var b strings.Builder
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil {
					b.WriteString(s)
					b.WriteByte(' ')
				}
			}
		case *ast.Ident:
			if s, ok := consts[n.Name]; ok {
				b.WriteString(s)
				b.WriteByte(' ')
			}
		}
		return true
	})
	return b.String()
}

// receiverType is the type name of a method's receiver ("Q" for *Q), "" for a
// function.
func receiverType(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	e := d.Recv.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestWritesOnTxOnly fails when a method of *Q runs a write: SQL that inserts,
// updates, deletes or changes the schema, an ExecContext, or a call of a package
// function that does. Writes are methods of *Tx, so the compiler refuses them on
// the read pool (DB.Read), whose connections are query_only.
func TestWritesOnTxOnly(t *testing.T) {
	funcs, consts := storeFuncs(t)
	// Package functions that write, directly or through another such function.
	writers := map[string]bool{}
	direct := func(d *ast.FuncDecl) bool {
		if d.Body == nil {
			return false
		}
		if writeSQL.MatchString(literalText(d.Body, consts)) {
			return true
		}
		exec := false
		ast.Inspect(d.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				switch fn := c.Fun.(type) {
				case *ast.SelectorExpr:
					if fn.Sel.Name == "ExecContext" || fn.Sel.Name == "Exec" {
						exec = true
					}
				case *ast.Ident:
					if writers[fn.Name] {
						exec = true
					}
				}
			}
			return !exec
		})
		return exec
	}
	for changed := true; changed; {
		changed = false
		for _, d := range funcs {
			if receiverType(d) == "" && !writers[d.Name.Name] && direct(d) {
				writers[d.Name.Name] = true
				changed = true
			}
		}
	}
	var bad []string
	methods := 0
	for _, d := range funcs {
		if receiverType(d) != "Q" {
			continue
		}
		methods++
		if direct(d) {
			bad = append(bad, d.Name.Name)
		}
	}
	if methods == 0 {
		t.Fatal("no methods of *Q found")
	}
	sort.Strings(bad)
	for _, name := range bad {
		t.Errorf("(*Q).%s writes: make it a method of *Tx (reads stay on *Q)", name)
	}
}

package deepcopy_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/generators/deepcopy"
	"github.com/ctrlgen/ctrlgen/internal/output"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// TestMatchesDeepcopyGen regenerates the deep copies that k8s.io/api and
// k8s.io/apimachinery commit (written by code-generator's deepcopy-gen)
// and compares them function by function. Import aliases may differ, so
// qualifiers are compared by import path.
func TestMatchesDeepcopyGen(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates all of k8s.io/api")
	}
	// deepcopy-gen ran over k8s.io/api and k8s.io/apimachinery together,
	// with their old deep copies deleted, so a workspace of both, writable,
	// is what reproduces its output.
	t.Setenv("GOFLAGS", "")
	tmp := t.TempDir()
	modules := map[string]string{"api": "k8s.io/api", "apimachinery": "k8s.io/apimachinery"}
	work := "go 1.26.0\n\nuse (\n"
	for dir, module := range modules {
		copyModule(t, moduleDir(t, module), filepath.Join(tmp, dir))
		work += "\t./" + dir + "\n"
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.work"), []byte(work+")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, err := ctrlgen.Plan(ctrlgen.Config{
		Dir:        tmp,
		Patterns:   []string{"k8s.io/api/...", "k8s.io/apimachinery/..."},
		OutputDir:  filepath.Join(tmp, "api", "out"),
		Generators: []string{"deepcopy"},
		Stderr:     io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	produced := map[string]output.File{}
	for _, f := range changes.Files {
		rel, _ := filepath.Rel(tmp, f.Path)
		produced[rel] = f
	}
	compared := 0
	for dir, module := range modules {
		src := moduleDir(t, module)
		err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() != deepcopy.FileName {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			rel = filepath.Join(dir, rel)
			want, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			got, ok := produced[rel]
			if !ok {
				t.Errorf("%s: not generated", rel)
				return nil
			}
			delete(produced, rel)
			compared++
			compareFuncs(t, rel, want, got.Content)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for rel := range produced {
		t.Errorf("%s: generated, but deepcopy-gen wrote none", rel)
	}
	t.Logf("compared %d files with deepcopy-gen's", compared)
	if compared < 60 {
		t.Errorf("compared only %d files", compared)
	}
}

func moduleDir(t *testing.T, module string) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	return strings.TrimSpace(string(out))
}

// copyModule copies a module's Go sources, without the deep copies and
// tests, so that the copy, a module of the same path, is writable.
func copyModule(t *testing.T, src, dst string) {
	testmod.Copy(t, src, dst, func(rel string) bool {
		name := filepath.Base(rel)
		return name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".go") &&
			!strings.HasSuffix(name, "_test.go") && name != deepcopy.FileName && name != "generated.pb.go"
	})
}

// compareFuncs compares the function declarations of two files, in order,
// with every package qualifier replaced by its import path.
func compareFuncs(t *testing.T, name string, want, got []byte) {
	t.Helper()
	w, g := funcs(t, want), funcs(t, got)
	for i := 0; i < len(w) || i < len(g); i++ {
		switch {
		case i >= len(w):
			t.Errorf("%s: extra function:\n%s", name, g[i])
		case i >= len(g):
			t.Errorf("%s: missing function:\n%s", name, w[i])
		case w[i] != g[i]:
			var diff bytes.Buffer
			output.Diff(&diff, name, []byte(w[i]), []byte(g[i]))
			t.Errorf("%s: function %d differs:\n%s", name, i, diff.String())
		}
		if t.Failed() && i > 3 {
			return
		}
	}
}

func funcs(t *testing.T, src []byte) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		alias := filepath.Base(p)
		if imp.Name != nil {
			alias = imp.Name.Name
		}
		paths[alias] = p
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && paths[x.Name] != "" {
					x.Name = strconv.Quote(paths[x.Name])
				}
			}
			return true
		})
		var b bytes.Buffer
		printer.Fprint(&b, fset, fd)
		out = append(out, fd.Doc.Text()+b.String())
	}
	return out
}

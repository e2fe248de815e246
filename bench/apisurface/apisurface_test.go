package apisurface_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/bench/apisurface"
)

// writeTree writes a module of the given files (path → source) to a new
// directory.
func writeTree(t *testing.T, module string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module " + module + "\n\ngo 1.26\n"
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCompare checks what counts as a difference on two small trees of
// different module paths: parameter names, spelling of identical types
// (any, byte, aliases), where a method comes from (embedding), and
// unexported types' methods do not; kinds, types, tags, receivers,
// const values and missing or extra identifiers and packages do.
func TestCompare(t *testing.T) {
	codegen := writeTree(t, "example.com/a", map[string]string{
		"p/p.go": `package p

import "context"

type Obj struct {
	Name   string ` + "`json:\"name\"`" + `
	Labels map[string]string
	hidden int
}

func (o *Obj) DeepCopy() *Obj { return o }
func (o Obj) Key() string     { return o.Name }

type Getter interface {
	Get(ctx context.Context, name string) (*Obj, error)
	List(ctx context.Context) ([]*Obj, error)
}

type Lister interface{ Items() []*Obj }

type impl struct{}

func (impl) Get(context.Context, string) (*Obj, error) { return nil, nil }
func (impl) List(context.Context) ([]*Obj, error)      { return nil, nil }
func (impl) Hidden()                                    {}

func New(x any, opts ...func(*Obj)) Getter { return impl{} }

const Group = "a.example.com"

var Raw []byte

type Phase string

type Gone struct{ A int }

type Tweak func(o *Obj)
`,
		"q/q.go": `package q

import "example.com/a/p"

func Use(g p.Getter) *p.Obj { return nil }
`,
		"old/old.go": "package old\n\nfunc F() {}\n",
	})
	ctrlgen := writeTree(t, "example.com/b/gen", map[string]string{
		"p/p.go": `package p

import (
	"context"

	"example.com/b/gen/x"
)

type Obj struct {
	Name   string ` + "`json:\"name,omitempty\"`" + `
	Labels map[string]string
	other  bool
}

func (in *Obj) DeepCopy() *Obj { return in }
func (in *Obj) Key() string    { return in.Name }

type getter interface {
	Get(context.Context, string) (*Obj, error)
}

type Getter interface {
	getter
	List(c context.Context) ([]*Obj, error)
}

type Lister = x.Lister[*Obj]

type impl struct{}

func (impl) Get(context.Context, string) (*Obj, error) { return nil, nil }
func (impl) List(context.Context) ([]*Obj, error)      { return nil, nil }
func (impl) Extra()                                     {}

func New(y interface{}, o ...func(*Obj)) Getter { return impl{} }

const Group = "b.example.com"

var Raw []uint8

type Phase = string

func Added() {}

type Tweak func(*Obj)
`,
		"x/x.go": "package x\n\ntype Lister[T any] interface{ Items() []T }\n",
		"q/q.go": `package q

import "example.com/b/gen/p"

func Use(p.Getter) *p.Obj { return nil }
`,
	})
	cg, err := apisurface.Load(codegen, "./...")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := apisurface.Load(ctrlgen, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if cl.Prefix != "example.com/b/gen" {
		t.Errorf("prefix %q", cl.Prefix)
	}
	var got []string
	for _, d := range apisurface.Compare(cg, cl) {
		got = append(got, d.Package+" "+d.Key+" "+d.Kind.String()+": "+d.Codegen+" | "+d.Ctrlgen)
	}
	want := []string{
		"old package missing in ctrlgen: package old (1 exported identifiers) | ",
		"p Added extra in ctrlgen:  | func Added()",
		"p Gone missing in ctrlgen: type Gone struct (and its 1 exported fields and methods) | ",
		"p Group changed: const Group untyped string = \"a.example.com\" | const Group untyped string = \"b.example.com\"",
		"p Lister changed: type Lister interface | type Lister = $TREE/x.Lister[*Obj]",
		"p Obj.Key changed: method Obj.Key() string | method (*Obj).Key() string",
		"p Obj.Name changed: field Obj.Name string `json:\"name\"` | field Obj.Name string `json:\"name,omitempty\"`",
		"p Phase changed: type Phase string | type Phase = string",
		"x package extra in ctrlgen:  | package x (1 exported identifiers)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestReport checks the grouping and the caps.
func TestReport(t *testing.T) {
	diffs := []apisurface.Diff{
		{Package: "a", Key: "F", Kind: apisurface.Missing, Codegen: "func F()"},
		{Package: "a", Key: "G", Kind: apisurface.Extra, Ctrlgen: "func G()"},
		{Package: "a", Key: "H", Kind: apisurface.Changed, Codegen: "func H()", Ctrlgen: "func H(int)"},
		{Package: "b", Key: "package", Kind: apisurface.Missing, Codegen: "package b (3 exported identifiers)"},
		{Package: "c", Key: "errors", Kind: apisurface.Broken, Ctrlgen: "c.go:1:1: oops"},
	}
	for _, c := range []struct {
		perPackage, maxLines int
		want                 string
	}{
		{0, 0, `a: 1 missing in ctrlgen, 1 extra in ctrlgen, 1 changed
    - func F()
    + func G()
    ~ code-generator: func H()
               ctrlgen: func H(int)
b: 1 missing in ctrlgen
    - package b (3 exported identifiers)
c: 1 broken
    ! does not compile:
        code-generator: ok
               ctrlgen: c.go:1:1: oops
`},
		{1, 0, `a: 1 missing in ctrlgen, 1 extra in ctrlgen, 1 changed
    - func F()
    … and 2 more in this package
b: 1 missing in ctrlgen
    - package b (3 exported identifiers)
c: 1 broken
    ! does not compile:
        code-generator: ok
               ctrlgen: c.go:1:1: oops
`},
		{0, 3, `a: 1 missing in ctrlgen, 1 extra in ctrlgen, 1 changed
    - func F()
    + func G()
    … and 1 more in this package
… and 2 more differences in 2 more packages
`},
	} {
		if got := apisurface.Report(diffs, c.perPackage, c.maxLines); got != c.want {
			t.Errorf("Report(%d, %d):\n%s\nwant\n%s", c.perPackage, c.maxLines, got, c.want)
		}
	}
}

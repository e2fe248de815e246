package typegraph

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/loader"
)

func program(t *testing.T, files map[string]string) *loader.Program {
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26.0\n"
	for name, src := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := loader.Load(loader.Config{Dir: dir, Patterns: []string{"./p"}})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func TestResolve(t *testing.T) {
	prog := program(t, map[string]string{
		"p/p.go": `package p

import (
	m "example.com/m/q"
	"example.com/m/vq/v2"
	. "example.com/m/dot"
)

type Str string
type Labels map[string]string
type Ptr *S
type Arr [4]byte
type S struct {
	A     int
	B     m.Q
	C     Labels
	D     []*S
	E     error
	F     vq.T
	G     DotT
	m.Q
}
type Copy S
type GoAlias = Labels
type Gen[T any] struct{ x T }
type I interface{ M() }

func (s *S) DeepCopyInto(out *S) {}
func (s S) DeepCopy() S          { return s }
func (s *S) NotACopy()           {}
`,
		"q/q.go":     "package q\n\ntype Q struct{ X string }\n",
		"vq/v2/t.go": "package vq\n\ntype T map[string][]byte\n",
		"dot/d.go":   "package dot\n\ntype DotT int64\n",
	})
	g := New(prog, prog.Fset)
	named := func(name string) *Type {
		typ, err := g.Named("example.com/m/p", name)
		if err != nil {
			t.Fatal(err)
		}
		return typ
	}
	for name, want := range map[string]Kind{
		"Str": Alias, "Labels": Alias, "Ptr": Pointer, "Arr": Array, "S": Struct,
		"Copy": Struct, "GoAlias": Alias, "Gen": Unsupported, "I": Interface,
	} {
		if got := named(name).Kind; got != want {
			t.Errorf("%s: kind %s, want %s", name, got, want)
		}
	}
	if named("GoAlias") != named("Labels") {
		t.Error("an alias resolves to a type of its own")
	}
	members, err := named("S").Members()
	if err != nil {
		t.Fatal(err)
	}
	qualify := func(pkg string) string {
		if pkg == "example.com/m/p" {
			return ""
		}
		return filepath.Base(pkg)
	}
	got := map[string]string{}
	for _, m := range members {
		got[m.Name] = m.Type.Print(qualify)
	}
	want := map[string]string{"A": "int", "B": "q.Q", "C": "Labels", "D": "[]*S", "E": "error", "F": "v2.T", "G": "dot.DotT", "Q": "q.Q"}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("member %s prints %q, want %q", n, got[n], w)
		}
	}
	if !members[7].Embedded || members[0].Embedded {
		t.Error("embedded members wrong")
	}
	s := named("S")
	if dci := s.Method("DeepCopyInto"); dci == nil || !dci.PtrRecv || dci.Params[0] != (Ref{Name: s.Name, Ptr: true}) {
		t.Errorf("DeepCopyInto = %+v", dci)
	}
	if dc := s.Method("DeepCopy"); dc == nil || dc.PtrRecv || dc.Results[0] != (Ref{Name: s.Name}) {
		t.Errorf("DeepCopy = %+v", dc)
	}
	if s.Method("NotACopy") != nil || named("Copy").Method("DeepCopy") != nil {
		t.Error("methods that do not matter, or of another type, were read")
	}
	if ok, _ := named("Copy").IsAssignable(); ok {
		t.Error("a struct with slices is assignable")
	}
	if ok, _ := named("Str").IsAssignable(); !ok {
		t.Error("a named string is not assignable")
	}
	if _, err := g.Named("example.com/m/p", "Missing"); err == nil {
		t.Error("a missing type resolved")
	}
}

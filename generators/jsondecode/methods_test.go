package jsondecode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

func graphOf(t *testing.T, src string) *typegraph.Graph {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26.0\n",
		"p/p.go": src,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := loader.Load(loader.Config{Dir: dir, Patterns: []string{"./p"}})
	if err != nil {
		t.Fatal(err)
	}
	return typegraph.New(prog, prog.Fset)
}

// TestUnmarshalerOf checks the method sets the generator reads from the
// syntax against Go's rules, which decide what encoding/json calls.
func TestUnmarshalerOf(t *testing.T) {
	g := graphOf(t, `package p

import "encoding/json"

type J struct{}
func (*J) UnmarshalJSON([]byte) error { return nil }
type V struct{}
func (V) UnmarshalJSON(b []byte) error { return nil }
type X struct{}
func (*X) UnmarshalText(data []byte) error { return nil }
type Both struct{ X }
func (*Both) UnmarshalJSON([]byte) error { return nil }
type Raw struct{}
func (*Raw) UnmarshalJSON(json.RawMessage) error { return nil }
type I interface{ UnmarshalJSON([]byte) error }

type Plain struct{ A int }
type Own J
type EmbedsJ struct{ J }
type EmbedsPtr struct{ *J }
type Deep struct{ EmbedsJ }
type Twice struct{ J; V }
type TwiceDeep struct{ EmbedsJ; Other }
type Other struct{ J }
type Shallower struct{ Twice; J }
type EmbedsI struct{ I }
type Text struct{ X }
type TextAndJSON struct{ X; J }
type Named string
func (*Named) UnmarshalJSON([]byte) error { return nil }
type FieldHides struct{ EmbedsJ; UnmarshalJSON int }
`)
	for name, want := range map[string]unmarshaler{
		"J": jsonMethod, "V": jsonMethod, "X": textMethod, "Both": jsonMethod, "Raw": unknownMethod,
		"Plain": plainType, "Own": plainType, "EmbedsJ": jsonMethod, "EmbedsPtr": jsonMethod, "Deep": jsonMethod,
		"Twice": plainType, "TwiceDeep": plainType, "Shallower": jsonMethod, "EmbedsI": unknownMethod,
		"Text": textMethod, "TextAndJSON": jsonMethod, "Named": jsonMethod, "FieldHides": unknownMethod,
	} {
		typ, err := g.Named("example.com/m/p", name)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := unmarshalerOf(typ); err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
}

// TestFields checks encoding/json's field rules on embedded structs.
func TestFields(t *testing.T) {
	g := graphOf(t, `package p

type S struct {
	A    string `+"`json:\"a\"`"+`
	B    string `+"`json:\"-\"`"+`
	C    string `+"`json:\"-,\"`"+`
	D    string
	e    string
	F    int    `+"`json:\"f,string\"`"+`
	G    []int  `+"`json:\"g,string\"`"+`
	H    string `+"`json:\"a\\\\b\"`"+`
	E1
	*E2
	E3   `+"`json:\"named\"`"+`
	C1
	C2
	inner
}
type E1 struct{ X string; Shared string `+"`json:\"shared\"`"+` }
type E2 struct{ Y string }
type E3 struct{ Z string }
type C1 struct{ Same string; T string `+"`json:\"Tagged\"`"+` }
type C2 struct{ Same string; Tagged string }
type inner struct{ In string; Shared string }
`)
	typ, err := g.Named("example.com/m/p", "S")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := fields(typ)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		path := ""
		for _, m := range f.members {
			path += "." + m.Name
		}
		q := ""
		if f.quoted {
			q = ",string"
		}
		got = append(got, f.name+q+"="+path)
	}
	want := []string{"a=.A", "-=.C", "D=.D", "f,string=.F", "g=.G", "H=.H", "X=.E1.X", "shared=.E1.Shared", "Y=.E2.Y", "named=.E3", "Tagged=.C1.T", "In=.inner.In", "Shared=.inner.Shared"}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("fields %v, want %v", got, want)
			break
		}
	}
}

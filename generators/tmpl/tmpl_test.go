package tmpl

import (
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/builder"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

func TestVersionedAlias(t *testing.T) {
	for path, want := range map[string]string{
		"k8s.io/api/autoscaling/v1":          "autoscalingv1",
		"k8s.io/api/flowcontrol/v1beta3":     "flowcontrolv1beta3",
		"example.com/apis/my-group/v2alpha1": "mygroupv2alpha1",
		"k8s.io/apimachinery/pkg/types":      "",
		"v1":                                 "",
		"example.com/x/v1x":                  "",
		"example.com/x/vbeta":                "",
	} {
		if got := versionedAlias(path); got != want {
			t.Errorf("versionedAlias(%q) = %q, want %q", path, got, want)
		}
	}
}

// demo is a one-kind project: a namespaced kind with no verbs.
func demo() (*model.Project, *model.Kind) {
	p := &model.Project{OutputDir: "/out", OutputPkg: "example.com/gen", ClientsetPkg: "example.com/gen/clientset/versioned",
		ClientsetSchemePkg: "example.com/gen/clientset/versioned/scheme"}
	g := &model.Group{Name: "g.io", GoName: "G", PackageName: "g"}
	v := &model.Version{Group: g, Name: "v1", GoName: "V1", TypesPkg: "example.com/apis/g/v1", TypesAlias: "gv1",
		GroupVersionGoName: "GV1", TypedClientPkg: "example.com/gen/clientset/versioned/typed/g/v1"}
	k := &model.Kind{Version: v, Name: "Thing", ListName: "ThingList", Plural: "things", PluralGoName: "Things",
		LowerName: "thing", Namespaced: true, Client: true, Verbs: map[model.Verb]bool{}}
	v.Kinds = []*model.Kind{k}
	g.Versions = []*model.Version{v}
	p.Groups = []*model.Group{g}
	builder.DeriveClientNames(p)
	return p, k
}

// A file imports only what its code uses: a kind without verbs needs
// neither context nor metav1.
func TestImportsOnlyWhatIsUsed(t *testing.T) {
	p, k := demo()
	s := NewSet(p)
	s.Add(k.Version.TypedClientPkg, "thing.go", "clientset/typed/kind.go.tmpl", Data{P: p, G: k.Version.Group, V: k.Version, K: k})
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	out, err := files[0].Content("")
	if err != nil {
		t.Fatal(err)
	}
	for _, unwanted := range []string{`"context"`, `metav1`, `watch`} {
		if strings.Contains(string(out), unwanted) {
			t.Errorf("kind without verbs imports %s:\n%s", unwanted, out)
		}
	}
	if files[0].Path != "/out/clientset/versioned/typed/g/v1/thing.go" || files[0].PkgName != "v1" {
		t.Errorf("file %s in package %s", files[0].Path, files[0].PkgName)
	}
}

// A kind named Doc has its client in doc.go: the package comment goes on
// that file, not on a second doc.go.
func TestDocMergesIntoAKindsDocGo(t *testing.T) {
	p, k := demo()
	k.Name, k.ListName, k.Plural, k.PluralGoName, k.LowerName = "Doc", "DocList", "docs", "Docs", "doc"
	s := NewSet(p)
	s.Add(k.Version.TypedClientPkg, "doc.go", "clientset/typed/kind.go.tmpl", Data{P: p, G: k.Version.Group, V: k.Version, K: k})
	s.AddDoc(k.Version.TypedClientPkg, "This package has the automatically generated typed clients.")
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("%d files, want the kind's doc.go alone", len(files))
	}
	out, err := files[0].Content("")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// This package has the automatically generated typed clients.\npackage v1", "type DocInterface interface"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doc.go lacks %q:\n%s", want, out)
		}
	}
}

func TestErrors(t *testing.T) {
	p, _ := demo()
	p.Groups[0].APIPath = ""
	if _, err := NewSet(p).Files(); err == nil || !strings.Contains(err.Error(), "DeriveClientNames") {
		t.Errorf("set without client names: %v", err)
	}
	std := funcsFor(gen.NewFile("/out/x.go", "x", "example.com/gen/x"))["std"].(func(string) (string, error))
	if _, err := std("nosuch"); err == nil {
		t.Error("std of an unknown key: no error")
	}
	if alias, err := std("metav1"); err != nil || alias != "metav1" {
		t.Errorf(`std("metav1") = %q, %v`, alias, err)
	}
	if _, err := dict("odd"); err == nil {
		t.Error("dict with an odd number of arguments: no error")
	}
	if _, err := dict(1, 2); err == nil {
		t.Error("dict with a key that is not a string: no error")
	}
}

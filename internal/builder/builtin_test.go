package builder

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"path/filepath"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// shipped builds the models of k8s.io/api packages as the shipped tree
// is generated, from the module in dir.
func shipped(t *testing.T, dir string, patterns ...string) *model.Project {
	t.Helper()
	prog, err := loader.Load(loader.Config{Dir: dir, Patterns: patterns})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := Build(prog, ShippedOptions())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBuiltinPackages: every group version of k8s.io/api maps to its
// package, so that an owns= marker finds it.
func TestBuiltinPackages(t *testing.T) {
	p := shipped(t, ".", "k8s.io/api/...")
	n := 0
	for _, pkg := range p.Packages {
		if pkg.Version == nil {
			continue
		}
		n++
		gvk := schema.GroupVersionKind{Group: pkg.Version.Group.Name, Version: pkg.Version.Name}
		if got, ok := builtinPackage(gvk); !ok || got != pkg.Path {
			t.Errorf("group %q version %s: builtinPackage gives %q, %v; want %s", gvk.Group, gvk.Version, got, ok, pkg.Path)
		}
	}
	if n < 50 {
		t.Errorf("only %d group versions in k8s.io/api", n)
	}
	if got, ok := builtinPackage(schema.GroupVersionKind{Group: "example.com", Version: "v1"}); ok {
		t.Errorf("a custom group maps to %s", got)
	}
}

// TestOwnedBuiltinKind: an owns= kind of k8s.io/api that the run does not
// read comes from the shipped tree, with its names.
func TestOwnedBuiltinKind(t *testing.T) {
	dir := testmod.New(t, "", "example.com/m")
	prog := load(t, dir, map[string]string{
		"apis/v1/doc.go":   controllerDoc,
		"apis/v1/types.go": "package v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\ntype S struct{}\n" + kindSrc("A", "S", "// +ctrlgen:controller:owns=core/v1.ConfigMap\n// +ctrlgen:controller:owns=apps/v1.Deployment\n"),
	}, "./apis/...")
	p, _, err := Build(prog, Options{OutputDir: filepath.Join(dir, "out"), OutputPkg: "example.com/m/out",
		ControllersDir: filepath.Join(dir, "controllers"), ControllersPkg: "example.com/m/controllers"})
	if err != nil {
		t.Fatal(err)
	}
	c := p.ControllerKinds()[0].Controller
	if c.Kube == nil || *c.Kube != (model.Kube{ClientsetPkg: "k8s.io/client-go/kubernetes", InformersPkg: "github.com/ctrlgen/ctrlgen/runtime/kube/informers", Factory: true}) {
		t.Errorf("Kube %+v", c.Kube)
	}
	cm := c.Owns[0]
	if !cm.Builtin || cm.Kind.Version.ListerPkg != "github.com/ctrlgen/ctrlgen/runtime/kube/listers/core/v1" ||
		cm.Kind.Version.Group.GoName != "Core" || cm.Kind.PluralGoName != "ConfigMaps" || cm.ListerField != "configMapLister" {
		t.Errorf("owned ConfigMap: %+v, %+v", cm, cm.Kind)
	}
	if d := c.Owns[1]; !d.Builtin || d.Kind.Version.ListerPkg != "github.com/ctrlgen/ctrlgen/runtime/kube/listers/apps/v1" {
		t.Errorf("owned Deployment: %+v", d)
	}
	if cm.Kind.Version.Package.Path != "k8s.io/api/core/v1" {
		t.Errorf("owned ConfigMap read from %s", cm.Kind.Version.Package.Path)
	}
}

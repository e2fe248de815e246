package builder

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/ctrlgen/ctrlgen/loader"
	"github.com/ctrlgen/ctrlgen/model"
)

func TestGroupNames(t *testing.T) {
	for _, tc := range []struct {
		group, goName string
		explicit      bool
		wantGo, pkg   string
	}{
		{"", "", false, "Core", "core"},
		{"apps", "", false, "Apps", "apps"},
		{"flowcontrol.apiserver.k8s.io", "", false, "Flowcontrol", "flowcontrol"},
		{"my-widgets.example.com", "", false, "MyWidgets", "mywidgets"},
		{"internal.apiserver.k8s.io", "", false, "Internal", "apiserverinternal"},
		{"my-widgets.example.com", "Widgets", true, "Widgets", "widgets"},
	} {
		goName := tc.goName
		if !tc.explicit {
			goName = defaultGroupGoName(tc.group)
		}
		if pkg := packageName(tc.group, goName, tc.explicit); goName != tc.wantGo || pkg != tc.pkg {
			t.Errorf("%q: Go name %q, package %q; want %q, %q", tc.group, goName, pkg, tc.wantGo, tc.pkg)
		}
	}
}

const doc = "// +groupName=ex.example.com\npackage %s\n"

const kinds = `package %s

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// +genclient:noVerbs
type Quiet struct {
	metav1.ObjectMeta
	Status string
}

// +genclient
// +genclient:readonly
// +genclient:skipVerbs=patch
// +kubebuilder:resource:path=mice,scope=Cluster
type Mouse struct {
	metav1.ObjectMeta
	Status string
}

type MouseList struct{ Items []Mouse }

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +resourceName=gadget-boxes
type Box struct {
	metav1.ObjectMeta
	Status string
}

type BoxList struct{ Items []Box }
`

// load writes files (by path relative to dir) and loads pattern there.
func load(t *testing.T, dir string, files map[string]string, pattern string) *loader.Program {
	t.Helper()
	for name, src := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := loader.Load(loader.Config{Dir: dir, Patterns: []string{pattern}})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func build(t *testing.T, files map[string]string) *model.Project {
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26.0\n\nrequire k8s.io/apimachinery v0.37.2\n"
	prog := load(t, dir, files, "./...")
	p, _, err := Build(prog, Options{OutputDir: filepath.Join(dir, "out"), OutputPkg: "example.com/m/out"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuild(t *testing.T) {
	files := map[string]string{}
	for _, v := range []string{"v1alpha1", "v2", "v1", "v1beta1"} {
		files["apis/"+v+"/doc.go"] = fmt.Sprintf(doc, v)
		files["apis/"+v+"/types.go"] = fmt.Sprintf(kinds, v)
	}
	p := build(t, files)
	if len(p.Groups) != 1 {
		t.Fatalf("groups = %+v", p.Groups)
	}
	var versions []string
	for _, v := range p.Groups[0].Versions {
		versions = append(versions, v.Name)
	}
	if want := []string{"v2", "v1", "v1beta1", "v1alpha1"}; !reflect.DeepEqual(versions, want) {
		t.Errorf("versions in order %v, want %v", versions, want)
	}
	v := p.Groups[0].Versions[1]
	if v.TypesAlias != "exv1" || v.GroupVersionGoName != "ExV1" || v.TypedClientPkg != "example.com/m/out/clientset/versioned/typed/ex/v1" {
		t.Errorf("version names %+v", v)
	}
	byName := map[string]*model.Kind{}
	for _, k := range v.Kinds {
		byName[k.Name] = k
	}
	verbs := func(k *model.Kind) []string {
		var out []string
		for verb := range k.Verbs {
			out = append(out, string(verb))
		}
		sort.Strings(out)
		return out
	}
	quiet, mouse, box := byName["Quiet"], byName["Mouse"], byName["Box"]
	// As lister-gen: a noVerbs kind gets a lister (client-go has one for
	// policy/v1 Eviction) but no informer, which would need List and Watch.
	if len(quiet.Verbs) != 0 || !quiet.Lister || quiet.Informer || !quiet.Client {
		t.Errorf("noVerbs kind: %+v", quiet)
	}
	if got := verbs(mouse); !reflect.DeepEqual(got, []string{"get", "list", "watch"}) || !mouse.Lister || !mouse.Informer {
		t.Errorf("readonly kind: verbs %v, lister %v, informer %v", got, mouse.Lister, mouse.Informer)
	}
	// As client-gen: a Status field means UpdateStatus (readonly leaves
	// it out here), kubebuilder markers or not; the status subresource is
	// the controller's business.
	if mouse.Plural != "mice" || mouse.PluralGoName != "Mice" || mouse.Namespaced || !mouse.HasStatus || !mouse.NoStatusSubresource {
		t.Errorf("kubebuilder resource: %+v", mouse)
	}
	if box.Plural != "gadget-boxes" || box.PluralGoName != "GadgetBoxes" || !box.Namespaced || !box.HasStatus {
		t.Errorf("resourceName: %+v", box)
	}
	if len(verbs(box)) != 11 {
		t.Errorf("box verbs %v", verbs(box))
	}
}

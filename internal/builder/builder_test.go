package builder

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

func TestGroupNames(t *testing.T) {
	for _, tc := range []struct{ group, wantGo string }{
		{"", "Core"},
		{"apps", "Apps"},
		{"flowcontrol.apiserver.k8s.io", "Flowcontrol"},
		{"my-widgets.example.com", "MyWidgets"},
		{"internal.apiserver.k8s.io", "Internal"},
		{"networking.x-k8s.io", "Networking"},
	} {
		if got := defaultGroupGoName(tc.group); got != tc.wantGo {
			t.Errorf("%q: Go name %q, want %q", tc.group, got, tc.wantGo)
		}
	}
}

// TestGroupDir follows kube_codegen.sh, client-gen, lister-gen and
// informer-gen: the output directory is the API package's parent
// directory, whatever the group.
func TestGroupDir(t *testing.T) {
	for _, tc := range []struct{ pkg, want string }{
		{"k8s.io/api/apps/v1", "apps"},
		{"k8s.io/api/apiserverinternal/v1alpha1", "apiserverinternal"},
		{"sigs.k8s.io/gateway-api/apis/v1", "apis"},
		{"sigs.k8s.io/gateway-api/apisx/v1alpha1", "apisx"},
		{"example.com/op/api/v1", "api"},
		{"example.com/op/apis/networking.x-k8s.io/v1", "networking.x-k8s.io"},
		{"v1", "core"},
	} {
		if got := groupDir(tc.pkg); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.pkg, got, tc.want)
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
	if v.TypesAlias != "exv1" || v.GroupVersionGoName != "ExV1" || v.TypedClientPkg != "example.com/m/out/clientset/versioned/typed/apis/v1" {
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
	// The Go plural is the kind's, as client-gen's: a resource path or
	// +resourceName changes only the REST path.
	if mouse.Plural != "mice" || mouse.PluralGoName != "Mouses" || mouse.Namespaced || !mouse.HasStatus || !mouse.NoStatusSubresource {
		t.Errorf("kubebuilder resource: %+v", mouse)
	}
	if box.Plural != "gadget-boxes" || box.PluralGoName != "Boxes" || !box.Namespaced || !box.HasStatus {
		t.Errorf("resourceName: %+v", box)
	}
	if len(verbs(box)) != 11 {
		t.Errorf("box verbs %v", verbs(box))
	}
}

// TestGroupDirConflicts: output directories are named after the API
// packages' parent directories, so a group must keep to one, and two
// groups must not have directories of the same name.
func TestGroupDirConflicts(t *testing.T) {
	kind := "package %s\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n// +genclient\ntype Thing struct {\n\tmetav1.ObjectMeta\n}\n\ntype ThingList struct{ Items []Thing }\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"one group in two directories", map[string]string{
			"apis/things/v1/doc.go":       "// +groupName=things.example.com\npackage v1\n",
			"apis/things/v1/types.go":     fmt.Sprintf(kind, "v1"),
			"apis/stuff/v1beta1/doc.go":   "// +groupName=things.example.com\npackage v1beta1\n",
			"apis/stuff/v1beta1/types.go": fmt.Sprintf(kind, "v1beta1"),
		}, `apis/things/v1/doc.go:1: error: group "things.example.com" is in a directory named things here but stuff in example.com/m/apis/stuff/v1beta1`},
		{"two groups in directories of one name", map[string]string{
			"apis/v1/doc.go":         "// +groupName=a.example.com\npackage v1\n",
			"apis/v1/types.go":       fmt.Sprintf(kind, "v1"),
			"other/APIs/v1/doc.go":   "// +groupName=b.example.com\npackage v1\n",
			"other/APIs/v1/types.go": fmt.Sprintf(kind, "v1"),
		}, `groups "a.example.com" (example.com/m/apis/v1) and "b.example.com" (example.com/m/other/APIs/v1) are in directories of the same name, which would share the output directories apis`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files["go.mod"] = "module example.com/m\n\ngo 1.26.0\n\nrequire k8s.io/apimachinery v0.37.2\n"
			prog := load(t, dir, tc.files, "./...")
			_, _, err := Build(prog, Options{OutputDir: filepath.Join(dir, "out"), OutputPkg: "example.com/m/out"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestGroupClient: a version with a +genclient line anywhere gets its
// group client, kinds or not, as kube_codegen.sh and client-gen give it
// one (kueue's apis/kueue/v1alpha1/types.go has a bare +genclient after
// the package clause); a bare one outside any type's comment is no
// mistake, others are warned about as before; a version without any
// gets none.
func TestGroupClient(t *testing.T) {
	const mod = "module example.com/m\n\ngo 1.26.0\n\nrequire k8s.io/apimachinery v0.37.2\n"
	const doc = "// +groupName=ex.example.com\npackage v1alpha1\n"
	for _, tc := range []struct {
		name        string
		files       map[string]string
		groupClient bool
		warning     string
	}{
		{"after the package clause", map[string]string{
			"apis/v1alpha1/types.go": "package v1alpha1\n\n//+genclient\n",
		}, true, ""},
		{"above the package clause", map[string]string{
			"apis/v1alpha1/types.go": "// +genclient\n\npackage v1alpha1\n",
		}, true, ""},
		{"in doc.go", map[string]string{
			"apis/v1alpha1/doc.go": "// +groupName=ex.example.com\n// +genclient\npackage v1alpha1\n",
		}, true, ""},
		{"detached with an argument", map[string]string{
			"apis/v1alpha1/types.go": "package v1alpha1\n\n// +genclient:nonNamespaced\n",
		}, true, "apis/v1alpha1/types.go:3: warning: +genclient:nonNamespaced not attached to any type or package; ignored"},
		{"too far above a type", map[string]string{
			"apis/v1alpha1/types.go": "package v1alpha1\n\n// +genclient\n\n\n// Thing has no client.\ntype Thing struct{}\n",
		}, true, "apis/v1alpha1/types.go:3: warning: +genclient ignored: 3 line(s) above type Thing is too far"},
		{"none", map[string]string{
			"apis/v1alpha1/types.go": "package v1alpha1\n\n// Thing has no client.\ntype Thing struct{}\n",
		}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files["go.mod"] = mod
			if _, ok := tc.files["apis/v1alpha1/doc.go"]; !ok {
				tc.files["apis/v1alpha1/doc.go"] = doc
			}
			prog := load(t, dir, tc.files, "./...")
			p, warnings, err := Build(prog, Options{OutputDir: filepath.Join(dir, "out"), OutputPkg: "example.com/m/out"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warnings {
				got = append(got, strings.TrimPrefix(w.Error(), dir+"/"))
			}
			if tc.warning == "" && len(got) > 0 || tc.warning != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.warning)) {
				t.Errorf("warnings %q, want %q", got, tc.warning)
			}
			versions := p.ClientVersions()
			if has := len(versions) == 1 && versions[0].GroupClient && len(versions[0].Kinds) == 0; has != tc.groupClient {
				t.Errorf("client versions %+v, want a group client: %v", versions, tc.groupClient)
			}
		})
	}
	t.Run("no group", func(t *testing.T) {
		dir := t.TempDir()
		prog := load(t, dir, map[string]string{"go.mod": mod, "apis/v1alpha1/types.go": "package v1alpha1\n\n//+genclient\n"}, "./...")
		_, _, err := Build(prog, Options{OutputDir: filepath.Join(dir, "out"), OutputPkg: "example.com/m/out"})
		want := "apis/v1alpha1/types.go:3: error: +genclient gives package example.com/m/apis/v1alpha1 a group client, but it has no +groupName"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v\nwant it to contain %q", err, want)
		}
	})
}

// TestUserExpansions: a <kind>_expansion.go the user wrote in the typed
// client's or the lister's directory is found, as client-gen and
// lister-gen find it, so that the generated expansion file leaves that
// kind's interface out.
func TestUserExpansions(t *testing.T) {
	files := map[string]string{
		"apis/v1/doc.go":   fmt.Sprintf(doc, "v1"),
		"apis/v1/types.go": fmt.Sprintf(kinds, "v1"),
		"out/clientset/versioned/typed/apis/v1/box_expansion.go": "package v1\n\ntype BoxExpansion interface{}\n",
		"out/listers/apis/v1/mouse_expansion.go":                 "package v1\n\ntype MouseListerExpansion interface{}\n",
	}
	p := build(t, files)
	got := map[string][2]bool{}
	for _, k := range p.Groups[0].Versions[0].Kinds {
		got[k.Name] = [2]bool{k.HasClientExpansion, k.HasListerExpansion}
	}
	want := map[string][2]bool{"Box": {true, false}, "Mouse": {false, true}, "Quiet": {false, false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("client and lister expansions %v, want %v", got, want)
	}
}

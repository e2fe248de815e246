// Package e2e runs ctrlgen on a small API (testdata/in/apis) in a temporary
// module, vets the result, and runs testdata/in/flow there with -race: the
// fake clientset driving the generated informers and listers, field
// selectors on the fake, and the real typed client against an HTTP server.
package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

const module = "example.com/demo"

// plan copies testdata/in into a new module and plans a ctrlgen run there.
func plan(t *testing.T) (string, *ctrlgen.Changes) {
	t.Helper()
	dir := newModule(t, "testdata/in")
	changes, err := ctrlgen.Plan(ctrlgen.Config{
		Dir:       dir,
		Patterns:  []string{"./apis/..."},
		OutputDir: "generated",
		Stderr:    io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, changes
}

// TestGeneratedFiles pins what the clientset, lister and informer
// generators emit, and that two runs agree byte for byte.
func TestGeneratedFiles(t *testing.T) {
	dir, first := plan(t)
	var got []string
	for _, f := range first.Files {
		if rel, ok := strings.CutPrefix(f.Path, filepath.Join(dir, "generated")+string(filepath.Separator)); ok {
			got = append(got, filepath.ToSlash(rel))
		}
	}
	slices.Sort(got)
	want := []string{
		"applyconfiguration/crddemo/v1/marker.go", // noVerbs still gets them, as from applyconfiguration-gen
		"applyconfiguration/crddemo/v1/mydemo.go",
		"applyconfiguration/crddemo/v1/mydemospec.go",
		"applyconfiguration/crddemo/v1/mydemostatus.go",
		"applyconfiguration/crddemo/v1/tenant.go",
		"applyconfiguration/crddemo/v1beta1/mydemo.go",
		"applyconfiguration/internal/internal.go",
		"applyconfiguration/utils.go",
		"clientset/versioned/clientset.go",
		"clientset/versioned/fake/clientset_generated.go",
		"clientset/versioned/fake/doc.go",
		"clientset/versioned/fake/register.go",
		"clientset/versioned/scheme/doc.go",
		"clientset/versioned/scheme/register.go",
		"clientset/versioned/typed/crddemo/v1/crddemo_client.go",
		"clientset/versioned/typed/crddemo/v1/doc.go",
		"clientset/versioned/typed/crddemo/v1/fake/doc.go",
		"clientset/versioned/typed/crddemo/v1/fake/fake_crddemo_client.go",
		"clientset/versioned/typed/crddemo/v1/fake/fake_marker.go",
		"clientset/versioned/typed/crddemo/v1/fake/fake_mydemo.go",
		"clientset/versioned/typed/crddemo/v1/fake/fake_tenant.go",
		"clientset/versioned/typed/crddemo/v1/generated_expansion.go",
		"clientset/versioned/typed/crddemo/v1/marker.go",
		"clientset/versioned/typed/crddemo/v1/mydemo.go",
		"clientset/versioned/typed/crddemo/v1/tenant.go",
		"clientset/versioned/typed/crddemo/v1/zz_generated.jsondecode.go",
		"clientset/versioned/typed/crddemo/v1beta1/crddemo_client.go",
		"clientset/versioned/typed/crddemo/v1beta1/doc.go",
		"clientset/versioned/typed/crddemo/v1beta1/fake/doc.go",
		"clientset/versioned/typed/crddemo/v1beta1/fake/fake_crddemo_client.go",
		"clientset/versioned/typed/crddemo/v1beta1/fake/fake_mydemo.go",
		"clientset/versioned/typed/crddemo/v1beta1/generated_expansion.go",
		"clientset/versioned/typed/crddemo/v1beta1/mydemo.go",
		"clientset/versioned/typed/crddemo/v1beta1/zz_generated.jsondecode.go",
		"informers/externalversions/crddemo/interface.go",
		"informers/externalversions/crddemo/v1/interface.go",
		"informers/externalversions/crddemo/v1/mydemo.go",
		"informers/externalversions/crddemo/v1/tenant.go",
		"informers/externalversions/crddemo/v1beta1/interface.go",
		"informers/externalversions/crddemo/v1beta1/mydemo.go",
		"informers/externalversions/factory.go",
		"informers/externalversions/generic.go",
		"informers/externalversions/internalinterfaces/factory_interfaces.go",
		"listers/crddemo/v1/expansion_generated.go",
		"listers/crddemo/v1/marker.go", // noVerbs still gets a lister, as from lister-gen
		"listers/crddemo/v1/mydemo.go",
		"listers/crddemo/v1/tenant.go",
		"listers/crddemo/v1beta1/expansion_generated.go",
		"listers/crddemo/v1beta1/mydemo.go",
	}
	if !slices.Equal(got, want) {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	_, second := plan(t)
	if len(first.Files) != len(second.Files) {
		t.Fatalf("%d files, then %d", len(first.Files), len(second.Files))
	}
	for i, f := range first.Files {
		if !bytes.Equal(f.Content, second.Files[i].Content) {
			rel, _ := filepath.Rel(dir, f.Path)
			t.Errorf("%s differs between two runs", rel)
		}
	}
}

// TestGeneratedModule writes the generated code, vets the module and runs
// its tests with -race.
func TestGeneratedModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a module: not in -short")
	}
	dir, changes := plan(t)
	if err := changes.Apply(); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, "vet", "./...")
	goCmd(t, dir, "test", "-race", "-count=1", "./flow")
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newModule copies src into a module that requires what ctrlgen requires
// and takes ctrlgen from this checkout.
func newModule(t *testing.T, src string) string {
	t.Helper()
	return testmod.New(t, src, module)
}

// Package rbac checks that ctrlgen reads +kubebuilder:rbac markers and
// merges them into roles as controller-gen v0.23.0 does: on packages with
// markers and no controllers (nothing derived), ctrlgen's role.yaml is
// controller-gen's, byte for byte, after ctrlgen's header line.
package rbac

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/genall"
	cgloader "sigs.k8s.io/controller-tools/pkg/loader"
	cgmarkers "sigs.k8s.io/controller-tools/pkg/markers"
	cgrbac "sigs.k8s.io/controller-tools/pkg/rbac"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/generators/gen"
)

// moreMarkers are cases controller-tools' testdata lacks: {a,b} lists,
// quoted values, markers spread over files and blocks, a marker in a
// block of its own above a type, several roles in a namespace.
const moreMarkers = `package controller

// +kubebuilder:rbac:groups={apps,"batch"},resources={deployments,jobs},verbs={get,list}
// +kubebuilder:rbac:groups=apps,resources=deployments/scale,verbs=update,namespace=ops,roleName="scaler"
// +kubebuilder:rbac:groups=apps,resources=deployments,resourceNames={web,"api"},verbs=patch

// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=create;delete,namespace=ops
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get,namespace=ops,roleName=scaler

// Thing is here for the marker block above it.
type Thing struct{}
`

func TestSameRolesAsControllerGen(t *testing.T) {
	testdata := filepath.Join(moduleDir(t, "sigs.k8s.io/controller-tools"), "pkg", "rbac", "testdata", "controller.go")
	src, err := os.ReadFile(testdata)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"controller-tools testdata", map[string]string{"controller/controller.go": string(src)}},
		{"more markers", map[string]string{"controller/a.go": moreMarkers, "controller/b.go": "package controller\n\n// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=watch\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "go.mod"), "module example.com/markers\n\ngo 1.26\n")
			for name, content := range tc.files {
				write(t, filepath.Join(dir, name), content)
			}
			cg := controllerGen(t, dir)
			ours := ctrlgenRole(t, dir)
			if !bytes.Equal(cg, ours) {
				t.Errorf("role.yaml differs:\ncontroller-gen:\n%s\nctrlgen:\n%s", cg, ours)
			}
			if n := bytes.Count(cg, []byte("\n---\n")) + 1; n < 3 {
				t.Errorf("only %d roles: the case does not exercise namespaced roles", n)
			}
		})
	}
}

// controllerGen runs `controller-gen rbac:roleName=manager-role paths=./...`.
func controllerGen(t *testing.T, dir string) []byte {
	roots, err := cgloader.LoadRootsWithConfig(&packages.Config{Dir: dir}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	reg := &cgmarkers.Registry{}
	g := cgrbac.Generator{RoleName: "manager-role"}
	if err := g.RegisterMarkers(reg); err != nil {
		t.Fatal(err)
	}
	out := &memory{}
	ctx := &genall.GenerationContext{Collector: &cgmarkers.Collector{Registry: reg}, Roots: roots, OutputRule: out}
	if err := g.Generate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range roots {
		for _, e := range r.Errors {
			t.Fatal(e)
		}
	}
	if out.name != "role.yaml" {
		t.Fatalf("controller-gen wrote %q", out.name)
	}
	return out.Bytes()
}

// ctrlgenRole runs `ctrlgen --generators rbac ./...` and returns its
// role.yaml without ctrlgen's header line.
func ctrlgenRole(t *testing.T, dir string) []byte {
	changes, err := ctrlgen.Plan(ctrlgen.Config{Dir: dir, Patterns: []string{"./..."}, OutputDir: "generated", Generators: []string{"rbac"}, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range changes.Files {
		if f.Path == filepath.Join(dir, "config", "rbac", "role.yaml") {
			rest, ok := bytes.CutPrefix(f.Content, []byte(gen.YAMLHeader+"\n"))
			if !ok {
				t.Fatalf("role.yaml has no header:\n%s", f.Content)
			}
			return rest
		}
	}
	t.Fatal("ctrlgen wrote no config/rbac/role.yaml")
	return nil
}

type memory struct {
	bytes.Buffer
	name string
}

func (m *memory) Open(_ *cgloader.Package, path string) (io.WriteCloser, error) {
	m.name = path
	return nopCloser{&m.Buffer}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func write(t *testing.T, path, content string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// moduleDir is where the go command keeps a module this one requires.
func moduleDir(t *testing.T, path string) string {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedModule | packages.NeedName}, path+"/pkg/rbac")
	if err != nil || len(pkgs) == 0 || pkgs[0].Module == nil {
		t.Fatalf("finding %s: %v", path, err)
	}
	return strings.TrimSpace(pkgs[0].Module.Dir)
}

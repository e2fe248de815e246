package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlgen/ctrlgen/bench/internal/genrun"
)

// The CRD inputs: gateway-api v1.6.3's API packages (apis/ and apisx/,
// 13 CRDs; copied into a module of the same path, so that ctrlgen, which
// writes CRDs for the main module's packages only, reads them as the
// project's own) and the crdmarkers golden case (every marker ctrlgen
// reads, two versions, 2 CRDs).
var (
	crdGatewayAPI = &crdInput{name: "gateway-api", module: "sigs.k8s.io/gateway-api", patterns: []string{"./apis/...", "./apisx/..."},
		src: func(tb testing.TB) string { return genrun.ModuleSource(tb, "sigs.k8s.io/gateway-api", "v1.6.3") }, dirs: []string{"apis", "apisx"}}
	crdMarkers = &crdInput{name: "crdmarkers", module: "example.com/crdmarkers", patterns: []string{"./apis/..."},
		src: func(testing.TB) string {
			return filepath.Join(genrun.RepoDir, "generators", "testdata", "crdmarkers", "in")
		}, dirs: []string{"apis"}}
)

type crdInput struct {
	name, module string
	patterns     []string
	src          func(testing.TB) string
	dirs         []string // of src, copied
	template     genrun.Once[string]
}

// templateDir makes the input's module once: the copied directories and
// a go.mod requiring what ctrlgen requires (genrun.WriteModule), tidied.
func (in *crdInput) templateDir(tb testing.TB) string {
	return in.template.Get(tb, func() (string, error) {
		stage := filepath.Join(genrun.WorkDir, "crd-src-"+in.name)
		for _, d := range in.dirs {
			if err := genrun.CopyTree(filepath.Join(in.src(tb), d), filepath.Join(stage, d)); err != nil {
				return "", err
			}
		}
		dir := filepath.Join(genrun.WorkDir, "crd-template-"+in.name)
		if err := genrun.WriteModule(dir, &genrun.Input{Name: in.name, Module: in.module, Src: stage}); err != nil {
			return "", err
		}
		_, err := genrun.GoCmd(dir, []string{"GOFLAGS=-mod=mod", genrun.SetupProxy()}, "mod", "tidy")
		return dir, err
	})
}

func (in *crdInput) ctrlgenArgs() []string {
	return append([]string{"--generators", "crd", "--crd-dir", "config/crd", "--output-dir", "pkg/generated"}, in.patterns...)
}

func (in *crdInput) controllerGenArgs() []string {
	args := []string{"crd"}
	for _, p := range in.patterns {
		args = append(args, "paths="+p)
	}
	return append(args, "output:crd:dir=config/crd")
}

var controllerGenBuild genrun.Once[string]

// controllerGenBin builds controller-gen once, at the version bench/go.mod
// requires (v0.23.0), as `go install` would.
func controllerGenBin(tb testing.TB) string {
	return controllerGenBuild.Get(tb, func() (string, error) {
		bin := filepath.Join(genrun.WorkDir, "bin", "controller-gen")
		_, err := genrun.GoCmd(genrun.BenchDir, nil, "build", "-o", bin, "sigs.k8s.io/controller-tools/cmd/controller-gen")
		return bin, err
	})
}

// BenchmarkCRD times ctrlgen's crd generator and controller-gen's on the
// same inputs, each a process on a fresh copy of the input's module,
// sub-benchmarks input=…/impl=… as BenchmarkGenerate.
func BenchmarkCRD(b *testing.B) {
	for _, in := range []*crdInput{crdGatewayAPI, crdMarkers} {
		b.Run("input=crd-"+in.name, func(b *testing.B) {
			dir := in.templateDir(b)
			t := &genrun.Template{Dir: dir}
			b.Run("impl=ctrlgen", func(b *testing.B) {
				argv := append([]string{genrun.CtrlgenBin(b)}, in.ctrlgenArgs()...)
				benchOps(b, t, func(root string) (genrun.Usage, error) { return genrun.Run(root, nil, argv) })
			})
			b.Run("impl=controller-gen", func(b *testing.B) {
				argv := append([]string{controllerGenBin(b)}, in.controllerGenArgs()...)
				benchOps(b, t, func(root string) (genrun.Usage, error) { return genrun.Run(root, nil, argv) })
			})
		})
	}
}

// TestCRDBenchInputs checks that both tools write the same CRD files for
// each benchmark input, so that the benchmark times the same work.
func TestCRDBenchInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds controller-gen and ctrlgen")
	}
	for _, in := range []*crdInput{crdGatewayAPI, crdMarkers} {
		t.Run(in.name, func(t *testing.T) {
			tmpl := &genrun.Template{Dir: in.templateDir(t)}
			ours, theirs := tmpl.Fresh(t), tmpl.Fresh(t)
			defer os.RemoveAll(ours)
			defer os.RemoveAll(theirs)
			if _, err := genrun.Run(ours, nil, append([]string{genrun.CtrlgenBin(t)}, in.ctrlgenArgs()...)); err != nil {
				t.Fatal(err)
			}
			if _, err := genrun.Run(theirs, nil, append([]string{controllerGenBin(t)}, in.controllerGenArgs()...)); err != nil {
				t.Fatal(err)
			}
			a, b := crdFiles(t, ours), crdFiles(t, theirs)
			if len(a) == 0 || len(a) != len(b) {
				t.Fatalf("ctrlgen wrote %d CRDs, controller-gen %d", len(a), len(b))
			}
			for name := range b {
				if _, ok := a[name]; !ok {
					t.Errorf("controller-gen wrote %s, ctrlgen did not", name)
				}
			}
		})
	}
}

func crdFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root, "config", "crd", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(m)] = bytes.TrimSpace(data)
	}
	return out
}

package compat_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlgen/ctrlgen/bench/internal/genrun"
)

func TestMain(m *testing.M) { genrun.Main(m, nil) }

// TestExample runs examples/samplecontroller's test on ctrlgen's committed
// output and on code-generator's output for the same API, swapped in at
// the same import paths.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds k8s.io/code-generator")
	}
	const module = "github.com/ctrlgen/ctrlgen/examples/samplecontroller"
	example := filepath.Join(genrun.RepoDir, "examples", "samplecontroller")

	t.Run("ctrlgen", func(t *testing.T) {
		// The arguments of main.go's go:generate line, as `make verify`.
		verify := []string{genrun.CtrlgenBin(t), "--verify", "--output-dir", "generated", "./apis/..."}
		if _, err := genrun.Run(example, nil, verify); err != nil {
			t.Fatalf("examples/samplecontroller's generated code is not ctrlgen's output (run make generate): %v", err)
		}
		checkGenerated(t, example, []string{"generated"}, "ctrlgen")
		goTest(t, genrun.RepoDir, "./examples/samplecontroller")
	})

	t.Run("code-generator", func(t *testing.T) {
		// The example without ctrlgen's output, as a module of its own at
		// the example's import path; code-generator writes the deep
		// copies, the registration and the generated tree.
		src := filepath.Join(genrun.WorkDir, "src-samplecontroller")
		if err := genrun.CopyTree(example, src); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(src, "generated")); err != nil {
			t.Fatal(err)
		}
		root := genrun.CodegenTree(t, &genrun.Input{
			Name:    "samplecontroller",
			Module:  module,
			Src:     src,
			Codegen: genrun.KubeCodegen{In: "apis", Helpers: true, Register: true, OutDir: "generated"},
		})
		checkGenerated(t, root, []string{"generated"}, "client-gen", "lister-gen", "informer-gen")
		checkGenerated(t, root, []string{"apis/samplecontroller/v1alpha1/zz_generated.deepcopy.go"}, "deepcopy-gen")
		checkGenerated(t, root, []string{"apis/samplecontroller/v1alpha1/zz_generated.register.go"}, "register-gen")
		mods := strings.Fields(goCmd(t, root, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "."))
		if slices.Contains(mods, "github.com/ctrlgen/ctrlgen") {
			t.Fatal("code-generator's tree still imports ctrlgen's module")
		}
		goCmd(t, root, "vet", ".")
		goTest(t, root, ".")
	})
}

// A project is a real controller whose generated client is regenerated
// with ctrlgen.
type project struct {
	// client is the module holding the generated code and how it is
	// generated (genrun's real inputs).
	client func(testing.TB) *genrun.Input
	// module and version name the module holding the controllers when it
	// is not client's; it requires client's, which is replaced by the
	// regenerated copy.
	module, version string
	// build are the controllers' packages (commands included), test the
	// packages whose unit tests run; relative to the controllers' module.
	build, test []string
	// repoRoot says the controllers are the root module of client's
	// repository (client's Input has a Dir), whose go.mod replaces the
	// client's module and its siblings by their directories: the ones in
	// the regenerated tree.
	repoRoot bool
}

var projects = []project{
	{
		// The controller and its test are the root package.
		client: genrun.SampleController,
		build:  []string{"."},
		test:   []string{"."},
	},
	{
		// The snapshot controller (common-controller) and the CSI
		// snapshotter sidecar (sidecar-controller), whose tests run on
		// the generated fake clientset, informers and listers; utils uses
		// the listers.
		client:  genrun.ExternalSnapshotterClient,
		module:  "github.com/kubernetes-csi/external-snapshotter/v8",
		version: genrun.ExternalSnapshotterVersion,
		build:   []string{"./cmd/snapshot-controller", "./cmd/csi-snapshotter", "./pkg/common-controller", "./pkg/sidecar-controller"},
		test:    []string{"./pkg/common-controller", "./pkg/sidecar-controller", "./pkg/utils"},
	},
	{
		// The operator's Prometheus, Alertmanager and ThanosRuler
		// controllers and the operator command, in the repository's root
		// module. alertmanager's tests run on the generated fake
		// clientset and informers (pkg/informers wraps the latter);
		// prometheus/server and thanos take the clientset. prometheus,
		// which builds the apply configurations the controllers give
		// ApplyStatus, is built but its tests (over 5 minutes of config
		// generation) are not run.
		client:   genrun.PrometheusOperator,
		repoRoot: true,
		build:    []string{"./cmd/operator", "./pkg/prometheus/...", "./pkg/alertmanager/...", "./pkg/thanos/..."},
		test:     []string{"./pkg/alertmanager", "./pkg/informers", "./pkg/prometheus/server", "./pkg/thanos"},
	},
	{
		// cert-manager's controllers, in the module root with its API.
		// Their harness (pkg/controller/test) builds fake clientsets and
		// informer factories and compares the actions the controllers
		// take; these three packages' tests failed on ctrlgen's fake
		// until it stored seed objects as client-go's does. The
		// controller command is another module; the venafi packages are
		// stubbed (CertManagerSource).
		client: genrun.CertManager,
		build:  []string{"./pkg/controller/...", "./internal/controller/..."},
		test:   []string{"./pkg/controller/certificate-shim/gateways", "./internal/controller/certificates/policies", "./pkg/controller/certificates/trigger"},
	},
	{
		// knative serving's injection layer (generated by knative's own
		// generator over the clientset, informers and listers, and not
		// regenerated) and the reconcilers on it, whose API types embed
		// knative's duck types from another module. domainmapping's and
		// route's tests run on the injection fakes, which wrap the
		// generated fake clientset and informers.
		client: genrun.KnativeServing,
		build:  []string{"./pkg/client/injection/...", "./pkg/reconciler/domainmapping/...", "./pkg/reconciler/route/..."},
		test:   []string{"./pkg/reconciler/domainmapping", "./pkg/reconciler/route"},
	},
}

// TestProjects regenerates each project's clientset, listers and
// informers with ctrlgen at their import paths, then builds its
// controllers and runs their unit tests.
func TestProjects(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads and builds real projects (minutes)")
	}
	for _, p := range projects {
		in := p.client(t)
		t.Run(in.Name, func(t *testing.T) {
			start := time.Now()
			clientRoot := genrun.CtrlgenTree(t, in)
			t.Logf("%s regenerated by ctrlgen in %v", in.Module, time.Since(start).Round(time.Millisecond))
			var dirs []string
			clientset := "clientset"
			if in.Codegen.ClientsetDir != "" {
				clientset = filepath.Join(in.Codegen.ClientsetDir, "versioned")
			}
			for _, d := range []string{clientset, "listers", "informers"} {
				dirs = append(dirs, filepath.Join(in.Codegen.OutDir, d))
			}
			checkGenerated(t, clientRoot, dirs, "ctrlgen")

			root := clientRoot
			if p.repoRoot {
				start = time.Now()
				root = in.RepoRoot(clientRoot)
				if err := genrun.RequireCtrlgen(root); err != nil {
					t.Fatal(err)
				}
				goCmd(t, root, "mod", "tidy")
				t.Logf("%s's root module set up in %v", in.Name, time.Since(start).Round(time.Millisecond))
			}
			if p.module != "" {
				start = time.Now()
				root = filepath.Join(filepath.Dir(clientRoot), "controllers")
				err := genrun.WriteModule(root, &genrun.Input{Name: in.Name, Module: p.module,
					Src: genrun.ModuleSource(t, p.module, p.version)})
				if err != nil {
					t.Fatal(err)
				}
				goCmd(t, root, "mod", "edit", "-replace="+in.Module+"="+clientRoot)
				goCmd(t, root, "mod", "tidy")
				t.Logf("%s@%s set up in %v", p.module, p.version, time.Since(start).Round(time.Millisecond))
			}
			// The controllers build on the regenerated client, and so on
			// ctrlgen's runtime.
			if dir := strings.TrimSpace(goCmd(t, root, "list", "-m", "-f", "{{.Dir}}", in.Module)); dir != clientRoot {
				t.Fatalf("%s is %s, not the regenerated %s", in.Module, dir, clientRoot)
			}
			deps := strings.Fields(goCmd(t, root, append([]string{"list", "-deps"}, p.build...)...))
			if !slices.Contains(deps, "github.com/ctrlgen/ctrlgen/runtime/cache") {
				t.Fatalf("%v do not depend on ctrlgen's runtime/cache", p.build)
			}

			start = time.Now()
			goCmd(t, root, append([]string{"build"}, p.build...)...)
			t.Logf("go build %s: %v", strings.Join(p.build, " "), time.Since(start).Round(time.Millisecond))
			goTest(t, root, p.test...)
		})
	}
}

// goCmd runs the go command in dir and returns its output, failing t if
// it fails. Module downloads go through the module proxy; go.mod may be
// changed (mod edit, tidy) but is not by build, list, vet or test.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	env := []string{genrun.SetupProxy()}
	if args[0] != "mod" {
		env = append(env, "GOFLAGS=-mod=readonly")
	}
	out, err := genrun.GoCmd(dir, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// goTest runs the tests of pkgs in dir and logs how many passed and were
// skipped, and how long it took.
func goTest(t *testing.T, dir string, pkgs ...string) {
	t.Helper()
	start := time.Now()
	out := goCmd(t, dir, append([]string{"test", "-count=1", "-v"}, pkgs...)...)
	var pass, skip int
	var oks []string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "--- PASS"):
			pass++
		case strings.HasPrefix(l, "--- SKIP"):
			skip++
		case strings.HasPrefix(l, "ok "):
			oks = append(oks, l)
		}
	}
	if pass == 0 {
		t.Fatalf("go test %s passed no test:\n%s", strings.Join(pkgs, " "), out)
	}
	t.Logf("go test %s: %d tests passed, %d skipped, in %v\n%s", strings.Join(pkgs, " "), pass, skip,
		time.Since(start).Round(time.Millisecond), strings.Join(oks, "\n"))
}

var generatedBy = regexp.MustCompile(`(?m)^// Code generated by ([^ ]+)\. DO NOT EDIT\.$`)

// checkGenerated fails t unless the .go files at paths (files or
// directories, relative to root) exist and every one says it was
// generated by one of gens.
func checkGenerated(t *testing.T, root string, paths []string, gens ...string) {
	t.Helper()
	n := 0
	for _, p := range paths {
		err := filepath.WalkDir(filepath.Join(root, p), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n++
			m := generatedBy.FindSubmatch(data)
			if m == nil || !slices.Contains(gens, string(m[1])) {
				rel, _ := filepath.Rel(root, path)
				header, _, _ := bytes.Cut(data, []byte("\npackage "))
				t.Errorf("%s is not generated by %s:\n%s", rel, strings.Join(gens, " or "), header)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatalf("no .go files at %v", paths)
	}
}

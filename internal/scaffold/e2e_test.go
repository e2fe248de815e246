package scaffold_test

import (
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/ctrlgen/ctrlgen/internal/testmod"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// quickStartVersion is the ctrlgen version the project requires: a
// pseudo-version no proxy serves, which checkoutModules resolves to this
// checkout.
const quickStartVersion = "v0.0.0-20260101000000-000000000000"

// TestQuickStart walks docs/quickstart.md in a new directory: ctrlgen init
// and create api, make generate, go build, go vet and go test (the
// scaffolded controller test starts a control plane and waits for a
// reconcile); then config/default, built by kustomize, and the sample
// pass a server-side dry-run create on a control plane of its own.
func TestQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctrlgen, a project and its tests, and starts control planes")
	}
	root, err := filepath.Abs(testmod.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(t.TempDir(), "guestbook")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	ctrlgen := filepath.Join(t.TempDir(), "ctrlgen")
	modules := checkoutModules(t, project, root, quickStartVersion)
	var times []string
	step := func(name string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		times = append(times, fmt.Sprintf("%-34s %6.1fs", name, time.Since(start).Seconds()))
	}
	defer func() { t.Logf("step times:\n%s", strings.Join(times, "\n")) }()

	step("go build ./cmd/ctrlgen", func() { run(t, root, nil, "go", "build", "-o", ctrlgen, "./cmd/ctrlgen") })
	step("ctrlgen init", func() {
		run(t, project, modules.env, ctrlgen, append([]string{"init", "--domain", "example.com", "--repo", "example.com/guestbook",
			"--ctrlgen-version", quickStartVersion}, modules.initFlags...)...)
	})
	step("ctrlgen create api", func() {
		run(t, project, modules.env, ctrlgen, "create", "api", "--group", "webapp", "--version", "v1", "--kind", "Guestbook")
	})
	step("make generate", func() {
		if _, err := exec.LookPath("make"); err != nil {
			run(t, project, modules.env, "go", "generate", "./...")
			return
		}
		run(t, project, modules.env, "make", "generate")
	})
	for _, f := range []string{"internal/controller/guestbook/reconcile.go", "config/crd/webapp.example.com_guestbooks.yaml", "config/rbac/role.yaml"} {
		if !testmod.Exists(filepath.Join(project, f)) {
			t.Errorf("make generate wrote no %s", f)
		}
	}
	step("go build ./...", func() { run(t, project, modules.env, "go", "build", "./...") })
	step("go vet ./...", func() { run(t, project, modules.env, "go", "vet", "./...") })
	step("go test ./...", func() {
		out := run(t, project, modules.env, "go", "test", "-count=1", "-v", "./...")
		if !strings.Contains(out, "--- PASS: TestGuestbookIsReconciled") {
			t.Errorf("go test ran no TestGuestbookIsReconciled:\n%s", out)
		}
	})

	var objs, samples []*unstructured.Unstructured
	step("kustomize build config/default", func() {
		objs = kustomizeBuild(t, filepath.Join(project, "config", "default"))
		samples = kustomizeBuild(t, filepath.Join(project, "config", "samples"))
	})
	var env *testenv.Env
	step("testenv.Start", func() {
		env, err = testenv.Start(t.Context(), testenv.Options{DisableControllerManager: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { env.Stop() })
	})
	step("server-side dry-run create", func() {
		dryRunCreate(t, env, objs, filepath.Join(project, "config", "crd"), samples)
	})
}

// modules is how a project reaches ctrlgen's modules.
type modules struct {
	env       []string // for every go command in the project
	initFlags []string // for ctrlgen init
}

// checkoutModules makes the project at dir build with the checkout at
// root: a go.work in dir that uses the project and the checkout's three
// modules, and replaces every version of those modules that anything
// requires (the project's version, and the placeholder the checkout's
// modules require each other at) with their directories, as the version
// of a workspace module that nothing serves must be; its go line is the
// highest of theirs. go mod tidy reads no go.work, so init must not run
// it.
func checkoutModules(t *testing.T, dir, root, projectVersion string) modules {
	t.Helper()
	dirs := map[string]string{
		"github.com/ctrlgen/ctrlgen":                 root,
		"github.com/ctrlgen/ctrlgen/runtime":         filepath.Join(root, "runtime"),
		"github.com/ctrlgen/ctrlgen/runtime/manager": filepath.Join(root, "runtime", "manager"),
	}
	work, err := modfile.ParseWork("go.work", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	goVersion := "1.26.0"
	if err := work.AddUse(dir, ""); err != nil {
		t.Fatal(err)
	}
	for mod, modDir := range dirs {
		if err := work.AddUse(modDir, ""); err != nil {
			t.Fatal(err)
		}
		if err := work.AddReplace(mod, projectVersion, modDir, ""); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.ParseLax("go.mod", data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Go != nil && version.Compare("go"+f.Go.Version, "go"+goVersion) > 0 {
			goVersion = f.Go.Version
		}
		for _, r := range f.Require {
			if d, ours := dirs[r.Mod.Path]; ours && r.Mod.Version != projectVersion {
				if err := work.AddReplace(r.Mod.Path, r.Mod.Version, d, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := work.AddGoStmt(goVersion); err != nil {
		t.Fatal(err)
	}
	work.SortBlocks()
	gowork := filepath.Join(dir, "go.work")
	testmod.Write(t, gowork, modfile.Format(work.Syntax))
	return modules{env: []string{"GOWORK=" + gowork}, initFlags: []string{"--skip-tidy"}}
}

// run runs a command in dir with env added to the environment, failing t
// with its output if it fails, and returns its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// kustomizeBuild is `kustomize build dir`.
func kustomizeBuild(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range resources.Resources() {
		j, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		o := &unstructured.Unstructured{}
		if err := o.UnmarshalJSON(j); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// dryRunCreate creates objs (config/default) on env's apiserver with
// dryRun=All and strict field validation, each on its own, after their
// Namespace, which is created for real; then installs the CRDs in crdDir
// and does the same with samples.
func dryRunCreate(t *testing.T, env *testenv.Env, objs []*unstructured.Unstructured, crdDir string, samples []*unstructured.Unstructured) {
	t.Helper()
	ctx := t.Context()
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byName[o.GetKind()+"/"+o.GetName()] = o
	}
	for _, want := range []string{
		"Namespace/guestbook-system",
		"CustomResourceDefinition/guestbooks.webapp.example.com",
		"ServiceAccount/guestbook-controller-manager",
		"ClusterRole/guestbook-manager-role",
		"ClusterRoleBinding/guestbook-manager-rolebinding",
		"Deployment/guestbook-controller-manager",
		"Service/guestbook-controller-manager-metrics-service",
	} {
		if byName[want] == nil {
			t.Errorf("kustomize build config/default has no %s", want)
		}
	}
	if d := byName["Deployment/guestbook-controller-manager"]; d != nil {
		if sa, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "serviceAccountName"); sa != "guestbook-controller-manager" {
			t.Errorf("the Deployment runs as ServiceAccount %q, not config/rbac's", sa)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	cfg := env.Config()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	create := func(o *unstructured.Unstructured, dryRun bool) error {
		gvk := o.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return err
		}
		opts := metav1.CreateOptions{FieldValidation: "Strict"}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err = dyn.Resource(mapping.Resource).Namespace(o.GetNamespace()).Create(ctx, o, opts)
		return err
	}
	ns := byName["Namespace/guestbook-system"]
	if err := create(ns, false); err != nil {
		t.Fatalf("creating the Namespace: %v", err)
	}
	for _, o := range objs {
		if o != ns {
			if err := create(o, true); err != nil {
				t.Errorf("server-side dry-run create of %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}

	if err := env.InstallCRDs(ctx, crdDir); err != nil {
		t.Fatal(err)
	}
	mapper.Reset()
	if len(samples) != 1 || samples[0].GetKind() != "Guestbook" {
		t.Fatalf("kustomize build config/samples: %d objects, want the Guestbook", len(samples))
	}
	for _, o := range samples {
		o.SetNamespace("default")
		if err := create(o, true); err != nil {
			t.Errorf("server-side dry-run create of the sample %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

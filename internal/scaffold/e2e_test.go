package scaffold_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/ctrlgen/ctrlgen/internal/modproxy"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// TestQuickStart runs README.md's quick start, command by command and
// exactly as written, in an empty directory, with ctrlgen reached only
// through a module proxy holding this work tree (its @latest); then the
// project builds and vets, and config/default, built by kustomize, and the
// sample pass a server-side dry-run create on a control plane.
func TestQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("packs ctrlgen as a module proxy, builds a project and its tests, and starts control planes")
	}
	root, err := filepath.Abs(testmod.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	commands := quickStart(t, filepath.Join(root, "README.md"))
	if doc := quickStart(t, filepath.Join(root, "docs", "quickstart.md")); !slices.Equal(doc, commands) {
		t.Errorf("docs/quickstart.md's commands differ from README.md's:\n%s\nvs\n%s", strings.Join(doc, "\n"), strings.Join(commands, "\n"))
	}
	var times []string
	step := func(name string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		times = append(times, fmt.Sprintf("%-70s %6.1fs", name, time.Since(start).Seconds()))
	}
	defer func() { t.Logf("step times:\n%s", strings.Join(times, "\n")) }()

	var proxy *modproxy.Local
	step("pack the work tree as a module proxy", func() {
		if proxy, err = modproxy.PackLocal(root, t.TempDir()); err != nil {
			t.Fatal(err)
		}
	})
	dir := t.TempDir()
	cwdFile := filepath.Join(t.TempDir(), "cwd")
	var out string
	for _, c := range commands {
		step(c, func() {
			out = run(t, dir, proxy.Env, "bash", "-euo", "pipefail", "-c", "cd \"$0\"\n"+c+"\npwd >"+cwdFile, dir)
			dir = strings.TrimSpace(testmod.Read(t, cwdFile))
		})
	}
	project := dir
	if !strings.Contains(out, "ok  \texample.com/guestbook/internal/controller/guestbook") {
		t.Errorf("the last command (make test) did not pass the Guestbook controller's test:\n%s", out)
	}
	gomod := testmod.Read(t, filepath.Join(project, "go.mod"))
	for _, m := range []string{"github.com/ctrlgen/ctrlgen", "github.com/ctrlgen/ctrlgen/runtime", "github.com/ctrlgen/ctrlgen/runtime/manager"} {
		if !strings.Contains(gomod, m+" "+proxy.Version) {
			t.Errorf("go.mod does not require %s at %s, the version init ran as:\n%s", m, proxy.Version, gomod)
		}
	}
	for _, f := range []string{"internal/controller/guestbook/reconcile.go", "config/crd/webapp.example.com_guestbooks.yaml", "config/rbac/role.yaml"} {
		if !testmod.Exists(filepath.Join(project, f)) {
			t.Errorf("make generate wrote no %s", f)
		}
	}
	step("make manifests", func() {
		// The same ctrlgen run as make generate: nothing left to write.
		if out := run(t, project, proxy.Env, "make", "manifests"); !strings.Contains(out, " 0 files written") {
			t.Errorf("make manifests right after make generate wrote files:\n%s", out)
		}
	})
	step("go build ./...", func() { run(t, project, proxy.Env, "go", "build", "-o", os.DevNull, "./...") })
	step("go vet ./...", func() { run(t, project, proxy.Env, "go", "vet", "./...") })

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

// quickStart returns the commands of the first ```sh block of the
// Markdown file: its lines but blank ones and comments.
func quickStart(t *testing.T, file string) []string {
	t.Helper()
	_, block, ok := strings.Cut(testmod.Read(t, file), "\n```sh\n")
	if block, _, ok = strings.Cut(block, "\n```"); !ok {
		t.Fatalf("%s has no ```sh block", file)
	}
	var commands []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			commands = append(commands, l)
		}
	}
	return commands
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

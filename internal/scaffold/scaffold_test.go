package scaffold_test

import (
	"bytes"
	"errors"
	"flag"
	"go/format"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/ctrlgen/ctrlgen/internal/scaffold"
)

var initOptions = scaffold.InitOptions{
	Domain:         "my.domain",
	Repo:           "my.domain/guestbook",
	ProjectName:    "guestbook",
	CtrlgenVersion: "v0.1.0",
	GoVersion:      "1.26",
}

func byPath(t *testing.T, files []scaffold.File) map[string]scaffold.File {
	t.Helper()
	m := map[string]scaffold.File{}
	for _, f := range files {
		if _, dup := m[f.Path]; dup {
			t.Fatalf("%s twice", f.Path)
		}
		m[f.Path] = f
		if strings.HasSuffix(f.Path, ".go") {
			formatted, err := format.Source(f.Content)
			if err != nil || !bytes.Equal(formatted, f.Content) {
				t.Errorf("%s is not gofmt'ed (%v):\n%s", f.Path, err, f.Content)
			}
		}
	}
	return m
}

func paths(files []scaffold.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

func mustContain(t *testing.T, f scaffold.File, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(string(f.Content), w) {
			t.Errorf("%s has no %q:\n%s", f.Path, w, f.Content)
		}
	}
}

func TestInit(t *testing.T) {
	files, err := scaffold.Init(initOptions)
	if err != nil {
		t.Fatal(err)
	}
	got := byPath(t, files)
	// Not config/rbac, nor a CRD: ctrlgen's run writes those.
	want := []string{".dockerignore", ".gitignore", "Dockerfile", "Makefile", "PROJECT", "README.md", "cmd/main.go",
		"config/crd/kustomization.yaml", "config/default/kustomization.yaml", "config/default/metrics_service.yaml",
		"config/manager/kustomization.yaml", "config/manager/manager.yaml", "config/samples/kustomization.yaml", "go.mod"}
	if p := paths(files); !slices.Equal(p, want) {
		t.Errorf("files %q, want %q", p, want)
	}
	for _, f := range files {
		if f.Update {
			t.Errorf("%s is an update; init only writes new files", f.Path)
		}
	}

	mod, err := modfile.Parse("go.mod", got["go.mod"].Content, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mod.Module.Mod.Path != "my.domain/guestbook" || mod.Go.Version != "1.26.0" {
		t.Errorf("go.mod: module %s, go %s", mod.Module.Mod.Path, mod.Go.Version)
	}
	var requires []string
	for _, r := range mod.Require {
		requires = append(requires, r.Mod.String())
	}
	if w := []string{"github.com/ctrlgen/ctrlgen@v0.1.0", "github.com/ctrlgen/ctrlgen/runtime@v0.1.0", "github.com/ctrlgen/ctrlgen/runtime/manager@v0.1.0"}; !slices.Equal(requires, w) {
		t.Errorf("go.mod requires %q, want %q", requires, w)
	}
	if len(mod.Tool) != 1 || mod.Tool[0].Path != "github.com/ctrlgen/ctrlgen/cmd/ctrlgen" {
		t.Errorf("go.mod tools %v", mod.Tool)
	}

	mustContain(t, got["cmd/main.go"],
		"//go:generate go tool ctrlgen --output-dir ../pkg/generated --controllers-dir ../internal/controller --crd-dir ../config/crd --rbac-dir ../config/rbac ../api/...\n",
		"\t// ctrlgen:scaffold:imports\n", "\t// ctrlgen:scaffold:register\n", "manager.DefaultOptions()", "opts.AddFlags(flag.CommandLine)",
		`opts.LeaderElectionID = "guestbook.my.domain"`, "\tm := manager.New(opts)\n", "\t// ctrlgen:scaffold:webhooks\n", "m.RunWithSignals(")
	mustContain(t, got["config/default/kustomization.yaml"], "namespace: guestbook-system\n", "namePrefix: guestbook-\n", "- ../crd\n", "- ../rbac\n", "- ../manager\n", "- metrics_service.yaml\n", "# ctrlgen:scaffold:resources\n", "patches:\n# ctrlgen:scaffold:patches\n")
	mustContain(t, got["config/crd/kustomization.yaml"], "resources:\n# ctrlgen:scaffold:crds\n", "patches:\n# ctrlgen:scaffold:crdpatches\n# ctrlgen:scaffold:crdconfigurations\n")
	mustContain(t, got["Makefile"], "\ngenerate:", "\nmanifests: generate", "\ntest:", "\tgo test ./...", "\nbuild:", "\nrun:", "\tgo run ./cmd",
		"\ninstall:", "apply --server-side -k config/crd", "\nuninstall:", "\ndeploy:", "-k config/default", "\nundeploy:", "\ndocker-build:", "\ndocker-push:", "IMG ?=")
	mustContain(t, got["Dockerfile"], "FROM golang:1.26 AS builder", "gcr.io/distroless/static:nonroot", "./cmd")
	mustContain(t, got["PROJECT"], "domain: my.domain\n", "repo: my.domain/guestbook\n", "projectName: guestbook\n")
	for _, name := range []string{"config/manager/manager.yaml", "config/default/metrics_service.yaml"} {
		mustContain(t, got[name], "app.kubernetes.io/name: guestbook\n")
	}
}

func TestInitRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		change func(*scaffold.InitOptions)
		want   string
	}{
		{func(o *scaffold.InitOptions) { o.Domain = "" }, "--domain is required"},
		{func(o *scaffold.InitOptions) { o.Domain = "My_Domain" }, `--domain "My_Domain" is not a DNS subdomain`},
		{func(o *scaffold.InitOptions) { o.Repo = "" }, "--repo is required"},
		{func(o *scaffold.InitOptions) { o.Repo = "my domain/x" }, "--repo: malformed module path"},
		{func(o *scaffold.InitOptions) { o.ProjectName = "Guest_Book" }, `project name "Guest_Book" is not a DNS label`},
		{func(o *scaffold.InitOptions) { o.CtrlgenVersion = "(devel)" }, `ctrlgen version "(devel)" is not a module version`},
		{func(o *scaffold.InitOptions) { o.CtrlgenVersion = "v0.0.0-20260101000000-abcdefabcdef+dirty" }, "is not a module version"},
	} {
		o := initOptions
		tc.change(&o)
		if _, err := scaffold.Init(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", o, err, tc.want)
		}
	}
}

func TestWriteNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	files := []scaffold.File{{Path: "a/new.txt", Content: []byte("new")}, {Path: "b.txt", Content: []byte("b")}}
	if err := scaffold.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := []scaffold.File{{Path: "c.txt", Content: []byte("c")}, {Path: "b.txt", Content: []byte("b")}, {Path: "a/new.txt", Content: []byte("new")}}
	err := scaffold.Write(dir, again)
	if err == nil || !strings.Contains(err.Error(), "not overwriting what is there: b.txt, a/new.txt") {
		t.Errorf("second write: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "mine" {
		t.Errorf("b.txt is %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt was written though the write was refused: %v", err)
	}
	if err := scaffold.Write(dir, []scaffold.File{{Path: "missing.txt", Update: true}}); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("update of a missing file: %v", err)
	}
	if err := scaffold.Write(dir, []scaffold.File{{Path: "b.txt", Content: []byte("updated"), Update: true}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "updated" {
		t.Errorf("b.txt is %q after an update", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

// newProject writes a project with init's files, and returns its directory.
func newProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files, err := scaffold.Init(initOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := scaffold.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	return dir
}

// createAPI runs create api in dir and returns its files, by path.
func createAPI(t *testing.T, dir string, o scaffold.APIOptions) map[string]scaffold.File {
	t.Helper()
	files, err := scaffold.CreateAPI(os.DirFS(dir), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := scaffold.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	return byPath(t, files)
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCreateAPI(t *testing.T) {
	dir := newProject(t)
	got := createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	want := []string{"PROJECT", "api/webapp/v1/doc.go", "api/webapp/v1/guestbook_types.go", "cmd/main.go",
		"config/crd/kustomization.yaml", "config/samples/kustomization.yaml", "config/samples/webapp_v1_guestbook.yaml",
		"internal/controller/guestbook/guestbook_controller_test.go"}
	if p := slices.Sorted(maps.Keys(got)); !slices.Equal(p, want) {
		t.Errorf("files %q, want %q", p, want)
	}
	mustContain(t, got["api/webapp/v1/doc.go"], "// +k8s:deepcopy-gen=package\n", "// +groupName=webapp.my.domain\npackage v1\n")
	mustContain(t, got["api/webapp/v1/guestbook_types.go"], "package v1\n",
		"// +genclient\n// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object\n// +kubebuilder:resource:path=guestbooks,scope=Namespaced\n// +kubebuilder:subresource:status\n// +ctrlgen:controller\ntype Guestbook struct {",
		"type GuestbookSpec struct {", "Foo string `json:\"foo,omitempty\"`", "ObservedGeneration int64 `json:\"observedGeneration,omitempty\"`",
		"type GuestbookList struct {", "Items           []Guestbook `json:\"items\"`")
	mustContain(t, got["config/samples/webapp_v1_guestbook.yaml"], "apiVersion: webapp.my.domain/v1\nkind: Guestbook\n", "name: guestbook-sample\n")
	mustContain(t, got["config/crd/kustomization.yaml"], "- webapp.my.domain_guestbooks.yaml\n# ctrlgen:scaffold:crds\n")
	mustContain(t, got["config/samples/kustomization.yaml"], "- webapp_v1_guestbook.yaml\n# ctrlgen:scaffold:samples\n")
	mustContain(t, got["cmd/main.go"], "\tguestbookcontroller \"my.domain/guestbook/internal/controller/guestbook\"\n",
		"\tmanager.Register(guestbookcontroller.ControllerName, guestbookcontroller.Init)\n\t// ctrlgen:scaffold:register\n")
	mustContain(t, got["internal/controller/guestbook/guestbook_controller_test.go"], "package guestbook_test\n",
		`testenv.Start(ctx, testenv.Options{`, `filepath.Join("..", "..", "..", "config", "crd")`,
		"opts.RESTConfig = env.Config()", "m.Register(guestbookcontroller.ControllerName, guestbookcontroller.Init)",
		"controller.WithReconcileObserver", `client.WebappV1().Guestbooks("default")`, "got.Status.ObservedGeneration == got.Generation")
	mustContain(t, got["PROJECT"], "- group: webapp\n  version: v1\n  kind: Guestbook\n  plural: guestbooks\n  namespaced: true\n  controller: true\n  path: my.domain/guestbook/api/webapp/v1\n")
}

// TestCreateAPITwice adds a second kind to the group and a third in
// another group: neither touches what the user owns.
func TestCreateAPITwice(t *testing.T) {
	dir := newProject(t)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	owned := map[string]string{}
	for _, name := range []string{"api/webapp/v1/doc.go", "api/webapp/v1/guestbook_types.go", "internal/controller/guestbook/guestbook_controller_test.go", "config/samples/webapp_v1_guestbook.yaml"} {
		owned[name] = read(t, dir, name)
	}
	// A file the next ctrlgen run would write, and the user then owns.
	if err := os.WriteFile(filepath.Join(dir, "internal/controller/guestbook/reconcile.go"), []byte("package guestbook\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	owned["internal/controller/guestbook/reconcile.go"] = "package guestbook\n"

	second := createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Memcached", Resource: true, Controller: true})
	if _, ok := second["api/webapp/v1/doc.go"]; ok {
		t.Error("a second kind of webapp/v1 writes doc.go again")
	}
	third := createAPI(t, dir, scaffold.APIOptions{Group: "batch", Version: "v1beta1", Kind: "CronJob", Namespaced: new(false), Resource: true, Controller: true})
	for name, content := range owned {
		if read(t, dir, name) != content {
			t.Errorf("%s changed", name)
		}
	}
	for _, f := range []scaffold.File{second["internal/controller/memcached/memcached_controller_test.go"], third["internal/controller/cronjob/cronjob_controller_test.go"]} {
		if f.Path == "" {
			t.Fatal("a controller test is missing")
		}
	}
	mustContain(t, third["api/batch/v1beta1/doc.go"], "// +groupName=batch.my.domain\npackage v1beta1\n")
	mustContain(t, third["api/batch/v1beta1/cronjob_types.go"], "// +genclient\n// +genclient:nonNamespaced\n", "scope=Cluster\n")
	mustContain(t, third["internal/controller/cronjob/cronjob_controller_test.go"], "client.BatchV1beta1().CronJobs()\n", `ObjectMeta: metav1.ObjectMeta{Name: "sample"}}`)

	main := scaffold.File{Path: "cmd/main.go", Content: []byte(read(t, dir, "cmd/main.go"))}
	mustContain(t, main,
		"\tcronjobcontroller \"my.domain/guestbook/internal/controller/cronjob\"\n\tguestbookcontroller \"my.domain/guestbook/internal/controller/guestbook\"\n\tmemcachedcontroller \"my.domain/guestbook/internal/controller/memcached\"\n",
		"\tmanager.Register(guestbookcontroller.ControllerName, guestbookcontroller.Init)\n\tmanager.Register(memcachedcontroller.ControllerName, memcachedcontroller.Init)\n\tmanager.Register(cronjobcontroller.ControllerName, cronjobcontroller.Init)\n\t// ctrlgen:scaffold:register\n")
	mustContain(t, scaffold.File{Path: "config/crd/kustomization.yaml", Content: []byte(read(t, dir, "config/crd/kustomization.yaml"))},
		"resources:\n- webapp.my.domain_guestbooks.yaml\n- webapp.my.domain_memcacheds.yaml\n- batch.my.domain_cronjobs.yaml\n# ctrlgen:scaffold:crds\n")
	mustContain(t, scaffold.File{Path: "PROJECT", Content: []byte(read(t, dir, "PROJECT"))}, "kind: Guestbook", "kind: Memcached", "kind: CronJob\n  plural: cronjobs\n  namespaced: false\n")

	_, err := scaffold.CreateAPI(os.DirFS(dir), scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	if err == nil || !strings.Contains(err.Error(), "webapp/v1, Kind=Guestbook is in PROJECT already") {
		t.Errorf("the same kind again: %v", err)
	}
	_, err = scaffold.CreateAPI(os.DirFS(dir), scaffold.APIOptions{Group: "batch", Version: "v1", Kind: "CronJob", Resource: true, Controller: true})
	if err == nil || !strings.Contains(err.Error(), "internal/controller/cronjob") {
		t.Errorf("a second controller package internal/controller/cronjob: %v", err)
	}
}

// TestCreateAPIRefusesToOverwrite: a types file the user wrote by hand is
// in the way.
func TestCreateAPIRefusesToOverwrite(t *testing.T) {
	dir := newProject(t)
	if err := os.MkdirAll(filepath.Join(dir, "api/webapp/v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "api/webapp/v1/guestbook_types.go"), []byte("package v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := scaffold.CreateAPI(os.DirFS(dir), scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := scaffold.Write(dir, files); err == nil || !strings.Contains(err.Error(), "not overwriting what is there: api/webapp/v1/guestbook_types.go") {
		t.Errorf("write: %v", err)
	}
	if read(t, dir, "api/webapp/v1/guestbook_types.go") != "package v1\n" || strings.Contains(read(t, dir, "cmd/main.go"), "guestbookcontroller") {
		t.Error("a refused create api changed files")
	}
}

// TestCreateAPIControllerLater: a kind without a controller, then its
// controller with --resource=false.
func TestCreateAPIControllerLater(t *testing.T) {
	dir := newProject(t)
	got := createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true})
	if _, ok := got["cmd/main.go"]; ok {
		t.Error("a kind without a controller changes cmd/main.go")
	}
	if strings.Contains(string(got["api/webapp/v1/guestbook_types.go"].Content), "+ctrlgen:controller") {
		t.Error("a kind without a controller has +ctrlgen:controller")
	}
	got = createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Controller: true})
	want := []string{"PROJECT", "api/webapp/v1/guestbook_types.go", "cmd/main.go", "internal/controller/guestbook/guestbook_controller_test.go"}
	if p := slices.Sorted(maps.Keys(got)); !slices.Equal(p, want) {
		t.Errorf("files %q, want %q", p, want)
	}
	mustContain(t, got["api/webapp/v1/guestbook_types.go"], "// +kubebuilder:subresource:status\n// +ctrlgen:controller\ntype Guestbook struct {")
	mustContain(t, got["cmd/main.go"], "manager.Register(guestbookcontroller.ControllerName, guestbookcontroller.Init)")
	mustContain(t, got["PROJECT"], "controller: true")

	for _, tc := range []struct {
		o    scaffold.APIOptions
		want string
	}{
		{scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Controller: true}, "webapp/v1, Kind=Guestbook has a controller already"},
		{scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Other", Controller: true}, "webapp/v1, Kind=Other is not in PROJECT"},
	} {
		if _, err := scaffold.CreateAPI(os.DirFS(dir), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Book", Resource: true})
	_, err := scaffold.CreateAPI(os.DirFS(dir), scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Book", Namespaced: new(false), Controller: true})
	if err == nil || !strings.Contains(err.Error(), "--namespaced=false, but webapp/v1, Kind=Book is namespaced=true") {
		t.Errorf("--resource=false --namespaced=false on a namespaced kind: %v", err)
	}
}

func TestCreateAPIRefusesBadFlags(t *testing.T) {
	dir := newProject(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--group", "webapp", "--version", "v1"}, "--kind is required"},
		{[]string{"--version", "v1", "--kind", "Guestbook"}, "--group is required"},
		{[]string{"--group", "webapp", "--kind", "Guestbook"}, "--version is required"},
		{[]string{"--group", "Web_App", "--version", "v1", "--kind", "Guestbook"}, `--group "Web_App" is not a DNS label`},
		{[]string{"--group", "webapp", "--version", "1", "--kind", "Guestbook"}, `--version "1" is not a Kubernetes API version`},
		{[]string{"--group", "webapp", "--version", "v1alpha", "--kind", "Guestbook"}, `--version "v1alpha" is not`},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "guestbook"}, `--kind "guestbook" is not a kind`},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guest-Book"}, `--kind "Guest-Book" is not a kind`},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Map"}, "would be called map, a Go keyword"},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--plural", "Guestbooks"}, `--plural "Guestbooks" is not a resource name`},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--resource=false", "--controller=false"}, "nothing to create"},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook", "extra"}, "takes no arguments"},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--nonsense"}, "flag provided but not defined: -nonsense"},
	} {
		err := scaffold.Main(append([]string{"create", "api"}, tc.args...), dir, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("create api %q: %v, want %q", tc.args, err, tc.want)
		}
	}
	if strings.Contains(read(t, dir, "PROJECT"), "resources") {
		t.Error("a refused create api changed PROJECT")
	}
	err := scaffold.Main([]string{"create", "api", "--group", "webapp", "--version", "v1", "--kind", "Guestbook"}, t.TempDir(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no PROJECT file here") {
		t.Errorf("create api outside a project: %v", err)
	}
}

// TestCreateAPIPlural: --plural names the resource, its CRD file and the
// kubebuilder:resource marker; the Go names stay the kind's plural.
func TestCreateAPIPlural(t *testing.T) {
	dir := newProject(t)
	got := createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Plural: "books", Resource: true, Controller: true})
	mustContain(t, got["api/webapp/v1/guestbook_types.go"], "+kubebuilder:resource:path=books,scope=Namespaced\n")
	mustContain(t, got["config/crd/kustomization.yaml"], "- webapp.my.domain_books.yaml\n")
	mustContain(t, got["internal/controller/guestbook/guestbook_controller_test.go"], `client.WebappV1().Guestbooks("default")`)
}

func TestMainCommands(t *testing.T) {
	for _, args := range [][]string{{"init", "--help"}, {"create", "api", "-h"}, {"create", "--help"}} {
		var stderr bytes.Buffer
		if err := scaffold.Main(args, t.TempDir(), io.Discard, &stderr); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr.String(), "usage: ctrlgen") {
			t.Errorf("%q: %v\n%s", args, err, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if err := scaffold.Main([]string{"create", "webhook", "--help"}, t.TempDir(), io.Discard, &stderr); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr.String(), "usage: ctrlgen create webhook --group GROUP --version VERSION --kind KIND") {
		t.Errorf("create webhook --help: %v\n%s", err, stderr.String())
	}
	if err := scaffold.Main([]string{"create", "controller"}, t.TempDir(), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "usage: ctrlgen create api") || !strings.Contains(err.Error(), "ctrlgen create webhook") {
		t.Errorf("create controller: %v", err)
	}
	// A test binary has no module version.
	err := scaffold.Main([]string{"init", "--domain", "my.domain", "--repo", "my.domain/guestbook"}, t.TempDir(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "built from a checkout") || !strings.Contains(err.Error(), "--ctrlgen-version") {
		t.Errorf("init without a version: %v", err)
	}
}

// TestMainInitTidies runs init with a go command that records what it
// is asked, and one that fails.
func TestMainInitTidies(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for go")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	script := "#!/bin/sh\necho \"$(pwd) $*\" >> " + log + "\n[ -z \"$FAIL\" ]\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	args := []string{"init", "--domain", "my.domain", "--repo", "my.domain/guestbook", "--ctrlgen-version", "v0.1.0"}

	dir := filepath.Join(t.TempDir(), "guestbook")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := scaffold.Main(args, dir, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(log); string(got) != dir+" mod tidy\n" {
		t.Errorf("go was run as %q, want go mod tidy in %s", got, dir)
	}
	if !strings.Contains(read(t, dir, "PROJECT"), "projectName: guestbook\n") {
		t.Error("the project is not named after its directory")
	}
	err := scaffold.Main(args, dir, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not overwriting what is there:") || !strings.Contains(err.Error(), "go.mod") || !strings.Contains(err.Error(), "cmd/main.go") {
		t.Errorf("init again: %v", err)
	}

	os.Remove(log)
	if err := scaffold.Main(append(args, "--skip-tidy"), t.TempDir(), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(log); !errors.Is(err, os.ErrNotExist) {
		t.Error("--skip-tidy ran go")
	}

	t.Setenv("FAIL", "1")
	if err := scaffold.Main(args, t.TempDir(), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "go mod tidy: exit status 1; the files are written") {
		t.Errorf("a failing go mod tidy: %v", err)
	}
}

// TestCreateAPISecondVersion: a kind's second version shares its CRD,
// and the controller package is the first version's.
func TestCreateAPISecondVersion(t *testing.T) {
	dir := newProject(t)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	_, err := scaffold.CreateAPI(os.DirFS(dir), scaffold.APIOptions{Group: "webapp", Version: "v2", Kind: "Guestbook", Resource: true, Controller: true})
	if err == nil || !strings.Contains(err.Error(), "give this one --controller=false") {
		t.Errorf("a second controller of Guestbook: %v", err)
	}
	got := createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v2", Kind: "Guestbook", Resource: true})
	if _, ok := got["config/crd/kustomization.yaml"]; ok {
		t.Error("config/crd lists the CRD of Guestbook twice")
	}
	mustContain(t, got["api/webapp/v2/doc.go"], "package v2\n")
	mustContain(t, got["config/samples/kustomization.yaml"], "- webapp_v1_guestbook.yaml\n- webapp_v2_guestbook.yaml\n")
}

package scaffold_test

import (
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlgen/ctrlgen/internal/scaffold"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// createWebhook runs create webhook in dir and returns its files, by path.
func createWebhook(t *testing.T, dir string, o scaffold.WebhookOptions) map[string]scaffold.File {
	t.Helper()
	files, err := scaffold.CreateWebhook(os.DirFS(dir), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := scaffold.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	got := byPath(t, files)
	for _, f := range files {
		if f.Update && f.Path != "PROJECT" && f.Change == "" {
			t.Errorf("the update of %s does not say what it changes", f.Path)
		}
	}
	return got
}

func file(t *testing.T, dir, name string) scaffold.File {
	t.Helper()
	return scaffold.File{Path: name, Content: []byte(read(t, dir, name))}
}

func TestCreateWebhook(t *testing.T) {
	dir := newProject(t)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	types := read(t, dir, "api/webapp/v1/guestbook_types.go")
	// Before: init's kustomizations, with their empty patches, build.
	fakeGenerated(t, dir, "guestbooks")
	for _, o := range kustomizeBuild(t, filepath.Join(dir, "config", "default")) {
		if k := o.GetKind(); k == "MutatingWebhookConfiguration" || k == "ValidatingWebhookConfiguration" || k == "Service" && strings.Contains(o.GetName(), "webhook") {
			t.Errorf("config/default has %s %s before create webhook", o.GetKind(), o.GetName())
		}
	}
	got := createWebhook(t, dir, scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Defaulting: true, Validation: true})
	want := []string{"PROJECT", "api/webapp/v1/guestbook_types.go", "cmd/main.go", "config/default/kustomization.yaml",
		"config/default/manager_webhook_patch.yaml", "config/default/webhook_service_patch.yaml"}
	if p := slices.Sorted(maps.Keys(got)); !slices.Equal(p, want) {
		t.Errorf("files %q, want %q", p, want)
	}
	// One line added to the types, nothing else.
	marked := got["api/webapp/v1/guestbook_types.go"]
	if w := strings.Replace(types, "// +ctrlgen:controller\n", "// +ctrlgen:controller\n// +ctrlgen:webhook:defaulting,validation\n", 1); string(marked.Content) != w {
		t.Errorf("types:\n%s\nwant:\n%s", marked.Content, w)
	}
	if marked.Change != "+ctrlgen:webhook:defaulting,validation" {
		t.Errorf("types change %q", marked.Change)
	}
	mustContain(t, got["cmd/main.go"],
		"//go:generate go tool ctrlgen --output-dir ../pkg/generated --controllers-dir ../internal/controller --crd-dir ../config/crd --rbac-dir ../config/rbac --webhook-dir ../config/webhook ../api/...\n",
		"\tguestbookwebhook \"my.domain/guestbook/internal/webhooks/guestbook\"\n\t// ctrlgen:scaffold:imports\n",
		"\tm := manager.New(opts)\n\t// ctrlgen create webhook registers the kinds' webhooks on m here.\n\tguestbookwebhook.Register(m)\n\t// ctrlgen:scaffold:webhooks\n")
	if c := got["cmd/main.go"].Change; c != "--webhook-dir ../config/webhook, guestbookwebhook.Register(m)" {
		t.Errorf("cmd/main.go change %q", c)
	}
	mustContain(t, got["config/default/kustomization.yaml"], "- metrics_service.yaml\n", "- ../webhook\n# ctrlgen:scaffold:resources\n",
		"patches:\n- path: manager_webhook_patch.yaml\n  target:\n    kind: Deployment\n    name: controller-manager\n- path: webhook_service_patch.yaml\n# ctrlgen:scaffold:patches\n")
	mustContain(t, got["config/default/manager_webhook_patch.yaml"], "value: --webhook-service=guestbook-webhook-service\n", "value: --webhook-secret=guestbook-webhook-server-cert\n", "containerPort: 9443\n")
	mustContain(t, got["PROJECT"], "  webhooks:\n    defaulting: true\n    validation: true\n")
	checkDeploy(t, dir, true, false)
}

// TestCreateWebhookConversion: conversion needs two versions, marks the
// hub storage version when none is, and patches the CRD.
func TestCreateWebhookConversion(t *testing.T) {
	dir := newProject(t)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	conversion := scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Conversion: true}
	if _, err := scaffold.CreateWebhook(os.DirFS(dir), conversion); err == nil || !strings.Contains(err.Error(), "no other version in PROJECT to convert to; add one first, e.g. ctrlgen create api --group webapp --version v2 --kind Guestbook --controller=false") {
		t.Errorf("conversion of one version: %v", err)
	}
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v2", Kind: "Guestbook", Resource: true})
	v2 := read(t, dir, "api/webapp/v2/guestbook_types.go")
	got := createWebhook(t, dir, scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Defaulting: true, Validation: true, Conversion: true})
	want := []string{"PROJECT", "api/webapp/v1/guestbook_types.go", "cmd/main.go", "config/crd/kustomization.yaml", "config/crd/kustomizeconfig.yaml",
		"config/default/kustomization.yaml", "config/default/manager_webhook_patch.yaml", "config/default/webhook_service_patch.yaml"}
	if p := slices.Sorted(maps.Keys(got)); !slices.Equal(p, want) {
		t.Errorf("files %q, want %q", p, want)
	}
	if read(t, dir, "api/webapp/v2/guestbook_types.go") != v2 {
		t.Error("the spoke's types changed")
	}
	mustContain(t, got["api/webapp/v1/guestbook_types.go"], "// +ctrlgen:controller\n// +ctrlgen:webhook:defaulting,validation,conversion\n// +kubebuilder:storageversion\ntype Guestbook struct {")
	if c := got["api/webapp/v1/guestbook_types.go"].Change; c != "+kubebuilder:storageversion (the hub), +ctrlgen:webhook:defaulting,validation,conversion" {
		t.Errorf("types change %q", c)
	}
	mustContain(t, got["cmd/main.go"],
		"\t\"my.domain/guestbook/internal/webhooks\"\n\tguestbookwebhook \"my.domain/guestbook/internal/webhooks/guestbook\"\n",
		"\tguestbookwebhook.Register(m)\n\twebhooks.RegisterConversion(m)\n\t// ctrlgen:scaffold:webhooks\n")
	mustContain(t, got["config/crd/kustomization.yaml"], "patches:\n- path: patches/webhook_in_guestbooks.yaml\n# ctrlgen:scaffold:crdpatches\nconfigurations:\n- kustomizeconfig.yaml\n# ctrlgen:scaffold:crdconfigurations\n")
	mustContain(t, got["PROJECT"], "  webhooks:\n    defaulting: true\n    validation: true\n    conversion: true\n")

	fakeGenerated(t, dir, "guestbooks")
	checkDeploy(t, dir, true, true)

	// A second kind with two versions, whose spoke is marked storage by
	// hand: its hub is that one, and the version given just carries the
	// marker.
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Book", Resource: true})
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v2", Kind: "Book", Resource: true})
	bookV2 := "api/webapp/v2/book_types.go"
	testmod.Write(t, filepath.Join(dir, bookV2), []byte(strings.Replace(read(t, dir, bookV2), "type Book struct", "// +kubebuilder:storageversion\ntype Book struct", 1)))
	got = createWebhook(t, dir, scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Book", Conversion: true})
	want = []string{"PROJECT", "api/webapp/v1/book_types.go", "config/crd/kustomization.yaml"}
	if p := slices.Sorted(maps.Keys(got)); !slices.Equal(p, want) {
		t.Errorf("files %q, want %q", p, want)
	}
	if c := got["api/webapp/v1/book_types.go"].Change; c != "+ctrlgen:webhook:conversion" {
		t.Errorf("types change %q", c)
	}
	if c := strings.Count(read(t, dir, "cmd/main.go"), "webhooks.RegisterConversion(m)"); c != 1 {
		t.Errorf("cmd/main.go registers the conversions %d times", c)
	}
	mustContain(t, got["config/crd/kustomization.yaml"], "- path: patches/webhook_in_guestbooks.yaml\n- path: patches/webhook_in_books.yaml\n# ctrlgen:scaffold:crdpatches\nconfigurations:\n- kustomizeconfig.yaml\n# ctrlgen:scaffold:crdconfigurations\n")

	// Two storage versions.
	for _, v := range []string{"v1", "v2"} {
		name := "api/webapp/" + v + "/memcached_types.go"
		createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: v, Kind: "Memcached", Resource: true})
		testmod.Write(t, filepath.Join(dir, name), []byte(strings.Replace(read(t, dir, name), "type Memcached struct", "// +kubebuilder:storageversion\ntype Memcached struct", 1)))
	}
	if _, err := scaffold.CreateWebhook(os.DirFS(dir), scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Memcached", Conversion: true}); err == nil || !strings.Contains(err.Error(), "versions v1, v2 of webapp/Memcached are all marked +kubebuilder:storageversion") {
		t.Errorf("two storage versions: %v", err)
	}
}

// TestCreateWebhookTwice: again, nothing is added twice; more webhooks
// merge into the marker; a second kind adds its registration only.
func TestCreateWebhookTwice(t *testing.T) {
	dir := newProject(t)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	// A marker written by hand, which create webhook merges into.
	types := "api/webapp/v1/guestbook_types.go"
	testmod.Write(t, filepath.Join(dir, types), []byte(strings.Replace(read(t, dir, types), "// +ctrlgen:controller\n", "// +ctrlgen:controller\n// +ctrlgen:webhook:validation\n", 1)))
	defaulting := scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Defaulting: true}
	got := createWebhook(t, dir, defaulting)
	mustContain(t, got[types], "// +ctrlgen:controller\n// +ctrlgen:webhook:defaulting,validation\ntype Guestbook struct {")
	before := map[string]string{}
	for _, name := range []string{types, "cmd/main.go", "config/default/kustomization.yaml", "PROJECT"} {
		before[name] = read(t, dir, name)
	}
	for _, o := range []scaffold.WebhookOptions{defaulting, {Group: "webapp", Version: "v1", Kind: "Guestbook", Defaulting: true, Validation: true}} {
		_, err := scaffold.CreateWebhook(os.DirFS(dir), o)
		if err == nil || !strings.Contains(err.Error(), "nothing to do: webapp/v1, Kind=Guestbook has +ctrlgen:webhook:") {
			t.Errorf("again: %v", err)
		}
	}
	for name, content := range before {
		if read(t, dir, name) != content {
			t.Errorf("%s changed", name)
		}
	}

	// Yours, kept: a later create webhook writes neither patch again.
	patch := filepath.Join(dir, "config/default/manager_webhook_patch.yaml")
	testmod.Write(t, patch, []byte("# mine\n"))
	createAPI(t, dir, scaffold.APIOptions{Group: "batch", Version: "v1", Kind: "CronJob", Resource: true, Controller: true})
	got = createWebhook(t, dir, scaffold.WebhookOptions{Group: "batch", Version: "v1", Kind: "CronJob", Validation: true})
	if p := slices.Sorted(maps.Keys(got)); !slices.Equal(p, []string{"PROJECT", "api/batch/v1/cronjob_types.go", "cmd/main.go"}) {
		t.Errorf("a second kind's webhook: files %q", p)
	}
	if read(t, dir, "config/default/manager_webhook_patch.yaml") != "# mine\n" {
		t.Error("the manager's webhook patch was rewritten")
	}
	main := read(t, dir, "cmd/main.go")
	for line, n := range map[string]int{"--webhook-dir": 1, "guestbookwebhook.Register(m)": 1, "cronjobwebhook.Register(m)": 1, `"my.domain/guestbook/internal/webhooks/cronjob"`: 1} {
		if c := strings.Count(main, line); c != n {
			t.Errorf("cmd/main.go has %q %d times, want %d:\n%s", line, c, n, main)
		}
	}
	if c := strings.Count(read(t, dir, "config/default/kustomization.yaml"), "- ../webhook\n"); c != 1 {
		t.Errorf("config/default lists ../webhook %d times", c)
	}
}

func TestCreateWebhookRefuses(t *testing.T) {
	dir := newProject(t)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v2", Kind: "Guestbook", Resource: true})
	// The versions differ, or they would need no conversion; and ctrlgen
	// (this checkout) then writes a guestbook_conversion.go that imports
	// the hub and declares nothing, which does not compile.
	v2 := filepath.Join(dir, "api/webapp/v2/guestbook_types.go")
	testmod.Write(t, v2, []byte(strings.Replace(read(t, dir, "api/webapp/v2/guestbook_types.go"), "Foo string `json:\"foo,omitempty\"`", "Bar string `json:\"bar,omitempty\"`", 1)))
	createWebhook(t, dir, scaffold.WebhookOptions{Group: "webapp", Version: "v2", Kind: "Guestbook", Defaulting: true})
	before := map[string]string{}
	for _, name := range []string{"api/webapp/v1/guestbook_types.go", "cmd/main.go", "PROJECT"} {
		before[name] = read(t, dir, name)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook"}, "give at least one of --defaulting, --programmatic-validation and --conversion"},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Other", "--defaulting"}, "webapp/v1, Kind=Other is not in PROJECT: ctrlgen gives webhooks to the kinds of the project; add it first with ctrlgen create api --group webapp --version v1 --kind Other"},
		{[]string{"--version", "v1", "--kind", "Guestbook", "--defaulting"}, "--group is required"},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--programmatic-validation"}, "webapp/v2, Kind=Guestbook has +ctrlgen:webhook with defaulting or validation in api/webapp/v2/guestbook_types.go already"},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--defaulting", "extra"}, "takes no arguments"},
		{[]string{"--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--validation"}, "flag provided but not defined: -validation"},
	} {
		err := scaffold.Main(append([]string{"create", "webhook"}, tc.args...), dir, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("create webhook %q: %v, want %q", tc.args, err, tc.want)
		}
	}
	for name, content := range before {
		if read(t, dir, name) != content {
			t.Errorf("a refused create webhook changed %s", name)
		}
	}

	// The types file as the user left it.
	types := filepath.Join(dir, "api/webapp/v1/guestbook_types.go")
	src := before["api/webapp/v1/guestbook_types.go"]
	for _, tc := range []struct {
		content, want string
	}{
		{strings.Replace(src, "// +ctrlgen:controller\n", "// +ctrlgen:controller\n// +ctrlgen:webhook:defaulting\n// +ctrlgen:webhook:validation\n", 1), "two +ctrlgen:webhook: markers on one type"},
		{strings.Replace(src, "// +ctrlgen:controller\n", "// +ctrlgen:controller\n// +ctrlgen:webhook:defaulting,mutating\n", 1), `"mutating" is none of defaulting, validation, conversion`},
		{strings.Replace(src, "type Guestbook struct", "type Guestbook2 struct", 1), "no type Guestbook in api/webapp/v1"},
	} {
		testmod.Write(t, types, []byte(tc.content))
		_, err := scaffold.CreateWebhook(os.DirFS(dir), scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Conversion: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
	testmod.Write(t, types, []byte(src))
	testmod.Write(t, filepath.Join(dir, "api/webapp/v1/more.go"), []byte("package v1\n\ntype Guestbook struct{}\n"))
	if _, err := scaffold.CreateWebhook(os.DirFS(dir), scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Conversion: true}); err == nil || !strings.Contains(err.Error(), "type Guestbook is declared in api/webapp/v1/guestbook_types.go and api/webapp/v1/more.go") {
		t.Errorf("a type declared twice: %v", err)
	}

	err := scaffold.Main([]string{"create", "webhook", "--group", "webapp", "--version", "v1", "--kind", "Guestbook", "--defaulting"}, t.TempDir(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no PROJECT file here") {
		t.Errorf("outside a project: %v", err)
	}
}

// TestCreateWebhookGenerateLine: the flag goes before the packages of
// a go:generate line the user changed, or is found there.
func TestCreateWebhookGenerateLine(t *testing.T) {
	for _, tc := range []struct{ line, want, err string }{
		{"//go:generate go tool ctrlgen --quiet --output-dir ../pkg/generated -crd-dir=../config/crd ../api/... ../other/...",
			"//go:generate go tool ctrlgen --quiet --output-dir ../pkg/generated -crd-dir=../config/crd --webhook-dir ../config/webhook ../api/... ../other/...", ""},
		{"//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --output-dir ../pkg/generated ../api/...",
			"//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --output-dir ../pkg/generated --webhook-dir ../config/webhook ../api/...", ""},
		{"//go:generate go tool ctrlgen --output-dir ../pkg/generated --webhook-dir=../config/webhook/ ../api/...",
			"//go:generate go tool ctrlgen --output-dir ../pkg/generated --webhook-dir=../config/webhook/ ../api/...", ""},
		{"//go:generate go tool ctrlgen --output-dir ../pkg/generated --webhook-dir ../deploy/webhook ../api/...", "", "go:generate line has --webhook-dir ../deploy/webhook"},
		{"//go:generate go tool controller-gen object paths=../api/...", "", "no //go:generate line running ctrlgen"},
	} {
		dir := newProject(t)
		createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
		main := read(t, dir, "cmd/main.go")
		lines := strings.Split(main, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "//go:generate") {
				lines[i] = tc.line
			}
		}
		testmod.Write(t, filepath.Join(dir, "cmd/main.go"), []byte(strings.Join(lines, "\n")))
		files, err := scaffold.CreateWebhook(os.DirFS(dir), scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Defaulting: true})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, byPath(t, files)["cmd/main.go"], "\n"+tc.want+"\n")
	}
}

// fakeGenerated writes what make generate would for the kind of plural
// in webapp.my.domain, for kustomize: its CRD, config/rbac and
// config/webhook (examples/mydemo's, whose Service selects pods by another
// name, as a module named other than the project does), and the CRD's
// conversion patch as ctrlgen writes it.
func fakeGenerated(t *testing.T, dir, plural string) {
	t.Helper()
	mydemo := filepath.Join(testmod.RepoRoot(), "examples", "mydemo", "config")
	testmod.Copy(t, filepath.Join(mydemo, "rbac"), filepath.Join(dir, "config", "rbac"), nil)
	testmod.Copy(t, filepath.Join(mydemo, "webhook"), filepath.Join(dir, "config", "webhook"), nil)
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.webapp.my.domain
spec:
  group: webapp.my.domain
  names:
    kind: Guestbook
    listKind: GuestbookList
    plural: ` + plural + `
    singular: guestbook
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
`
	testmod.Write(t, filepath.Join(dir, "config", "crd", "webapp.my.domain_"+plural+".yaml"), []byte(crd))
	patch := strings.ReplaceAll(read(t, filepath.Join(mydemo, "crd", "patches"), "webhook_in_mydemos.yaml"), "mydemos.crddemo.k8s.io", plural+".webapp.my.domain")
	testmod.Write(t, filepath.Join(dir, "config", "crd", "patches", "webhook_in_"+plural+".yaml"), []byte(patch))
}

// TestCreateWebhookConversionAlone: a kind with two versions gets a
// conversion webhook with no admission webhook in the project; deployed,
// its CRD calls the webhook Service ctrlgen writes for conversions alone.
func TestCreateWebhookConversionAlone(t *testing.T) {
	dir := newProject(t)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v2", Kind: "Guestbook", Resource: true})
	got := createWebhook(t, dir, scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Conversion: true})
	want := []string{"PROJECT", "api/webapp/v1/guestbook_types.go", "cmd/main.go", "config/crd/kustomization.yaml", "config/crd/kustomizeconfig.yaml",
		"config/default/kustomization.yaml", "config/default/manager_webhook_patch.yaml", "config/default/webhook_service_patch.yaml"}
	if p := slices.Sorted(maps.Keys(got)); !slices.Equal(p, want) {
		t.Errorf("files %q, want %q", p, want)
	}
	mustContain(t, got["cmd/main.go"], "\twebhooks.RegisterConversion(m)\n\t// ctrlgen:scaffold:webhooks\n")

	fakeGenerated(t, dir, "guestbooks")
	// config/webhook as ctrlgen writes it for conversions alone (golden
	// generators/testdata/conversion), not mydemo's admission webhooks.
	webhookDir := filepath.Join(dir, "config", "webhook")
	if err := os.RemoveAll(webhookDir); err != nil {
		t.Fatal(err)
	}
	testmod.Copy(t, filepath.Join(testmod.RepoRoot(), "generators", "testdata", "conversion", "out", "config", "webhook"), webhookDir, nil)
	checkDeploy(t, dir, false, true)
}

// checkDeploy builds config/default and checks that the webhook
// configurations (with admission) and the CRD (with conversion) call the
// webhook Service by its prefixed name and namespace, that the Service
// selects the manager's pods, and that the manager is told that
// Service's name.
func checkDeploy(t *testing.T, dir string, admission, conversion bool) {
	t.Helper()
	objs := kustomizeBuild(t, filepath.Join(dir, "config", "default"))
	byKind := map[string][]*unstructured.Unstructured{}
	for _, o := range objs {
		byKind[o.GetKind()] = append(byKind[o.GetKind()], o)
	}
	const service, namespace = "guestbook-webhook-service", "guestbook-system"
	var svc, deploy *unstructured.Unstructured
	for _, o := range byKind["Service"] {
		if o.GetName() == service {
			svc = o
		}
	}
	for _, o := range byKind["Deployment"] {
		if o.GetName() == "guestbook-controller-manager" {
			deploy = o
		}
	}
	if svc == nil || deploy == nil || svc.GetNamespace() != namespace || deploy.GetNamespace() != namespace {
		t.Fatalf("config/default has no Service %s and Deployment guestbook-controller-manager in %s: %v %v", service, namespace, svc, deploy)
	}
	calls := func(o *unstructured.Unstructured, cc map[string]any) {
		name, _, _ := unstructured.NestedString(cc, "service", "name")
		ns, _, _ := unstructured.NestedString(cc, "service", "namespace")
		if name != service || ns != namespace {
			t.Errorf("%s %s calls Service %s/%s, want %s/%s", o.GetKind(), o.GetName(), ns, name, namespace, service)
		}
	}
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		if !admission {
			if len(byKind[kind]) != 0 {
				t.Errorf("config/default has a %s, and the project no admission webhook", kind)
			}
			continue
		}
		if len(byKind[kind]) != 1 {
			t.Fatalf("config/default has %d %s", len(byKind[kind]), kind)
		}
		o := byKind[kind][0]
		hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		if len(hooks) == 0 {
			t.Errorf("%s has no webhooks", kind)
		}
		for _, h := range hooks {
			cc, _, _ := unstructured.NestedMap(h.(map[string]any), "clientConfig")
			calls(o, cc)
		}
	}
	if conversion {
		found := false
		for _, o := range byKind["CustomResourceDefinition"] {
			if cc, ok, _ := unstructured.NestedMap(o.Object, "spec", "conversion", "webhook", "clientConfig"); ok {
				found = true
				calls(o, cc)
			}
		}
		if !found {
			t.Error("no CRD has a conversion webhook")
		}
	}

	containers, _, _ := unstructured.NestedSlice(deploy.Object, "spec", "template", "spec", "containers")
	manager := containers[0].(map[string]any)
	args, _, _ := unstructured.NestedStringSlice(manager, "args")
	for _, a := range []string{"--webhook-service=" + service, "--webhook-secret=guestbook-webhook-server-cert", "--leader-elect-namespace=$(POD_NAMESPACE)"} {
		if !slices.Contains(args, a) {
			t.Errorf("the manager's args %q lack %s", args, a)
		}
	}
	ports, _, _ := unstructured.NestedSlice(manager, "ports")
	if !slices.ContainsFunc(ports, func(p any) bool { return p.(map[string]any)["containerPort"] == int64(9443) }) {
		t.Errorf("the manager's ports %v lack 9443", ports)
	}
	selector, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
	labels, _, _ := unstructured.NestedStringMap(deploy.Object, "spec", "template", "metadata", "labels")
	for k, v := range selector {
		if labels[k] != v {
			t.Errorf("the webhook Service selects %s=%s; the manager's pods have %v", k, v, labels)
		}
	}
	target, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	if len(target) != 1 || target[0].(map[string]any)["targetPort"] != int64(9443) {
		t.Errorf("the webhook Service's ports %v", target)
	}
}

// TestCreateWebhookGenerates: after init, create api, create webhook
// --defaulting --programmatic-validation, a second version and create
// webhook --conversion, this checkout's ctrlgen, run with the go:generate
// line's arguments, writes the webhook packages, the conversions and
// config/webhook; the project builds, and config/default deploys the
// webhooks and the CRD calling its Service.
func TestCreateWebhookGenerates(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctrlgen and a project")
	}
	root, err := filepath.Abs(testmod.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	dir := newProject(t)
	replaces, err := testmod.Replaces(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := read(t, dir, "go.mod") + "\nreplace (\n\t" + strings.Join(replaces, "\n\t") + "\n)\n"
	testmod.Write(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	var sums []byte
	for _, m := range []string{".", "runtime", "runtime/manager"} {
		b, err := os.ReadFile(filepath.Join(root, m, "go.sum"))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, b...)
	}
	testmod.Write(t, filepath.Join(dir, "go.sum"), sums)
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Resource: true, Controller: true})
	createWebhook(t, dir, scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Defaulting: true, Validation: true})
	// And a second version, converted.
	createAPI(t, dir, scaffold.APIOptions{Group: "webapp", Version: "v2", Kind: "Guestbook", Resource: true})
	// The versions differ, or they would need no conversion; and ctrlgen
	// (this checkout) then writes a guestbook_conversion.go that imports
	// the hub and declares nothing, which does not compile.
	v2 := filepath.Join(dir, "api/webapp/v2/guestbook_types.go")
	testmod.Write(t, v2, []byte(strings.Replace(read(t, dir, "api/webapp/v2/guestbook_types.go"), "Foo string `json:\"foo,omitempty\"`", "Bar string `json:\"bar,omitempty\"`", 1)))
	createWebhook(t, dir, scaffold.WebhookOptions{Group: "webapp", Version: "v1", Kind: "Guestbook", Conversion: true})
	mustContain(t, file(t, dir, "api/webapp/v1/guestbook_types.go"), "// +ctrlgen:webhook:defaulting,validation,conversion\n// +kubebuilder:storageversion\ntype Guestbook struct {")

	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	goCmd := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	ctrlgen := filepath.Join(t.TempDir(), "ctrlgen")
	cmd := exec.Command("go", "build", "-o", ctrlgen, "./cmd/ctrlgen")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building ctrlgen: %v\n%s", err, out)
	}
	var args []string
	for _, l := range strings.Split(read(t, dir, "cmd/main.go"), "\n") {
		if rest, ok := strings.CutPrefix(l, "//go:generate go tool ctrlgen "); ok {
			args = strings.Fields(rest)
		}
	}
	if !slices.Contains(args, "--webhook-dir") {
		t.Fatalf("no go:generate line with --webhook-dir: %q", args)
	}
	gen := exec.Command(ctrlgen, args...)
	gen.Dir, gen.Env = filepath.Join(dir, "cmd"), env
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("ctrlgen %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, f := range []string{"internal/webhooks/guestbook/webhook.go", "internal/webhooks/guestbook/zz_generated.webhook.go",
		"config/webhook/manifests.yaml", "config/webhook/service.yaml", "config/webhook/kustomization.yaml", "config/rbac/webhook_cert_role.yaml",
		"internal/webhooks/zz_generated.conversion.go", "api/webapp/v2/zz_generated.conversion.go", "config/crd/patches/webhook_in_guestbooks.yaml"} {
		if !testmod.Exists(filepath.Join(dir, f)) {
			t.Errorf("ctrlgen wrote no %s", f)
		}
	}
	mustContain(t, file(t, dir, "internal/webhooks/guestbook/zz_generated.webhook.go"), "package guestbook\n", "func Register(m *manager.Manager) {")
	// The functions ctrlgen declares for the user to write: as a user
	// would, give them bodies.
	userConversions := "api/webapp/v2/guestbook_conversion.go"
	conv := read(t, dir, userConversions)
	bodyless := regexp.MustCompile(`(?m)^(func \w+\(in \*[\w.]+, out \*[\w.]+\) error)$`)
	if n := len(bodyless.FindAllString(conv, -1)); n != 2 {
		t.Fatalf("%s declares %d functions for the user, want 2 (GuestbookSpec to and from v1):\n%s", userConversions, n, conv)
	}
	testmod.Write(t, filepath.Join(dir, userConversions), []byte(bodyless.ReplaceAllString(conv, "$1 { return nil }")))
	goCmd(dir, "build", "-o", os.DevNull, "./...")
	goCmd(dir, "vet", "./cmd/...", "./internal/webhooks/...")
	checkDeploy(t, dir, true, true)
}

package generators_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// errorModule returns a module made from testdata/errors/in, generated
// once, so that a failing run has files it must leave alone.
func errorModule(t *testing.T) (string, ctrlgen.Config) {
	tmp := testmod.New(t, "testdata/errors/in", "example.com/errors")
	// CRDs and RBAC too: the error cases include those generators'.
	cfg := ctrlgen.Config{Dir: tmp, Patterns: []string{"./apis/..."}, OutputDir: "generated", CRDDir: "config/crd", RBACDir: "config/rbac", Stderr: &bytes.Buffer{}}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	return tmp, cfg
}

// edit replaces old with new in the module's types.go.
func edit(t *testing.T, dir, old, new string) {
	path := filepath.Join(dir, "apis/shop/v1/types.go")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("types.go has no %q", old)
	}
	testmod.Write(t, path, bytes.Replace(data, []byte(old), []byte(new), 1))
}

// treeHash hashes every file's path and content under dir.
func treeHash(t *testing.T, dir string) string {
	var names []string
	h := sha256.New()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, path)
		}
		return err
	})
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", n, len(data))
		h.Write(data)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestMarkerErrors: each bad marker fails the run with its file:line and
// what was expected, and leaves every file as it was.
func TestMarkerErrors(t *testing.T) {
	const marker = "// +genclient\n"
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"value on a flag", marker, "// +genclient=true\n",
			"apis/shop/v1/types.go:5: error: +genclient=true: takes no value"},
		{"verb typo", marker, marker + "// +genclient:onlyVerbs=get,lsit\n",
			`apis/shop/v1/types.go:6: error: +genclient:onlyVerbs=get,lsit: "lsit" is not one of create, update, updateStatus, delete, deleteCollection, get, list, watch, patch, apply, applyStatus (did you mean list?); expected +genclient:onlyVerbs=<verb>[,<verb>...]`},
		{"only and skip", marker, marker + "// +genclient:onlyVerbs=get,list\n// +genclient:skipVerbs=list\n",
			`apis/shop/v1/types.go:7: error: verb "list" is both allowed (+genclient:onlyVerbs or +genclient:readonly) and skipped (+genclient:skipVerbs)`},
		{"method verb", marker, marker + "// +genclient:method=Scale,verb=watch\n",
			`apis/shop/v1/types.go:6: error: +genclient:method=Scale,verb=watch: verb: "watch" is not one of create, update, get, list, patch, apply, applyStatus`},
		{"method input type", marker, marker + "// +genclient:method=GetScale,verb=get,subresource=scale,result=Scale\n",
			"apis/shop/v1/types.go:6: error: type Scale not found in package example.com/errors/apis/shop/v1"},
		{"ctrlgen typo", marker, marker + "// +ctrlgen:controler\n",
			"apis/shop/v1/types.go:6: error: unknown marker +ctrlgen:controler; did you mean +ctrlgen:controller?"},
		{"owns", marker, marker + "// +ctrlgen:controller\n// +ctrlgen:controller:owns=apps/v1\n",
			`apis/shop/v1/types.go:7: error: +ctrlgen:controller:owns=apps/v1: "apps/v1" does not end in .<Kind>; expected +ctrlgen:controller:owns=<group>/<version>.<Kind>`},
		{"owns option typo", marker, marker + "// +ctrlgen:controller\n// +ctrlgen:controller:owns=core/v1.Secret,metadataonly\n",
			`apis/shop/v1/types.go:7: error: +ctrlgen:controller:owns=core/v1.Secret,metadataonly: "metadataonly" after the kind is neither adopt=<selector field path> nor metadataOnly; did you mean metadataOnly?`},
		{"own kind as metadata", marker, marker + "// +ctrlgen:controller\n// +ctrlgen:controller:owns=shop.example.com/v1.Order,metadataOnly\n",
			"apis/shop/v1/types.go:7: error: +ctrlgen:controller:owns=shop.example.com/v1.Order,metadataOnly: Order is the controller's own kind, which it caches whole"},
		{"owns without controller", marker, marker + "// +ctrlgen:controller:owns=apps/v1.Deployment\n",
			"apis/shop/v1/types.go:8: error: +ctrlgen:controller:owns, :finalizer, :expectations, :statusApply and :filter need +ctrlgen:controller"},
		{"filter name", marker, marker + "// +ctrlgen:controller\n// +ctrlgen:controller:filter=generationChanged,ownStatusWrite\n",
			`apis/shop/v1/types.go:7: error: +ctrlgen:controller:filter=generationChanged,ownStatusWrite: "ownStatusWrite" is not one of generationChanged, labelsChanged, annotationsChanged, ownStatusWrites (did you mean ownStatusWrites?); expected +ctrlgen:controller:filter=<filter>[,<filter>...]`},
		{"statusApply typo", marker, marker + "// +ctrlgen:controller\n// +ctrlgen:controller:statusAply\n",
			"apis/shop/v1/types.go:7: error: unknown marker +ctrlgen:controller:statusAply; did you mean +ctrlgen:controller:statusApply?"},
		{"statusApply value", marker, marker + "// +ctrlgen:controller\n// +ctrlgen:controller:statusApply=true\n",
			"apis/shop/v1/types.go:7: error: +ctrlgen:controller:statusApply=true"},
		{"statusApply on a string status", marker, marker + "// +ctrlgen:controller\n// +ctrlgen:controller:statusApply\n",
			"apis/shop/v1/types.go:7: error: +ctrlgen:controller:statusApply on Order: its Status is not a named struct type"},
		{"deepcopy value", marker, marker + "// +k8s:deepcopy-gen=yes\n",
			`apis/shop/v1/types.go:6: error: +k8s:deepcopy-gen=yes: "yes" is not one of true, false; expected +k8s:deepcopy-gen=true|false`},
		{"kubebuilder value", "	Status ", "	// +kubebuilder:validation:MaxLength=ten\n	Status ",
			`apis/shop/v1/types.go:10: error: +kubebuilder:validation:MaxLength=ten: expected integer, got "ten"; expected +kubebuilder:validation:MaxLength=<int>`},
		{"kubebuilder argument", marker, marker + "// +kubebuilder:printcolumn:name=IP,typ=string,JSONPath=.spec.ip\n",
			`apis/shop/v1/types.go:6: error: +kubebuilder:printcolumn:name=IP,typ=string,JSONPath=.spec.ip: unknown argument "typ" (want name, type, JSONPath, description, format, priority); did you mean type?`},
		{"marker on the wrong type", "	Status ", "	// +kubebuilder:validation:Minimum=1\n	Status ",
			"crd: apis/shop/v1/types.go:10: +kubebuilder:validation:Minimum: must apply minimum to a numeric value, found string"},
		{"not structural", "	Status ", "	// +kubebuilder:validation:Schemaless\n	Status ",
			"crd: apis/shop/v1/types.go:7: the schema of v1 Order is not structural, the apiserver would reject it: .status: type is required (or x-kubernetes-preserve-unknown-fields: true)"},
		{"no version served", marker, marker + "// +kubebuilder:unservedversion\n",
			"crd: apis/shop/v1/types.go:8: CRD for Order.shop.example.com serves no version"},
		{"rbac without verbs", marker, marker + "// +kubebuilder:rbac:groups=apps,resources=deployments\n",
			"apis/shop/v1/types.go:6: error: +kubebuilder:rbac:groups=apps,resources=deployments: missing argument verbs; expected +kubebuilder:rbac:groups=<group>;...,resources=<resource>;..."},
		{"rbac away from any type", marker, "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get,namespace=Apps\n\n" + marker,
			`apis/shop/v1/types.go:5: error: +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get,namespace=Apps: namespace "Apps" is not a namespace name`},
		{"ctrlgen marker on a field", "	Status ", "	// +ctrlgen:controller\n	Status ",
			"apis/shop/v1/types.go:10: error: +ctrlgen:controller applies to types, not fields; ignored here"},
		{"webhook without a path", marker, "// +kubebuilder:webhook:mutating=true,failurePolicy=fail,sideEffects=None,groups=shop.example.com,resources=orders,verbs=create,versions=v1,name=morder.kb.io,admissionReviewVersions=v1\n\n" + marker,
			"apis/shop/v1/types.go:5: error: +kubebuilder:webhook:mutating=true,failurePolicy=fail,sideEffects=None,groups=shop.example.com,resources=orders,verbs=create,versions=v1,name=morder.kb.io,admissionReviewVersions=v1: needs path= or url=, and not both; expected +kubebuilder:webhook:path=<path>|url=<url>,mutating=true|false,"},
		{"uncopyable field", "	Status            string", "	Status            interface{}",
			"cannot deep-copy interface{}: use a named interface that has a DeepCopy<Interface> method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, cfg := errorModule(t)
			edit(t, dir, tc.old, tc.new)
			before := treeHash(t, dir)
			err := ctrlgen.Run(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tc.want)
			}
			if after := treeHash(t, dir); after != before {
				t.Errorf("a failed run changed files")
			}
		})
	}
}

// TestLenientMarkers: a marker code-generator and controller-gen pass
// over in silence (one unknown in a namespace ctrlgen shares with them, a
// near miss of a known one, one where it has no effect) is a warning with
// its file:line and the closest marker, and the run goes on; with
// StrictMarkers (--strict-markers) it fails the run, leaving every file as
// it was.
func TestLenientMarkers(t *testing.T) {
	const marker = "// +genclient\n"
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"genclient typo", marker, marker + "// +genclient:nonNamspaced\n",
			"apis/shop/v1/types.go:6: %s: unknown marker +genclient:nonNamspaced; did you mean +genclient:nonNamespaced?"},
		{"genclient near miss", marker, marker + "// +genclinet:noStatus\n",
			"apis/shop/v1/types.go:6: %s: unknown marker +genclinet:noStatus; did you mean +genclient:noStatus?"},
		{"groupName near miss", "package v1", "// +groupname=shop.example.com\npackage v1",
			"apis/shop/v1/types.go:1: %s: unknown marker +groupname; did you mean +groupName=<group>?"},
		{"kubebuilder near miss", marker, marker + "// +kubebuilder:objet:root=true\n",
			"apis/shop/v1/types.go:6: %s: unknown marker +kubebuilder:objet:root; did you mean +kubebuilder:object:root=true?"},
		{"genclient marker on a field", "	Status ", "	// +genclient:noStatus\n	Status ",
			"apis/shop/v1/types.go:10: %s: +genclient:noStatus applies to types, not fields; ignored here"},
		{"kubebuilder typo", marker, marker + "// +kubebuilder:validation:Minimun=1\n",
			"apis/shop/v1/types.go:6: %s: unknown marker +kubebuilder:validation:Minimun; did you mean +kubebuilder:validation:Minimum=<number>?"},
		{"kubebuilder unknown", marker, marker + "// +kubebuilder:printcolum:name=IP,type=string,JSONPath=.spec.ip\n",
			"apis/shop/v1/types.go:6: %s: unknown marker +kubebuilder:printcolum:name; did you mean +kubebuilder:printcolumn:name=<name>,type=<type>,JSONPath=<path>[,description=...][,format=...][,priority=<int>]?"},
		// prometheus-operator's monitoring API carries it; controller-gen
		// v0.23 has no such marker.
		{"not controller-gen's either", "	Status ", "	// +kubebuilder:validation:OneOf=Record,Alert\n	Status ",
			"apis/shop/v1/types.go:10: %s: unknown marker +kubebuilder:validation:OneOf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, cfg := errorModule(t)
			edit(t, dir, tc.old, tc.new)
			stderr := &bytes.Buffer{}
			cfg.Stderr = stderr
			before := treeHash(t, dir)
			cfg.StrictMarkers = true
			err := ctrlgen.Run(cfg)
			if want := fmt.Sprintf(tc.want, "error"); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(--strict-markers)") {
				t.Errorf("strict: error = %v\nwant it to contain %q and (--strict-markers)", err, want)
			}
			if after := treeHash(t, dir); after != before {
				t.Errorf("a failed run changed files")
			}
			cfg.StrictMarkers = false
			if err := ctrlgen.Run(cfg); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(tc.want, "warning"); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr = %q\nwant %q", stderr, want)
			}
		})
	}
}

// TestWebhookMarkersOfKubebuilderV3: the webhook markers kubebuilder v3
// scaffolded into the API package (api/v1/<kind>_webhook.go), floating
// above the webhook's type, are read with controller-gen's syntax. Without
// --webhook-dir the run goes on and says how to get their manifests; with
// it, config/webhook is written as controller-gen and kubebuilder write it.
func TestWebhookMarkersOfKubebuilderV3(t *testing.T) {
	dir, cfg := errorModule(t)
	testmod.Write(t, filepath.Join(dir, "apis/shop/v1/order_webhook.go"), []byte(`package v1

//+kubebuilder:webhook:path=/mutate-shop-example-com-v1-order,mutating=true,failurePolicy=fail,sideEffects=None,groups=shop.example.com,resources=orders,verbs=create;update,versions=v1,name=morder.kb.io,admissionReviewVersions=v1

var _ = 1

//+kubebuilder:webhook:path=/validate-shop-example-com-v1-order,mutating=false,failurePolicy=fail,sideEffects=None,groups=shop.example.com,resources=orders,verbs=create;update;delete,versions=v1,name=vorder.kb.io,admissionReviewVersions=v1,timeoutSeconds=5
//+kubebuilder:webhookconfiguration:mutating=false,name=shop-validating
`))
	stderr := &bytes.Buffer{}
	cfg.Stderr = stderr
	cfg.StrictMarkers = true
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	want := "apis/shop/v1/order_webhook.go:3: warning: +kubebuilder:webhook markers are read, but no webhook manifests are written: pass --webhook-dir"
	if !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "warning") != 1 {
		t.Errorf("stderr = %q, want one warning: %q", stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "config/webhook")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("config/webhook written without --webhook-dir: %v", err)
	}

	stderr.Reset()
	cfg.WebhookDir = "config/webhook"
	cfg.Quiet = true // warnings only
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr = %q", stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, "config/webhook/manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantManifests := `# Code generated by ctrlgen. DO NOT EDIT.
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-shop-example-com-v1-order
  failurePolicy: Fail
  name: morder.kb.io
  rules:
  - apiGroups:
    - shop.example.com
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - orders
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: shop-validating
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /validate-shop-example-com-v1-order
  failurePolicy: Fail
  name: vorder.kb.io
  rules:
  - apiGroups:
    - shop.example.com
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    - DELETE
    resources:
    - orders
  sideEffects: None
  timeoutSeconds: 5
`
	if string(got) != wantManifests {
		t.Errorf("manifests.yaml:\n%s\nwant:\n%s", got, wantManifests)
	}
	for _, f := range []string{"service.yaml", "kustomization.yaml", "kustomizeconfig.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, "config/webhook", f)); err != nil {
			t.Error(err)
		}
	}
}

// TestMalformedWebhookMarkersFailAtTheirLine: what controller-gen refuses
// when it writes the manifest fails the run at the marker, and leaves the
// tree as it was.
func TestMalformedWebhookMarkersFailAtTheirLine(t *testing.T) {
	for _, tc := range []struct{ marker, says string }{
		{"sideEffects=Some", "sideEffects=Some is not allowed"},
		{"timeoutSeconds=60", "timeoutSeconds=60: must be between 1 and 30"},
		{"matchPolicy=Fuzzy", "matchPolicy=Fuzzy: Exact or Equivalent"},
		{"patch=`{\"timeoutSecond\":3}`", `invalid patch field "timeoutSecond"`},
	} {
		t.Run(tc.marker, func(t *testing.T) {
			dir, cfg := errorModule(t)
			cfg.WebhookDir = "config/webhook"
			if err := ctrlgen.Run(cfg); err != nil {
				t.Fatal(err)
			}
			marker := "//+kubebuilder:webhook:path=/v,mutating=false,failurePolicy=fail,groups=shop.example.com,resources=orders,verbs=create,versions=v1,name=v.kb.io,admissionReviewVersions=v1," + tc.marker
			if !strings.HasPrefix(tc.marker, "sideEffects") {
				marker += ",sideEffects=None"
			}
			testmod.Write(t, filepath.Join(dir, "apis/shop/v1/order_webhook.go"), []byte("package v1\n\n"+marker+"\n"))
			before := treeHash(t, dir)
			err := ctrlgen.Run(cfg)
			if err == nil || !strings.Contains(err.Error(), "apis/shop/v1/order_webhook.go:3: error: ") || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error = %v, want order_webhook.go:3 saying %q", err, tc.says)
			}
			if treeHash(t, dir) != before {
				t.Error("a failed run changed files")
			}
		})
	}
}

// TestRBACMarkerErrorInControllerPackage: a malformed +kubebuilder:rbac
// next to Reconcile fails the run with its file:line, and leaves every
// file as it was.
func TestRBACMarkerErrorInControllerPackage(t *testing.T) {
	dir, cfg := errorModule(t)
	edit(t, dir, "// +genclient\n", "// +genclient\n// +ctrlgen:controller\n")
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	testmod.Write(t, filepath.Join(dir, "controllers/order/rbac.go"), []byte("package order\n\n// +kubebuilder:rbac:groups=\"\",resources=configmaps,verbs=create,urls=/metrics\n"))
	before := treeHash(t, dir)
	err := ctrlgen.Run(cfg)
	want := "controllers/order/rbac.go:3: error: +kubebuilder:rbac:groups=\"\",resources=configmaps,verbs=create,urls=/metrics: urls= cannot be combined with groups=, resources= or resourceNames="
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v\nwant it to contain %q", err, want)
	}
	if treeHash(t, dir) != before {
		t.Errorf("a failed run changed files")
	}
}

// TestDetachedMarkerWarns: a marker that code-generator would silently
// ignore is a warning, and the run goes on.
func TestDetachedMarkerWarns(t *testing.T) {
	dir, cfg := errorModule(t)
	edit(t, dir, "// +genclient\n", "// +genclient\n\n// +genclient:nonNamespaced\n\n")
	stderr := &bytes.Buffer{}
	cfg.Stderr = stderr
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	want := "apis/shop/v1/types.go:5: warning: +genclient ignored: 4 line(s) above type Order is too far"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

// TestVerify: --verify reports stale files, changes nothing and returns
// ErrStale; once generated, it passes.
func TestVerify(t *testing.T) {
	dir, cfg := errorModule(t)
	cfg.Verify = true
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatalf("fresh tree: %v", err)
	}
	edit(t, dir, "	Status            string `json:\"status\"`", "	Status            string `json:\"status\"`\n	Size              *int64 `json:\"size,omitempty\"`")
	stale := filepath.Join(dir, "generated/listers/old.go")
	testmod.Write(t, stale, []byte("// Code generated by ctrlgen. DO NOT EDIT.\n\npackage listers\n"))
	before := treeHash(t, dir)
	stdout := &bytes.Buffer{}
	cfg.Stdout = stdout
	err := ctrlgen.Run(cfg)
	if !errors.Is(err, ctrlgen.ErrStale) {
		t.Fatalf("error = %v, want ErrStale", err)
	}
	for _, want := range []string{"+++ b/apis/shop/v1/zz_generated.deepcopy.go", "+	if in.Size != nil {", "stale: generated/listers/old.go"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if treeHash(t, dir) != before {
		t.Errorf("--verify changed files")
	}
	cfg.Verify = false
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale generated file not removed: %v", err)
	}
	cfg.Verify = true
	if err := ctrlgen.Run(cfg); err != nil {
		t.Errorf("after generating: %v", err)
	}
}

// TestSubsetRemovesOnlyItsStaleFiles: a run of some generators removes the
// stale files of those generators, and keeps every other generator's files.
func TestSubsetRemovesOnlyItsStaleFiles(t *testing.T) {
	dir, cfg := errorModule(t)
	header := []byte("// Code generated by ctrlgen. DO NOT EDIT.\n\npackage v1\n")
	staleLister := filepath.Join(dir, "generated/listers/shop/v1/old.go")
	staleClient := filepath.Join(dir, "generated/clientset/versioned/typed/shop/v1/old.go")
	testmod.Write(t, staleLister, header)
	testmod.Write(t, staleClient, header)
	kept := []string{
		staleClient,
		filepath.Join(dir, "generated/clientset/versioned/clientset.go"),
		filepath.Join(dir, "generated/informers/externalversions/factory.go"),
		filepath.Join(dir, "apis/shop/v1/zz_generated.deepcopy.go"),
	}
	cfg.Generators = []string{"lister"}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(staleLister); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lister generator's stale file was not removed: %v", err)
	}
	for _, f := range kept {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("another generator's file was touched: %v", err)
		}
	}
	cfg.Generators = []string{"clientset"}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(staleClient); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the clientset generator's stale file was not removed: %v", err)
	}
}

// TestOutputAtModuleRootRemovesOnlyItsOwnStaleFiles: with the module root
// as the output directory, a run removes stale files only where its
// generators write, never another package's or another tree's.
func TestOutputAtModuleRootRemovesOnlyItsOwnStaleFiles(t *testing.T) {
	dir, cfg := errorModule(t)
	header := []byte("// Code generated by ctrlgen. DO NOT EDIT.\n\npackage v1\n")
	others := []string{
		filepath.Join(dir, "pkg/other/v1/zz_generated.deepcopy.go"), // not an input
		filepath.Join(dir, "gen2/clientset/versioned/typed/other/v1/other.go"),
	}
	for _, f := range others {
		testmod.Write(t, f, header)
	}
	staleLister := filepath.Join(dir, "listers/shop/v1/old.go")
	testmod.Write(t, staleLister, header)
	cfg.OutputDir = "."
	for _, gens := range [][]string{{"deepcopy"}, nil} {
		cfg.Generators = gens
		if err := ctrlgen.Run(cfg); err != nil {
			t.Fatal(err)
		}
		for _, f := range others {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("--generators %v at the module root: %v", gens, err)
			}
		}
	}
	if _, err := os.Stat(staleLister); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the run's own stale lister was not removed: %v", err)
	}
}

// TestLeavesOthersFilesAlone: files without ctrlgen's header are neither
// removed nor overwritten.
func TestLeavesOthersFilesAlone(t *testing.T) {
	dir, cfg := errorModule(t)
	mine := filepath.Join(dir, "generated/listers/shop/v1/order_helpers.go")
	testmod.Write(t, mine, []byte("package v1\n"))
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("hand-written file in the output dir: %v", err)
	}
	handWritten := filepath.Join(dir, "apis/shop/v1/zz_generated.deepcopy.go")
	testmod.Write(t, handWritten, []byte("package v1\n"))
	before := treeHash(t, dir)
	err := ctrlgen.Run(cfg)
	if err == nil || !strings.Contains(err.Error(), "is not a generated file; not overwriting it") {
		t.Errorf("error = %v", err)
	}
	if treeHash(t, dir) != before {
		t.Errorf("files changed")
	}
}

// TestBadBoilerplate: a boilerplate that is not a Go comment fails the
// run before anything is generated.
func TestBadBoilerplate(t *testing.T) {
	dir, cfg := errorModule(t)
	testmod.Write(t, filepath.Join(dir, "boilerplate.txt"), []byte("Copyright me\n"))
	cfg.BoilerplateFile = "boilerplate.txt"
	before := treeHash(t, dir)
	if err := ctrlgen.Run(cfg); err == nil || !strings.Contains(err.Error(), "--boilerplate boilerplate.txt: not a Go comment") {
		t.Errorf("error = %v", err)
	}
	if treeHash(t, dir) != before {
		t.Errorf("files changed")
	}
}

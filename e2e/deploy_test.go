package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// renderMydemoDefault runs kustomize (as `kustomize build`) on
// examples/mydemo/config/default.
func renderMydemoDefault(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot(t), "examples", "mydemo", "config"))); err != nil {
		t.Fatal(err)
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(dir, "default"))
	if err != nil {
		t.Fatalf("kustomize build config/default: %v", err)
	}
	var out []*unstructured.Unstructured
	for _, r := range resources.Resources() {
		j, err := r.MarshalJSON() // numbers as JSON's, not kustomize's ints
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

// warnings collects the apiserver's warnings.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

// The control plane has no kubelet, so mydemo's deploy files cannot run
// here; the apiserver still validates them. config/default, built by
// kustomize, is applied server-side with dryRun=All and strict field
// validation (a misspelt or misplaced field fails), in its namespace
// (created for real, with the manifest's Pod Security labels): the
// Deployment's pod template raises no warning at the restricted level
// (non-root, no privilege escalation, all capabilities dropped, seccomp
// RuntimeDefault), which the same template without its securityContext
// does.
func TestMydemoDeployFilesPassServerSideDryRun(t *testing.T) {
	e := env(t)
	objs := renderMydemoDefault(t)
	byKind := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byKind[o.GetKind()+"/"+o.GetName()] = o
	}
	for _, want := range []string{
		"CustomResourceDefinition/mydemos.crddemo.k8s.io",
		"Namespace/mydemo-system",
		"ServiceAccount/mydemo-controller-manager",
		"Deployment/mydemo-controller-manager",
		"Service/mydemo-controller-manager-metrics-service",
		"ClusterRole/mydemo-metrics-reader",
		"ClusterRole/mydemo-metrics-auth-role",
	} {
		if byKind[want] == nil {
			t.Errorf("kustomize build config/default has no %s", want)
		}
	}
	deployment := byKind["Deployment/mydemo-controller-manager"]
	if t.Failed() {
		t.FailNow()
	}
	if sa, _, _ := unstructured.NestedString(deployment.Object, "spec", "template", "spec", "serviceAccountName"); sa != "mydemo-controller-manager" {
		t.Errorf("the Deployment runs as ServiceAccount %q, not the one config/rbac makes", sa)
	}

	var heard warnings
	cfg := e.Config()
	cfg.WarningHandler = &heard
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	ctx := context.Background()
	apply := func(o *unstructured.Unstructured, dryRun bool) error {
		gvk := o.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return err
		}
		body, err := yaml.Marshal(o.Object)
		if err != nil {
			return err
		}
		opts := metav1.PatchOptions{FieldManager: "e2e-deploy", FieldValidation: "Strict", Force: new(true)}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err = dyn.Resource(mapping.Resource).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.ApplyPatchType, body, opts)
		return err
	}

	ns := byKind["Namespace/mydemo-system"]
	if err := apply(ns, false); err != nil {
		t.Fatalf("applying the Namespace: %v", err)
	}
	t.Cleanup(func() {
		dyn.Resource(namespacesGVR).Delete(context.Background(), ns.GetName(), metav1.DeleteOptions{})
	})
	if ns.GetLabels()["pod-security.kubernetes.io/warn"] != "restricted" {
		t.Errorf("the Namespace does not warn below the restricted Pod Security level: labels %v", ns.GetLabels())
	}
	for _, o := range objs {
		if o == ns {
			continue
		}
		if err := apply(o, true); err != nil {
			t.Errorf("server-side dry-run apply of %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	if w := heard.take(); len(w) > 0 {
		t.Errorf("the apiserver warned:\n%s", strings.Join(w, "\n"))
	}

	loose := deployment.DeepCopy()
	containers, _, _ := unstructured.NestedSlice(loose.Object, "spec", "template", "spec", "containers")
	delete(containers[0].(map[string]any), "securityContext")
	if err := unstructured.SetNestedSlice(loose.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		t.Fatal(err)
	}
	if err := apply(loose, true); err != nil {
		t.Fatalf("dry-run of the Deployment without its container securityContext: %v", err)
	}
	if w := strings.Join(heard.take(), "\n"); !strings.Contains(w, "restricted") {
		t.Errorf("no Pod Security warning for a container without its securityContext (so the check above proves nothing): %q", w)
	}
}

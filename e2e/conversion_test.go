package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	crddemov2 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v2"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/webhooks"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// mydemoConversionPatch is the kustomize patch ctrlgen generated for the
// Mydemo CRD's conversion webhook.
const mydemoConversionPatch = "../examples/mydemo/config/crd/patches/webhook_in_mydemos.yaml"

// TestMydemoConversion serves the example's generated conversions (v1 the
// stored hub, v2 a spoke with spec.address for v1's spec.ip and a
// spec.protocol v1 has no place for) to the real apiserver, which calls
// the manager's /convert through the CRD's conversion webhook, with the
// CA bundle the manager injects.
func TestMydemoConversion(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	ctx := context.Background()
	kc := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, kc)
	dyn := dynamic.NewForConfigOrDie(e.Config())

	addr := localAddr(t)
	o := manager.DefaultOptions()
	// A *rest.Config rather than a kubeconfig path, as a test of the
	// user's own would hand testenv's to the manager.
	o.RESTConfig, o.LeaderElect, o.LeaderElectionNamespace = e.Config(), false, ns
	o.WebhookAddr, o.WebhookHosts = addr, []string{"127.0.0.1"}
	startManagerWith(t, o, webhooks.RegisterConversion)
	useConversionWebhook(t, dyn, mydemoConversionPatch, "mydemos.crddemo.k8s.io", "https://"+addr+"/convert")

	md := mydemoClient(t, e)
	v1, v2 := md.CrddemoV1().Mydemos(ns), md.CrddemoV2().Mydemos(ns)
	created, err := v1.Create(ctx, newMydemo(ns, "roundtrip", "10.0.0.1", 8080, map[string]string{"k": "v"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var asV2 *crddemov2.Mydemo
	eventually(t, time.Minute, "the apiserver to convert with the injected CA bundle", func() (bool, string) {
		asV2, err = v2.Get(ctx, "roundtrip", metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})

	t.Run("v1 read as v2 and back is deep-equal", func(t *testing.T) {
		if want := (crddemov2.MydemoSpec{Address: "10.0.0.1", Port: 8080, Data: map[string]string{"k": "v"}}); !reflect.DeepEqual(asV2.Spec, want) || asV2.Annotations != nil {
			t.Errorf("read as v2: %+v, annotations %v; want %+v and none", asV2.Spec, asV2.Annotations, want)
		}
		asV1, err := v1.Get(ctx, "roundtrip", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(asV1, created) {
			t.Errorf("v1 → v2 → v1:\n got %+v\nwant %+v", asV1, created)
		}
	})

	t.Run("a field only v2 has survives v1", func(t *testing.T) {
		created, err := v2.Create(ctx, &crddemov2.Mydemo{ObjectMeta: metav1.ObjectMeta{Name: "udp"},
			Spec: crddemov2.MydemoSpec{Address: "10.0.0.2", Port: 53, Protocol: "UDP"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if created.Spec.Protocol != "UDP" || created.Annotations != nil {
			t.Errorf("created as v2: %+v, annotations %v", created.Spec, created.Annotations)
		}
		if stored := storedVersions(t, dyn); !reflect.DeepEqual(stored, []string{"v1"}) {
			t.Errorf("stored versions %v, want the hub's, [v1]", stored)
		}
		old, err := v1.Get(ctx, "udp", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if old.Spec.IP != "10.0.0.2" || old.Annotations["conversion.ctrlgen.dev/v2"] != `{"spec.protocol":"UDP"}` {
			t.Errorf("read as v1: %+v, annotations %v", old.Spec, old.Annotations)
		}
		// A v1 client that knows nothing of protocol updates the port.
		old.Spec.Port = 5353
		if _, err := v1.Update(ctx, old, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		back, err := v2.Get(ctx, "udp", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := (crddemov2.MydemoSpec{Address: "10.0.0.2", Port: 5353, Protocol: "UDP"}); !reflect.DeepEqual(back.Spec, want) || back.Annotations != nil {
			t.Errorf("v2 after a v1 update: %+v, annotations %v; want %+v and none", back.Spec, back.Annotations, want)
		}
	})

	t.Run("a list of 1000 is converted", func(t *testing.T) {
		const n = 1000
		createMany(t, n, func(i int) error {
			_, err := v1.Create(ctx, newMydemo(ns, fmt.Sprintf("many-%04d", i), fmt.Sprintf("10.1.%d.%d", i/256, i%256), int32(i+1), nil), metav1.CreateOptions{})
			return err
		})
		list, err := v2.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		many := 0
		for _, item := range list.Items {
			var i int
			if _, err := fmt.Sscanf(item.Name, "many-%04d", &i); err != nil {
				continue
			}
			many++
			if want := fmt.Sprintf("10.1.%d.%d", i/256, i%256); item.Spec.Address != want || item.Spec.Port != int32(i+1) {
				t.Fatalf("%s as v2: %+v, want address %s", item.Name, item.Spec, want)
			}
		}
		if many != n {
			t.Errorf("listed %d of %d as v2", many, n)
		}
	})
}

// storedVersions are the versions the apiserver has stored Mydemos in.
func storedVersions(t *testing.T, dyn dynamic.Interface) []string {
	t.Helper()
	crd, err := dyn.Resource(crdGVR).Get(context.Background(), "mydemos.crddemo.k8s.io", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
	return stored
}

// useConversionWebhook applies the generated kustomize patch to the CRD
// name, calling url instead of the Service a deployment has, and waits for
// the manager to inject its CA bundle. Cleanup sets the CRD's conversion
// back to None, before the manager stops: other tests read the CRD's
// preferred version, v2, without a webhook.
func useConversionWebhook(t *testing.T, dyn dynamic.Interface, patchFile, name, url string) {
	t.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile(patchFile)
	if err != nil {
		t.Fatal(err)
	}
	var patch map[string]any
	if err := yaml.Unmarshal(raw, &patch); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(patch, "metadata", "name"); got != name {
		t.Fatalf("%s patches %s, not %s", patchFile, got, name)
	}
	if err := unstructured.SetNestedField(patch, map[string]any{"url": url}, "spec", "conversion", "webhook", "clientConfig"); err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	crds := dyn.Resource(crdGVR)
	if _, err := crds.Patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		none := []byte(`{"spec":{"conversion":{"strategy":"None","webhook":null}}}`)
		if _, err := crds.Patch(ctx, name, types.MergePatchType, none, metav1.PatchOptions{}); err != nil {
			t.Errorf("setting %s's conversion back to None: %v", name, err)
		}
	})
	eventually(t, time.Minute, "the manager to inject its CA bundle into "+name, func() (bool, string) {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		bundle, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		return bundle != "", "no caBundle yet"
	})
}

// createMany calls create(i) for i in [0, n) from 8 goroutines; the first
// error fails t.
func createMany(t *testing.T, n int, create func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				if err := create(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

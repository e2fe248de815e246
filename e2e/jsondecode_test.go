package e2e

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
)

// TestGeneratedJSONDecodersOnServedMydemos: Mydemos as kube-apiserver
// serves them (metadata with managedFields, owner references, status with
// conditions) come out of the generated clientset, which decodes them
// with its generated JSON decoders, deep-equal to what the same clientset
// with client-gen's serializer gives: for a List, each Get, and each
// watch event of an update. None of those documents is left to
// apimachinery's serializer.
func TestGeneratedJSONDecodersOnServedMydemos(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	kc, err := kubernetes.NewForConfig(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	fast, err := versioned.NewForConfig(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	reference := clientGenMydemoClient(t, e.Config())
	ns := namespace(t, kc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A real owner: kube-controller-manager's garbage collector deletes
	// dependents whose owner does not exist, which raced this test.
	ownerCM, err := kc.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := true
	const n = 4
	for i := range n {
		md, err := fast.CrddemoV1().Mydemos(ns).Create(ctx, &crddemov1.Mydemo{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("md-%d", i), Labels: map[string]string{"app": "decode", "i": fmt.Sprint(i)},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: ownerCM.UID, Controller: &owner}}},
			Spec: crddemov1.MydemoSpec{IP: "10.0.0.1", Port: int32(8080 + i), Data: map[string]string{"k": "v\u00e9\n\"quoted\""}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		md.Status = crddemov1.MydemoStatus{ObservedGeneration: 1, ConfigMapName: "cm", Conditions: []metav1.Condition{{
			Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: metav1.Now(), Reason: "Rendered", Message: "ok"}}}
		if _, err := fast.CrddemoV1().Mydemos(ns).UpdateStatus(ctx, md, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	generated0, delegated0 := jsoncodec.Decodes()

	list, err := fast.CrddemoV1().Mydemos(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	refList, err := reference.CrddemoV1().Mydemos(ns).List(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n || !reflect.DeepEqual(list, refList) {
		t.Fatalf("the lists differ:\ngenerated decoders: %+v\napimachinery's:     %+v", list, refList)
	}
	for _, item := range list.Items {
		got, err := fast.CrddemoV1().Mydemos(ns).Get(ctx, item.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := reference.CrddemoV1().Mydemos(ns).Get(ctx, item.Name, metav1.GetOptions{ResourceVersion: got.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Get %s differs:\ngenerated decoders: %+v\napimachinery's:     %+v", item.Name, got, want)
		}
	}

	opts := metav1.ListOptions{ResourceVersion: list.ResourceVersion}
	w, err := fast.CrddemoV1().Mydemos(ns).Watch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	refW, err := reference.CrddemoV1().Mydemos(ns).Watch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer refW.Stop()
	for _, item := range list.Items {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"touched":"yes"}},"spec":{"data":{"n":%q}}}`, item.Name)
		if _, err := fast.CrddemoV1().Mydemos(ns).Patch(ctx, item.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		got, want := next(t, ctx, w), next(t, ctx, refW)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("watch event %d differs:\ngenerated decoders: %+v\napimachinery's:     %+v", i, got, want)
		}
		if got.Spec.Data["n"] != got.Name || got.Annotations["touched"] != "yes" {
			t.Errorf("watch event %d: %+v is not the update", i, got)
		}
	}

	generated, delegated := jsoncodec.Decodes()
	// A list, n gets, n events each decoded twice (envelope and object).
	if want := uint64(1 + n + 2*n); generated-generated0 < want || delegated != delegated0 {
		t.Errorf("generated code decoded %d documents (want at least %d), apimachinery's serializer %d (want none)",
			generated-generated0, want, delegated-delegated0)
	}

	// The generated informer reads its watches from the response body
	// rather than through the client's Watch; it decodes with the
	// generated decoders all the same.
	factory := externalversions.NewSharedInformerFactoryWithOptions(fast, 0, externalversions.WithNamespace(ns))
	lister := factory.Crddemo().V1().Mydemos().Lister()
	stop := make(chan struct{})
	factory.Start(stop)
	defer factory.Shutdown()
	defer close(stop)
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("%v did not sync", typ)
		}
	}
	generated1, delegated1 := jsoncodec.Decodes()
	for _, item := range list.Items {
		patch := fmt.Sprintf(`{"spec":{"data":{"n":%q}}}`, item.Name+"-informed")
		if _, err := fast.CrddemoV1().Mydemos(ns).Patch(ctx, item.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, time.Minute, "the informer to see every patch", func() (bool, string) {
		for _, item := range list.Items {
			md, err := lister.Mydemos(ns).Get(item.Name)
			if err != nil || md.Spec.Data["n"] != item.Name+"-informed" {
				return false, fmt.Sprintf("%s: %v %v", item.Name, err, md)
			}
		}
		return true, ""
	})
	generated2, delegated2 := jsoncodec.Decodes()
	// n patch responses and n watch events' objects.
	if generated2-generated1 < 2*n || delegated2 != delegated1 {
		t.Errorf("with the informer running, generated code decoded %d documents (want at least %d), apimachinery's serializer %d (want none)",
			generated2-generated1, 2*n, delegated2-delegated1)
	}
}

func next(t *testing.T, ctx context.Context, w watch.Interface) *crddemov1.Mydemo {
	t.Helper()
	select {
	case ev := <-w.ResultChan():
		md, ok := ev.Object.(*crddemov1.Mydemo)
		if ev.Type != watch.Modified || !ok {
			t.Fatalf("watch event %s %#v, want a modified Mydemo", ev.Type, ev.Object)
		}
		return md
	case <-ctx.Done():
		t.Fatal("no watch event")
		return nil
	}
}

// clientGenMydemoClient is the generated clientset with the REST client
// client-gen v0.37.2's setConfigDefaults makes: apimachinery's JSON
// serializer, without the generated decoders.
func clientGenMydemoClient(t *testing.T, cfg *rest.Config) versioned.Interface {
	t.Helper()
	config := rest.CopyConfig(cfg)
	gv := crddemov1.SchemeGroupVersion
	config.GroupVersion = &gv
	config.APIPath = "/apis"
	config.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion()
	client, err := rest.RESTClientFor(config)
	if err != nil {
		t.Fatal(err)
	}
	return versioned.New(client)
}

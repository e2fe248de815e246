package metadatainformer

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata/fake"
	clientcache "k8s.io/client-go/tools/cache"
)

var secrets = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

func secretMeta(ns, name string, labels map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
	}
}

// TestFactoryListsWatchesAndShares: one informer per resource, filled
// from the metadata client's list, kept current by its watch, read
// through the typed and the generic lister.
func TestFactoryListsWatchesAndShares(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	client := fake.NewSimpleMetadataClient(scheme, secretMeta("a", "one", map[string]string{"app": "x"}), secretMeta("b", "two", nil))
	f := NewSharedInformerFactory(client, 0)
	inf := f.TypedForResource(secrets)
	if f.ForResource(secrets).Informer() != inf.Informer() {
		t.Fatal("ForResource built a second informer for the same resource")
	}
	added := make(chan string, 10)
	if _, err := inf.TypedInformer().AddEventHandler(clientcache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*metav1.PartialObjectMetadata).Name },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.StartWithContext(ctx)
	if synced := f.WaitForCacheSync(ctx.Done()); !synced[secrets] {
		t.Fatalf("not synced: %v", synced)
	}
	for range 2 {
		<-added
	}

	got, err := inf.MetadataLister().Namespace("a").Get("one")
	if err != nil || got.Labels["app"] != "x" {
		t.Errorf("Get a/one = %v, %v", got, err)
	}
	if all, err := inf.MetadataLister().List(labels.Everything()); err != nil || len(all) != 2 {
		t.Errorf("List = %d objects, %v; want 2", len(all), err)
	}
	if _, err := inf.Lister().ByNamespace("b").Get("two"); err != nil {
		t.Errorf("generic lister: %v", err)
	}

	// A create after the sync arrives by the watch.
	if _, err := client.Resource(secrets).Namespace("a").(fake.MetadataClient).CreateFake(secretMeta("a", "three", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if name := <-added; name != "three" {
		t.Errorf("watched add of %q, want three", name)
	}
	if _, err := inf.MetadataLister().Namespace("a").Get("three"); err != nil {
		t.Errorf("Get a/three after its add: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	for gvr, want := range map[schema.GroupVersionResource]string{
		secrets: "secrets.v1 metadata",
		{Group: "apps", Version: "v1", Resource: "deployments"}: "deployments.v1.apps metadata",
	} {
		if got := describe(gvr); got != want {
			t.Errorf("describe(%v) = %q, want %q", gvr, got, want)
		}
	}
}

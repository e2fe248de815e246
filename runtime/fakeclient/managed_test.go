package fakeclient

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/applyconfigurations"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	fakecorev1 "k8s.io/client-go/kubernetes/typed/core/v1/fake"
	clienttesting "k8s.io/client-go/testing"
)

// TestFieldManagedTrackerApplies: over the field-managed tracker, an
// apply through a typed fake client merges by field manager (fewer fields
// remove what the manager no longer sets, another manager conflicts, Force
// takes over), and watchers are told of each apply.
func TestFieldManagedTrackerApplies(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	tr := NewFieldManagedTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder(),
		map[schema.GroupVersionResource]string{gvr: "ConfigMap"}, applyconfigurations.NewTypeConverter(scheme))
	fake := &clienttesting.Fake{}
	tr.AddReactors(fake)
	cms := (&fakecorev1.FakeCoreV1{Fake: fake}).ConfigMaps("ns")
	ctx := context.Background()
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	apply := func(manager string, force bool, data map[string]string) (*corev1.ConfigMap, error) {
		return cms.Apply(ctx, applycorev1.ConfigMap("c", "ns").WithData(data), metav1.ApplyOptions{FieldManager: manager, Force: force})
	}

	if _, err := apply("alice", false, map[string]string{"a": "1", "b": "2"}); err != nil {
		t.Fatal(err)
	}
	if got := next(t, w); got != "ADDED ns/c" {
		t.Fatalf("first apply: %s", got)
	}
	got, err := apply("alice", false, map[string]string{"a": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, still := got.Data["b"]; still {
		t.Fatalf("data %v: b, which alice no longer applies, kept", got.Data)
	}
	if ev := next(t, w); ev != "MODIFIED ns/c" {
		t.Fatalf("second apply: %s", ev)
	}
	if _, err := apply("bob", false, map[string]string{"a": "2"}); !apierrors.IsConflict(err) {
		t.Fatalf("bob applying alice's key: %v, want a conflict", err)
	}
	got, err = apply("bob", true, map[string]string{"a": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Data["a"] != "2" {
		t.Fatalf("data %v after bob forced", got.Data)
	}
	if ev := next(t, w); ev != "MODIFIED ns/c" {
		t.Fatalf("forced apply: %s", ev)
	}
}

package fakeclient

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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

// TestFieldManagedTrackerAddsAsClientGo: objects given to Add (a fake
// clientset's NewClientset(objects...)) are stored as client-go's
// field-managed tracker stores them, bypassing the field manager: without
// an apiVersion and kind stamped on them, and without managedFields.
// Controllers' tests compare the objects their informers hold, and the
// actions their controllers take, with the objects they seeded.
func TestFieldManagedTrackerAddsAsClientGo(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	decoder := serializer.NewCodecFactory(scheme).UniversalDecoder()
	ours := NewFieldManagedTracker(scheme, decoder, map[schema.GroupVersionResource]string{gvr: "ConfigMap"}, applyconfigurations.NewTypeConverter(scheme))
	theirs := clienttesting.NewFieldManagedObjectTracker(scheme, decoder, applyconfigurations.NewTypeConverter(scheme))
	seed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}, Data: map[string]string{"a": "1"}}
	for _, tr := range []clienttesting.ObjectTracker{ours, theirs} {
		if err := tr.Add(seed.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ours.Get(gvr, "ns", "c")
	if err != nil {
		t.Fatal(err)
	}
	want, err := theirs.Get(gvr, "ns", "c")
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("added object stored as\n%#v\nclient-go's stores\n%#v", got, want)
	}
	if c := got.(*corev1.ConfigMap); c.Kind != "" || c.APIVersion != "" || c.ManagedFields != nil {
		t.Fatalf("added object stored with type meta %+v and managedFields %v", c.TypeMeta, c.ManagedFields)
	}

	// A create through the tracker goes through the field manager, as
	// client-go's: the kind is stamped.
	for _, tr := range []clienttesting.ObjectTracker{ours, theirs} {
		if err := tr.Create(gvr, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}, "ns", metav1.CreateOptions{FieldManager: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = ours.Get(gvr, "ns", "d")
	want, _ = theirs.Get(gvr, "ns", "d")
	gotCM, wantCM := got.(*corev1.ConfigMap), want.(*corev1.ConfigMap)
	if gotCM.TypeMeta != wantCM.TypeMeta || len(gotCM.ManagedFields) != len(wantCM.ManagedFields) {
		t.Fatalf("created object stored with %+v %v, client-go's with %+v %v", gotCM.TypeMeta, gotCM.ManagedFields, wantCM.TypeMeta, wantCM.ManagedFields)
	}
}

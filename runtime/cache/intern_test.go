package cache

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
)

// internFixture is a ConfigMap with every field Intern touches.
func internFixture(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "team-a", UID: types.UID("uid-" + name), ResourceVersion: "42",
			Labels:      map[string]string{"app.kubernetes.io/name": "web", "tier": "frontend"},
			Annotations: map[string]string{"note": "short", "long": strings.Repeat("z", maxInternedValue+1)},
			Finalizers:  []string{"example.com/cleanup"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f", UID: "owner-uid", Controller: new(true),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: "v1", FieldsType: "FieldsV1", Subresource: "status",
				Time:     &metav1.Time{Time: time.Date(2026, 11, 27, 4, 6, 0, 0, time.UTC)},
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{".":{},"f:k":{}}}`)},
			}},
		},
		Data: map[string]string{"k": "v"},
	}
}

// decoders are client-go's: protobuf, as for the built-in kinds, and JSON,
// as for custom resources.
func decoders() map[string]runtime.Serializer {
	return map[string]runtime.Serializer{
		"protobuf": protobuf.NewSerializer(scheme.Scheme, scheme.Scheme),
		"json":     json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{}),
	}
}

func decode(t *testing.T, s runtime.Serializer, raw []byte) *corev1.ConfigMap {
	t.Helper()
	obj, _, err := s.Decode(raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*corev1.ConfigMap)
}

// TestInternKeepsDecodedObjectsEqual: what handlers and listers see after
// Intern is deep-equal to what client-go's decoders give.
func TestInternKeepsDecodedObjectsEqual(t *testing.T) {
	for name, s := range decoders() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := s.Encode(internFixture("a"), &buf); err != nil {
				t.Fatal(err)
			}
			want := decode(t, s, buf.Bytes())
			in := NewInterner()
			for range 3 { // the first remembers, the later ones reuse
				got := decode(t, s, buf.Bytes())
				in.Intern(got)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("after Intern:\n%#v\nwant\n%#v", got, want)
				}
			}
		})
	}
}

// TestInternShares: equal metadata of two decoded objects ends up in the
// same memory, and unique or long values are left alone.
func TestInternShares(t *testing.T) {
	for name, s := range decoders() {
		t.Run(name, func(t *testing.T) {
			in := NewInterner()
			objs := make([]*corev1.ConfigMap, 2)
			for i, n := range []string{"a", "b"} {
				var buf bytes.Buffer
				if err := s.Encode(internFixture(n), &buf); err != nil {
					t.Fatal(err)
				}
				objs[i] = decode(t, s, buf.Bytes())
				in.Intern(objs[i])
			}
			a, b := objs[0], objs[1]
			shared := map[string][2]string{
				"namespace":          {a.Namespace, b.Namespace},
				"finalizer":          {a.Finalizers[0], b.Finalizers[0]},
				"owner apiVersion":   {a.OwnerReferences[0].APIVersion, b.OwnerReferences[0].APIVersion},
				"owner kind":         {a.OwnerReferences[0].Kind, b.OwnerReferences[0].Kind},
				"owner name":         {a.OwnerReferences[0].Name, b.OwnerReferences[0].Name},
				"manager":            {a.ManagedFields[0].Manager, b.ManagedFields[0].Manager},
				"operation":          {string(a.ManagedFields[0].Operation), string(b.ManagedFields[0].Operation)},
				"fields apiVersion":  {a.ManagedFields[0].APIVersion, b.ManagedFields[0].APIVersion},
				"fieldsType":         {a.ManagedFields[0].FieldsType, b.ManagedFields[0].FieldsType},
				"subresource":        {a.ManagedFields[0].Subresource, b.ManagedFields[0].Subresource},
				"label value":        {a.Labels["tier"], b.Labels["tier"]},
				"short annotation":   {a.Annotations["note"], b.Annotations["note"]},
				"label key":          {mapKey(a.Labels, "tier"), mapKey(b.Labels, "tier")},
				"annotation key":     {mapKey(a.Annotations, "long"), mapKey(b.Annotations, "long")},
				"FieldsV1 (as text)": {unsafe.String(&a.ManagedFields[0].FieldsV1.Raw[0], 1), unsafe.String(&b.ManagedFields[0].FieldsV1.Raw[0], 1)},
			}
			for what, p := range shared {
				if !same(p[0], p[1]) {
					t.Errorf("%s %q: two copies after Intern, want one", what, p[0])
				}
			}
			if a.ManagedFields[0].FieldsV1 != b.ManagedFields[0].FieldsV1 {
				t.Error("FieldsV1: two copies after Intern, want one")
			}
			if a.ManagedFields[0].Time != b.ManagedFields[0].Time {
				t.Error("managedFields' time: two copies after Intern, want one")
			}
			if raw := a.ManagedFields[0].FieldsV1.Raw; cap(raw) != len(raw) {
				t.Errorf("shared FieldsV1 has spare capacity %d: an append would write into every object's", cap(raw)-len(raw))
			}
			unique := map[string][2]string{
				"name":            {a.Name, b.Name},
				"long annotation": {a.Annotations["long"], b.Annotations["long"]},
			}
			for what, p := range unique {
				if len(p[0]) == len(p[1]) && unsafe.StringData(p[0]) == unsafe.StringData(p[1]) {
					t.Errorf("%s: shared, want each object's own", what)
				}
			}
		})
	}
}

// mapKey returns the key of m equal to k as stored in m.
func mapKey(m map[string]string, k string) string {
	for key := range m {
		if key == k {
			return key
		}
	}
	return ""
}

// TestInternCollisions: when values take turns in one slot, each object
// still keeps a value equal to its own.
func TestInternCollisions(t *testing.T) {
	in := NewInterner()
	start := time.Date(2026, 11, 27, 4, 6, 0, 0, time.UTC)
	for i := range 3 * internSets * internWays {
		cm := internFixture("x")
		cm.Namespace = strings.Clone("ns-" + strings.Repeat("n", i%7) + string(rune('a'+i%26)))
		f := &cm.ManagedFields[0]
		f.Time = &metav1.Time{Time: start.Add(time.Duration(i%37) * time.Second)}
		f.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:k` + strings.Repeat("k", i%41) + `":{}}}`)}
		want := cm.DeepCopy()
		in.Intern(cm)
		if !reflect.DeepEqual(cm, want) {
			t.Fatalf("after Intern:\n%#v\nwant\n%#v", cm, want)
		}
	}
	// A time in another location is a different value.
	utc, local := internFixture("u"), internFixture("l")
	local.ManagedFields[0].Time = &metav1.Time{Time: utc.ManagedFields[0].Time.In(time.FixedZone("X", 3600))}
	in.Intern(utc)
	in.Intern(local)
	if loc := local.ManagedFields[0].Time.Location(); loc.String() != "X" {
		t.Errorf("a time in %s became one in %s", "X", loc)
	}
}

// TestInformerInterns: an informer caches decoded objects interned, after
// the user's transform, and deep-equal to what the decoder gave.
func TestInformerInterns(t *testing.T) {
	s := decoders()["protobuf"]
	var encoded [][]byte
	for _, name := range []string{"a", "b"} {
		var buf bytes.Buffer
		if err := s.Encode(internFixture(name), &buf); err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, buf.Bytes())
	}
	lw := &ListWatch[*corev1.ConfigMap]{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (ListPage[*corev1.ConfigMap], error) {
			var items []*corev1.ConfigMap
			for _, raw := range encoded {
				items = append(items, decode(t, s, raw))
			}
			return ListPage[*corev1.ConfigMap]{Items: items, ResourceVersion: "42"}, nil
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
		// The fake watch sends nothing: list, as with a fake clientset.
		WatchListSemanticsUnsupported: true,
	}
	informer := NewSharedIndexInformer[*corev1.ConfigMap](lw, 0, nil)
	const transformed = "transformed"
	if err := informer.SetTransform(func(obj any) (any, error) {
		cm := obj.(*corev1.ConfigMap)
		cm.Annotations[transformed] = strings.Clone("yes")
		return cm, nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { informer.RunWithContext(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	select {
	case <-informer.HasSyncedChecker().Done():
	case <-time.After(time.Minute):
		t.Fatal("not synced after a minute")
	}
	var cached []*corev1.ConfigMap
	for _, raw := range encoded {
		want := decode(t, s, raw)
		want.Annotations[transformed] = "yes"
		got, ok := informer.FastIndexer().GetByName(MetaObjectName(want))
		if !ok {
			t.Fatalf("%s not cached", want.Name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cached:\n%#v\nwant\n%#v", got, want)
		}
		cached = append(cached, got)
	}
	a, b := cached[0], cached[1]
	for what, p := range map[string][2]string{
		"label key":                  {mapKey(a.Labels, "tier"), mapKey(b.Labels, "tier")},
		"the transform's annotation": {a.Annotations[transformed], b.Annotations[transformed]},
		"namespace":                  {a.Namespace, b.Namespace},
	} {
		if !same(p[0], p[1]) {
			t.Errorf("%s %q: two copies in the cache, want one", what, p[0])
		}
	}
}

// TestInternDoesNotAllocate: interning an object whose values are all
// remembered allocates nothing.
func TestInternDoesNotAllocate(t *testing.T) {
	in := NewInterner()
	cm := internFixture("a")
	in.Intern(cm)
	if n := testing.AllocsPerRun(100, func() { in.Intern(cm) }); n != 0 {
		t.Errorf("%v allocations per Intern of an interned object, want 0", n)
	}
}

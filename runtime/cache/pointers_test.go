package cache_test

import (
	"runtime"
	"testing"
	"weak"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// collected reports whether the object behind w is collected within a
// bounded number of garbage collections.
func collected[T any](w weak.Pointer[T]) bool {
	for range 10 {
		runtime.GC()
		if w.Value() == nil {
			return true
		}
	}
	return false
}

// TestPointersWithAllocDoesNotRetainTheArray: the objects a ListPage hands
// over must not keep the decoded list's array alive, or every old version
// of an updated object stays in memory while any listed object is cached.
func TestPointersWithAllocDoesNotRetainTheArray(t *testing.T) {
	items := make([]corev1.ConfigMap, 64)
	for i := range items {
		items[i].Name = "cm-" + itoa(i)
	}
	array := weak.Make(&items[0])
	objs := cache.PointersWithAlloc(items)
	items = nil

	if !collected(array) {
		t.Fatal("the list's array is still alive while its items are held")
	}
	for i, obj := range objs {
		if want := "cm-" + itoa(i); obj.Name != want {
			t.Fatalf("item %d is %q, want %q", i, obj.Name, want)
		}
	}
	runtime.KeepAlive(objs)
}

// TestPointersRetainsTheArray shows what PointersWithAlloc avoids, and
// that the check above can see a retained array.
func TestPointersRetainsTheArray(t *testing.T) {
	items := make([]corev1.ConfigMap, 64)
	array := weak.Make(&items[0])
	objs := cache.Pointers(items)
	items = nil

	if collected(array) {
		t.Fatal("the array was collected while pointers into it are held")
	}
	runtime.KeepAlive(objs)
}

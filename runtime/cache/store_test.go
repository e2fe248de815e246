package cache

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	clientcache "k8s.io/client-go/tools/cache"
)

// names returns the sorted "namespace/name" of objs, typed or not.
func names[E any](objs []E) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		c := any(o).(*corev1.ConfigMap)
		out[i] = c.Namespace + "/" + c.Name
	}
	sort.Strings(out)
	return out
}

func keyStrings(keys []ObjectName) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
	}
	sort.Strings(out)
	return out
}

// byDataValue indexes a ConfigMap under every value of its data.
func byDataValue(obj any) ([]string, error) {
	var out []string
	for _, v := range obj.(*corev1.ConfigMap).Data {
		out = append(out, v)
	}
	return out, nil
}

// newIndexer returns ctrlgen's indexer as client-go's interface, which is
// how code written for client-go sees it.
func newIndexer(indexers clientcache.Indexers) clientcache.Indexer {
	return NewIndexer[*corev1.ConfigMap](indexers)
}

func TestIndexerStoresByNamespaceAndName(t *testing.T) {
	idx := newIndexer(nil)
	for _, o := range []*corev1.ConfigMap{cm("a", "x", "1"), cm("b", "x", "1"), cm("", "cluster", "1")} {
		if err := idx.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	idx.Update(cm("a", "x", "2"))
	got, ok, err := idx.GetByKey("a/x")
	if err != nil || !ok || got.(*corev1.ConfigMap).Data["v"] != "2" {
		t.Fatalf("GetByKey(a/x) = %v, %v, %v", got, ok, err)
	}
	if _, ok, _ := idx.GetByKey("cluster"); !ok {
		t.Fatal("cluster-scoped object not found by its key")
	}
	if _, ok, _ := idx.Get(cm("", "cluster", "")); !ok {
		t.Fatal("cluster-scoped object not found")
	}
	keys := idx.ListKeys()
	sort.Strings(keys)
	if !slices.Equal(keys, []string{"a/x", "b/x", "cluster"}) {
		t.Fatalf("ListKeys = %v", keys)
	}
	idx.Delete(cm("a", "x", ""))
	if _, ok, _ := idx.GetByKey("a/x"); ok {
		t.Fatal("a/x still there after Delete")
	}
	idx.Delete(clientcache.DeletedFinalStateUnknown{Key: "b/x"})
	if got := names(idx.List()); !slices.Equal(got, []string{"/cluster"}) {
		t.Fatalf("List after deleting a/x and a tombstone of b/x = %v", got)
	}
	if err := idx.Add(&corev1.Secret{}); err == nil {
		t.Fatal("a Secret was stored in a ConfigMap indexer")
	}
}

func TestIndexerTypedPathSeesTheSameObjects(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	a := cm("a", "x", "1")
	idx.Add(a)
	idx.Add(cm("b", "y", "1"))
	if got, ok := idx.GetByName(NewObjectName("a", "x")); !ok || got != a {
		t.Fatalf("GetByName(a/x) = %v, %v", got, ok)
	}
	if got := names(idx.ListAll()); !slices.Equal(got, []string{"a/x", "b/y"}) {
		t.Fatalf("ListAll = %v", got)
	}
	if got := names(idx.ListNamespace("b")); !slices.Equal(got, []string{"b/y"}) {
		t.Fatalf("ListNamespace(b) = %v", got)
	}
	if got := keyStrings(idx.ListNames()); !slices.Equal(got, []string{"a/x", "b/y"}) {
		t.Fatalf("ListNames = %v", got)
	}
}

func TestIndexerNamespaceIndexIsBuiltIn(t *testing.T) {
	idx := newIndexer(clientcache.Indexers{NamespaceIndex: clientcache.MetaNamespaceIndexFunc})
	idx.Add(cm("a", "1", ""))
	idx.Add(cm("a", "2", ""))
	idx.Add(cm("b", "3", ""))
	objs, err := idx.ByIndex(NamespaceIndex, "a")
	if err != nil || !slices.Equal(names(objs), []string{"a/1", "a/2"}) {
		t.Fatalf("ByIndex(namespace, a) = %v, %v", names(objs), err)
	}
	keys, _ := idx.IndexKeys(NamespaceIndex, "a")
	if !slices.Equal(keys, []string{"a/1", "a/2"}) {
		t.Fatalf("IndexKeys(namespace, a) = %v", keys)
	}
	if vals := idx.ListIndexFuncValues(NamespaceIndex); !slices.Equal(vals, []string{"a", "b"}) {
		t.Fatalf("namespace values = %v", vals)
	}
	same, _ := idx.Index(NamespaceIndex, cm("b", "other", ""))
	if !slices.Equal(names(same), []string{"b/3"}) {
		t.Fatalf("Index(namespace, b/other) = %v", names(same))
	}
	// client-go's listers look the namespace up with a bare ObjectMeta.
	var listed []string
	err = clientcache.ListAllByNamespace(idx, "a", labels.Everything(), func(o any) { listed = append(listed, o.(*corev1.ConfigMap).Name) })
	if sort.Strings(listed); err != nil || !slices.Equal(listed, []string{"1", "2"}) {
		t.Fatalf("ListAllByNamespace(a) = %v, %v", listed, err)
	}
	idx.Delete(cm("b", "3", ""))
	if vals := idx.ListIndexFuncValues(NamespaceIndex); !slices.Equal(vals, []string{"a"}) {
		t.Fatalf("emptied namespace still listed: %v", vals)
	}
	if _, ok := idx.GetIndexers()[NamespaceIndex]; !ok {
		t.Fatal("GetIndexers lacks the namespace index")
	}
}

func TestIndexerIndexKeysAreSorted(t *testing.T) {
	idx := newIndexer(clientcache.Indexers{"value": byDataValue})
	for i := 20; i > 0; i-- {
		idx.Add(cm("ns", fmt.Sprint("o", i), "red"))
	}
	keys, err := idx.IndexKeys("value", "red")
	if err != nil || len(keys) != 20 || !slices.IsSorted(keys) {
		t.Fatalf("IndexKeys(value, red) = %v, %v; want 20 sorted keys", keys, err)
	}
	keys, _ = idx.IndexKeys(NamespaceIndex, "ns")
	if len(keys) != 20 || !slices.IsSorted(keys) {
		t.Fatalf("IndexKeys(namespace, ns) = %v; want 20 sorted keys", keys)
	}
}

func TestIndexerCustomIndexFollowsUpdatesAndDeletes(t *testing.T) {
	idx := newIndexer(clientcache.Indexers{"value": byDataValue})
	a := cm("ns", "a", "red")
	a.Data["w"] = "blue"
	idx.Add(a)
	idx.Add(cm("ns", "b", "red"))

	check := func(value string, want ...string) {
		t.Helper()
		objs, err := idx.ByIndex("value", value)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = []string{}
		}
		if got := names(objs); !slices.Equal(got, want) {
			t.Fatalf("ByIndex(value, %s) = %v, want %v", value, got, want)
		}
	}
	check("red", "ns/a", "ns/b")
	check("blue", "ns/a")
	idx.Update(cm("ns", "a", "green"))
	check("red", "ns/b")
	check("blue")
	check("green", "ns/a")
	if vals := idx.ListIndexFuncValues("value"); !slices.Equal(vals, []string{"green", "red"}) {
		t.Fatalf("values = %v", vals)
	}
	both, _ := idx.Index("value", a) // red and blue
	if !slices.Equal(names(both), []string{"ns/b"}) {
		t.Fatalf("Index(value, red|blue) = %v", names(both))
	}
	idx.Delete(cm("ns", "b", ""))
	check("red")
	if _, err := idx.ByIndex("nope", "x"); err == nil {
		t.Fatal("unknown index gave no error")
	}
}

func TestIndexerTypedIndexers(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(cm("ns", "a", "red"))
	err := idx.AddTypedIndexers(clientcache.TypedIndexers[*corev1.ConfigMap]{
		"v": func(o *corev1.ConfigMap) ([]string, error) { return []string{o.Data["v"]}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := idx.ByTypedIndex("v", "red")
	if err != nil || len(objs) != 1 || objs[0].Name != "a" {
		t.Fatalf("ByTypedIndex(v, red) = %v, %v", names(objs), err)
	}
	same, err := idx.TypedIndex("v", cm("other", "b", "red"))
	if err != nil || len(same) != 1 {
		t.Fatalf("TypedIndex(v, red) = %v, %v", names(same), err)
	}
}

func TestIndexerAddIndexersIndexesExistingObjects(t *testing.T) {
	idx := newIndexer(nil)
	idx.Add(cm("ns", "a", "red"))
	if err := idx.AddIndexers(clientcache.Indexers{"value": byDataValue}); err != nil {
		t.Fatal(err)
	}
	objs, _ := idx.ByIndex("value", "red")
	if !slices.Equal(names(objs), []string{"ns/a"}) {
		t.Fatalf("existing object not indexed: %v", names(objs))
	}
	if err := idx.AddIndexers(clientcache.Indexers{"value": byDataValue}); err == nil {
		t.Fatal("adding an index twice gave no error")
	}
}

func TestIndexerReplaceSwapsContentAndIndexes(t *testing.T) {
	idx := newIndexer(clientcache.Indexers{"value": byDataValue})
	idx.Add(cm("ns", "old", "red"))
	if err := idx.Replace([]any{cm("ns", "new", "blue")}, "7"); err != nil {
		t.Fatal(err)
	}
	if got := names(idx.List()); !slices.Equal(got, []string{"ns/new"}) {
		t.Fatalf("after Replace: %v", got)
	}
	if objs, _ := idx.ByIndex("value", "red"); len(objs) != 0 {
		t.Fatalf("stale index entry: %v", names(objs))
	}
	if rv := idx.LastStoreSyncResourceVersion(); rv != "7" {
		t.Fatalf("LastStoreSyncResourceVersion = %q, want 7", rv)
	}
	idx.Bookmark("9")
	if rv := idx.LastStoreSyncResourceVersion(); rv != "9" {
		t.Fatalf("after Bookmark(9): %q", rv)
	}
}

func TestIndexerIsSafeForConcurrentUse(t *testing.T) {
	idx := newIndexer(clientcache.Indexers{"value": byDataValue})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				o := cm(fmt.Sprint("ns", w), fmt.Sprint(i%50), fmt.Sprint(i%7))
				idx.Update(o)
				idx.ByIndex("value", "3")
				idx.List()
				if i%3 == 0 {
					idx.Delete(o)
				}
			}
		})
	}
	wg.Wait()
	for _, obj := range idx.List() {
		o := obj.(*corev1.ConfigMap)
		objs, _ := idx.ByIndex("value", o.Data["v"])
		if !slices.Contains(names(objs), o.Namespace+"/"+o.Name) {
			t.Fatalf("%s/%s missing from its index value", o.Namespace, o.Name)
		}
	}
}

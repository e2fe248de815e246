package cache

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func names(objs []*corev1.ConfigMap) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Namespace + "/" + o.Name
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

// byDataValue indexes a ConfigMap under every comma-free value of its data.
func byDataValue(o *corev1.ConfigMap) ([]string, error) {
	var out []string
	for _, v := range o.Data {
		out = append(out, v)
	}
	return out, nil
}

func TestIndexerStoresByNamespaceAndName(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(cm("a", "x", "1"))
	idx.Add(cm("b", "x", "1"))
	idx.Add(cm("", "cluster", "1"))
	idx.Update(cm("a", "x", "2"))
	if idx.Len() != 3 {
		t.Fatalf("Len = %d, want 3", idx.Len())
	}
	got, ok, _ := idx.GetByKey(NewObjectName("a", "x"))
	if !ok || got.Data["v"] != "2" {
		t.Fatalf("GetByKey(a/x) = %v, %v", got, ok)
	}
	if _, ok, _ := idx.Get(cm("", "cluster", "")); !ok {
		t.Fatal("cluster-scoped object not found")
	}
	if got := keyStrings(idx.ListKeys()); !slices.Equal(got, []string{"a/x", "b/x", "cluster"}) {
		t.Fatalf("ListKeys = %v", got)
	}
	idx.Delete(cm("a", "x", ""))
	if _, ok, _ := idx.GetByKey(NewObjectName("a", "x")); ok || idx.Len() != 2 {
		t.Fatalf("a/x still there after Delete (len %d)", idx.Len())
	}
	if got := names(idx.List()); !slices.Equal(got, []string{"/cluster", "b/x"}) {
		t.Fatalf("List = %v", got)
	}
}

func TestIndexerNamespaceIndexIsBuiltIn(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](Indexers[*corev1.ConfigMap]{NamespaceIndex: MetaNamespaceIndexFunc[*corev1.ConfigMap]})
	idx.Add(cm("a", "1", ""))
	idx.Add(cm("a", "2", ""))
	idx.Add(cm("b", "3", ""))
	objs, err := idx.ByIndex(NamespaceIndex, "a")
	if err != nil || !slices.Equal(names(objs), []string{"a/1", "a/2"}) {
		t.Fatalf("ByIndex(namespace, a) = %v, %v", names(objs), err)
	}
	keys, _ := idx.IndexKeys(NamespaceIndex, "b")
	if !slices.Equal(keyStrings(keys), []string{"b/3"}) {
		t.Fatalf("IndexKeys(namespace, b) = %v", keys)
	}
	if vals := idx.ListIndexFuncValues(NamespaceIndex); !slices.Equal(vals, []string{"a", "b"}) {
		t.Fatalf("namespace values = %v", vals)
	}
	same, _ := idx.Index(NamespaceIndex, cm("b", "other", ""))
	if !slices.Equal(names(same), []string{"b/3"}) {
		t.Fatalf("Index(namespace, b/other) = %v", names(same))
	}
	idx.Delete(cm("b", "3", ""))
	if vals := idx.ListIndexFuncValues(NamespaceIndex); !slices.Equal(vals, []string{"a"}) {
		t.Fatalf("emptied namespace still listed: %v", vals)
	}
}

func TestIndexerCustomIndexFollowsUpdatesAndDeletes(t *testing.T) {
	idx := NewIndexer(Indexers[*corev1.ConfigMap]{"value": byDataValue})
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

func TestIndexerAddIndexersIndexesExistingObjects(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(cm("ns", "a", "red"))
	if err := idx.AddIndexers(Indexers[*corev1.ConfigMap]{"value": byDataValue}); err != nil {
		t.Fatal(err)
	}
	objs, _ := idx.ByIndex("value", "red")
	if !slices.Equal(names(objs), []string{"ns/a"}) {
		t.Fatalf("existing object not indexed: %v", names(objs))
	}
	if err := idx.AddIndexers(Indexers[*corev1.ConfigMap]{"value": byDataValue}); err == nil {
		t.Fatal("adding an index twice gave no error")
	}
}

func TestIndexerReplaceSwapsContentAndIndexes(t *testing.T) {
	idx := NewIndexer(Indexers[*corev1.ConfigMap]{"value": byDataValue})
	idx.Add(cm("ns", "old", "red"))
	idx.Replace([]*corev1.ConfigMap{cm("ns", "new", "blue")}, "1")
	if got := names(idx.List()); !slices.Equal(got, []string{"ns/new"}) {
		t.Fatalf("after Replace: %v", got)
	}
	if objs, _ := idx.ByIndex("value", "red"); len(objs) != 0 {
		t.Fatalf("stale index entry: %v", names(objs))
	}
}

func TestIndexerIsSafeForConcurrentUse(t *testing.T) {
	idx := NewIndexer(Indexers[*corev1.ConfigMap]{"value": byDataValue})
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
	for _, o := range idx.List() {
		objs, _ := idx.ByIndex("value", o.Data["v"])
		if !slices.Contains(names(objs), o.Namespace+"/"+o.Name) {
			t.Fatalf("%s/%s missing from its index value", o.Namespace, o.Name)
		}
	}
}

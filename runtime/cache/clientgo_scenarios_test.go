package cache_test

// The scenarios of client-go's own tools/cache tests (shared informer,
// store, index, the DeltaFIFO behaviour an informer's user sees, typed
// handlers, listers, WaitFor, the Reflector's fallback from a streamed
// list), told again in our words. Each is a function of an impl (see
// clientgo_impl_test.go) and runs as the subtests client-go and ctrlgen,
// on the same fake apiserver, through client-go's interface types only:
// cache.SharedIndexInformer, cache.TypedSharedIndexInformer, cache.Store,
// cache.Indexer, cache.TypedIndexer and the ResourceEventHandler kinds, and
// for the DeltaFIFO what Pop hands over. client-go is the reference: a
// scenario that fails on it is a wrong test. Where the two differ by
// design, the scenario says so and checks each against its own (see
// TestClientGoScenarioRecreatedObjectFoundByRelist and
// TestClientGoScenarioTransformRunsOncePerObject). client-go's internals
// (its FIFO and Heap types, its reflector's fields, the mutation detector,
// metrics providers) are not scenarios here, and the resync scenarios,
// which need a fake clock that client-go's informer does not take through
// its API, run on ctrlgen only.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	clientcache "k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"go.uber.org/goleak"
)

// labelled returns a ConfigMap in ns with the given labels.
func labelled(ns, name string, lbls ...string) *corev1.ConfigMap {
	c := cm(ns, name, "")
	c.Labels = map[string]string{}
	for _, l := range lbls {
		c.Labels[l] = "yes"
	}
	return c
}

// byLabelKey indexes an object under each of its label keys.
func byLabelKey(obj any) ([]string, error) {
	var out []string
	for k := range obj.(*corev1.ConfigMap).Labels {
		out = append(out, k)
	}
	return out, nil
}

// byUsers indexes an object under each name in its comma-separated "users"
// data value.
func byUsers(obj any) ([]string, error) {
	users := obj.(*corev1.ConfigMap).Data["users"]
	if users == "" {
		return nil, nil
	}
	return strings.Split(users, ","), nil
}

func withUsers(name, users string) *corev1.ConfigMap {
	c := cm("ns", name, "")
	c.Data["users"] = users
	return c
}

// namesOf returns the sorted names of client-go's untyped objects.
func namesOf(objs []any) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.(*corev1.ConfigMap).Name)
	}
	sort.Strings(out)
	return out
}

func typedNames(objs []*corev1.ConfigMap) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Name)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	if s == nil {
		s = []string{}
	}
	return s
}

// waitSynced waits for the informer as a client-go user does.
func waitSynced(t *testing.T, inf clientcache.SharedInformer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if !clientcache.WaitFor(ctx, "", inf.HasSyncedChecker()) {
		t.Fatal("informer never synced")
	}
}

// kinds returns the kinds of events, as "add:name", "update:name" and
// "delete:name".
func kinds(events []event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.kind + ":" + e.obj.Name
	}
	return out
}

// barrier creates an object and waits until every recorder has seen it:
// whatever the informer distributed before that has been delivered.
func barrier(t *testing.T, s *server, name string, recs ...*recorder) {
	t.Helper()
	create(s, cm("ns", name, ""))
	for _, r := range recs {
		eventually(t, "barrier "+name, func() bool {
			for _, e := range r.snapshot() {
				if e.kind == "add" && e.obj.Name == name {
					return true
				}
			}
			return false
		})
	}
}

// without returns events other than those about name.
func without(events []event, name string) []event {
	var out []event
	for _, e := range events {
		if e.obj.Name != name {
			out = append(out, e)
		}
	}
	return out
}

// shared_informer_test.go TestIndexer: an index function that gives
// several values per object, read through a running informer's indexer,
// follows objects created after the sync.
func TestClientGoScenarioIndexFuncWithSeveralValues(t *testing.T) {
	onBoth(t, scenarioIndexFuncWithSeveralValues)
}

func scenarioIndexFuncWithSeveralValues(t *testing.T, im impl) {
	s := newServer()
	create(s, labelled("ns", "a", "x", "y"))
	create(s, labelled("ns", "b", "y"))
	inf, _ := im.start(t, s, informerOptions{indexers: clientcache.Indexers{"labels": byLabelKey}}, nil)
	var sii clientcache.SharedIndexInformer = inf
	waitSynced(t, sii)

	idx := sii.GetIndexer()
	objs, err := idx.ByIndex("labels", "x")
	if err != nil || !slices.Equal(namesOf(objs), []string{"a"}) {
		t.Fatalf("ByIndex(labels, x) = %v, %v; want [a]", namesOf(objs), err)
	}
	create(s, labelled("ns", "c", "x"))
	eventually(t, "c indexed", func() bool {
		objs, _ := idx.ByIndex("labels", "x")
		return slices.Equal(namesOf(objs), []string{"a", "c"})
	})
	if got := sorted(idx.ListIndexFuncValues("labels")); !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("ListIndexFuncValues(labels) = %v, want [x y]", got)
	}
	if keys, err := idx.IndexKeys("labels", "y"); err != nil || !slices.Equal(keys, []string{"ns/a", "ns/b"}) {
		t.Fatalf("IndexKeys(labels, y) = %v, %v; want [ns/a ns/b]", keys, err)
	}
	same, err := idx.Index("labels", labelled("other", "probe", "y"))
	if err != nil || !slices.Equal(namesOf(same), []string{"a", "b"}) {
		t.Fatalf("Index(labels, {y}) = %v, %v; want [a b]", namesOf(same), err)
	}
}

// A lookup in an index that does not exist fails with client-go's error
// text; listing its values gives nothing.
func TestClientGoScenarioMissingIndex(t *testing.T) { onBoth(t, scenarioMissingIndex) }

func scenarioMissingIndex(t *testing.T, im impl) {
	s := newServer()
	inf, _ := im.start(t, s, informerOptions{}, nil)
	for name, idx := range map[string]clientcache.Indexer{
		"NewIndexer":         im.newIndexer(clientcache.Indexers{"other": byLabelKey}),
		"informer's indexer": inf.GetIndexer(),
	} {
		t.Run(name, func(t *testing.T) {
			want := "Index with name nope does not exist"
			if _, err := idx.ByIndex("nope", "v"); err == nil || err.Error() != want {
				t.Errorf("ByIndex: %v, want %q", err, want)
			}
			if _, err := idx.IndexKeys("nope", "v"); err == nil || err.Error() != want {
				t.Errorf("IndexKeys: %v, want %q", err, want)
			}
			if _, err := idx.Index("nope", cm("ns", "a", "")); err == nil || err.Error() != want {
				t.Errorf("Index: %v, want %q", err, want)
			}
			if vals := idx.ListIndexFuncValues("nope"); len(vals) != 0 {
				t.Errorf("ListIndexFuncValues: %v, want none", vals)
			}
		})
	}
}

// index_test.go TestGetIndexFuncValues and TestMultiIndexKeys,
// thread_safe_store_test.go's index tests: values shared by several
// objects, updates that move an object between values, deletes that empty
// a value (which then is no longer listed) and deletes that do not.
func TestClientGoScenarioIndexValuesFollowUpdatesAndDeletes(t *testing.T) {
	onBoth(t, scenarioIndexValuesFollowUpdatesAndDeletes)
}

func scenarioIndexValuesFollowUpdatesAndDeletes(t *testing.T, im impl) {
	var idx clientcache.Indexer = im.newIndexer(clientcache.Indexers{"byUser": byUsers})
	one, two, tre := withUsers("one", "ernie,bert"), withUsers("two", "bert,oscar"), withUsers("tre", "ernie,elmo")
	for _, o := range []*corev1.ConfigMap{one, two, tre} {
		if err := idx.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	check := func(user string, want ...string) {
		t.Helper()
		objs, err := idx.ByIndex("byUser", user)
		if err != nil {
			t.Fatal(err)
		}
		if got := namesOf(objs); !slices.Equal(got, sorted(want)) {
			t.Errorf("ByIndex(byUser, %s) = %v, want %v", user, got, sorted(want))
		}
	}
	check("ernie", "one", "tre")
	check("bert", "one", "two")
	check("elmo", "tre")
	check("oscar", "two")
	check("elmo1")
	if got := sorted(idx.ListIndexFuncValues("byUser")); !slices.Equal(got, []string{"bert", "elmo", "ernie", "oscar"}) {
		t.Errorf("values = %v", got)
	}

	if err := idx.Delete(tre); err != nil {
		t.Fatal(err)
	}
	check("ernie", "one")
	check("elmo")
	if vals := idx.ListIndexFuncValues("byUser"); slices.Contains(vals, "elmo") {
		t.Errorf("a value no object has is still listed: %v", vals)
	}

	moved := two.DeepCopy()
	moved.Data["users"] = "oscar"
	if err := idx.Update(moved); err != nil {
		t.Fatal(err)
	}
	check("bert", "one")
	check("oscar", "two")

	// An object that takes on more values, then fewer.
	grown := one.DeepCopy()
	grown.Data["users"] = "ernie,bert,oscar"
	idx.Update(grown)
	check("oscar", "one", "two")
	shrunk := one.DeepCopy()
	shrunk.Data["users"] = "bert"
	idx.Update(shrunk)
	check("ernie")
	check("oscar", "two")
	check("bert", "one")
}

// store_test.go doTestStore, through cache.Store: Add, Get, GetByKey,
// Update, Delete, List, ListKeys and Replace.
func TestClientGoScenarioStoreSemantics(t *testing.T) { onBoth(t, scenarioStoreSemantics) }

func scenarioStoreSemantics(t *testing.T, im impl) {
	var store clientcache.Store = im.newIndexer(nil)
	foo := cm("ns", "foo", "bar")
	if err := store.Add(foo); err != nil {
		t.Fatal(err)
	}
	got, ok, err := store.Get(cm("ns", "foo", ""))
	if err != nil || !ok || got != any(foo) {
		t.Fatalf("Get after Add = %v, %v, %v; want the object added", got, ok, err)
	}
	store.Update(cm("ns", "foo", "baz"))
	got, ok, _ = store.GetByKey("ns/foo")
	if !ok || got.(*corev1.ConfigMap).Data["v"] != "baz" {
		t.Fatalf("GetByKey after Update = %v, %v", got, ok)
	}
	if err := store.Delete(cm("ns", "foo", "")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.Get(cm("ns", "foo", "")); ok {
		t.Fatal("found a deleted object")
	}
	if _, ok, err := store.GetByKey("ns/missing"); ok || err != nil {
		t.Fatalf("GetByKey of a missing key = %v, %v; want false, nil", ok, err)
	}

	for _, n := range []string{"a", "c", "e"} {
		store.Add(cm("ns", n, n))
	}
	if got := namesOf(store.List()); !slices.Equal(got, []string{"a", "c", "e"}) {
		t.Fatalf("List = %v", got)
	}
	if got := sorted(store.ListKeys()); !slices.Equal(got, []string{"ns/a", "ns/c", "ns/e"}) {
		t.Fatalf("ListKeys = %v", got)
	}
	// A tombstone deletes by its key.
	store.Delete(clientcache.DeletedFinalStateUnknown{Key: "ns/e", Obj: cm("ns", "e", "")})
	if _, ok, _ := store.GetByKey("ns/e"); ok {
		t.Fatal("tombstone did not delete ns/e")
	}

	if err := store.Replace([]any{cm("ns", "foo", "foo"), cm("other", "bar", "bar")}, "0"); err != nil {
		t.Fatal(err)
	}
	if got := sorted(store.ListKeys()); !slices.Equal(got, []string{"ns/foo", "other/bar"}) {
		t.Fatalf("ListKeys after Replace = %v; want exactly the replacement", got)
	}
}

// store_test.go doTestIndex: Index finds the objects that share the
// indexed value of a sample object that is not itself stored.
func TestClientGoScenarioIndexBySampleObject(t *testing.T) { onBoth(t, scenarioIndexBySampleObject) }

func scenarioIndexBySampleObject(t *testing.T, im impl) {
	byVal := func(obj any) ([]string, error) { return []string{obj.(*corev1.ConfigMap).Data["v"]}, nil }
	var idx clientcache.Indexer = im.newIndexer(clientcache.Indexers{"by_val": byVal})
	for _, o := range [][2]string{{"a", "b"}, {"c", "b"}, {"e", "f"}, {"g", "h"}} {
		idx.Add(cm("ns", o[0], o[1]))
	}
	for val, want := range map[string][]string{"b": {"a", "c"}, "f": {"e"}, "h": {"g"}, "z": {}} {
		objs, err := idx.Index("by_val", cm("", "", val))
		if err != nil || !slices.Equal(namesOf(objs), want) {
			t.Errorf("Index(by_val, %s) = %v, %v; want %v", val, namesOf(objs), err, want)
		}
	}
}

// thread_safe_store AddIndexers: an index added to a store that has
// objects indexes them at once; a name already taken is a conflict.
func TestClientGoScenarioAddIndexersToAFilledStore(t *testing.T) {
	onBoth(t, scenarioAddIndexersToAFilledStore)
}

func scenarioAddIndexersToAFilledStore(t *testing.T, im impl) {
	var idx clientcache.Indexer = im.newIndexer(clientcache.Indexers{"labels": byLabelKey})
	idx.Add(labelled("ns", "a", "x"))
	idx.Add(withUsers("b", "ernie"))
	if err := idx.AddIndexers(clientcache.Indexers{"byUser": byUsers}); err != nil {
		t.Fatal(err)
	}
	if objs, _ := idx.ByIndex("byUser", "ernie"); !slices.Equal(namesOf(objs), []string{"b"}) {
		t.Fatalf("existing object not indexed by the new index: %v", namesOf(objs))
	}
	if _, ok := idx.GetIndexers()["byUser"]; !ok {
		t.Fatal("GetIndexers lacks the added index")
	}
	err := idx.AddIndexers(clientcache.Indexers{"labels": byLabelKey})
	if err == nil || err.Error() != "indexer conflict: map[labels:{}]" {
		t.Fatalf("adding a taken name: %v, want client-go's conflict error", err)
	}
	if objs, _ := idx.ByIndex("labels", "x"); !slices.Equal(namesOf(objs), []string{"a"}) {
		t.Fatalf("a refused index changed the index: %v", namesOf(objs))
	}
}

// listers_test.go TestListAll: client-go's ListAll and ListAllByNamespace
// select by label from the store.
func TestClientGoScenarioListAllBySelector(t *testing.T) { onBoth(t, scenarioListAllBySelector) }

func scenarioListAllBySelector(t *testing.T, im impl) {
	var idx clientcache.Indexer = im.newIndexer(clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc})
	for i := range 30 {
		o := cm(fmt.Sprint("ns", i%3), fmt.Sprint("o", i), "")
		if i%5 == 0 {
			o.Labels = map[string]string{"match": "true"}
		}
		idx.Add(o)
	}
	count := func(list func(fn clientcache.AppendFunc) error) int {
		n := 0
		if err := list(func(any) { n++ }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	sel := labels.SelectorFromSet(labels.Set{"match": "true"})
	if n := count(func(fn clientcache.AppendFunc) error { return clientcache.ListAll(idx, sel, fn) }); n != 6 {
		t.Errorf("ListAll(match) = %d, want 6", n)
	}
	if n := count(func(fn clientcache.AppendFunc) error { return clientcache.ListAll(idx, labels.Everything(), fn) }); n != 30 {
		t.Errorf("ListAll(everything) = %d, want 30", n)
	}
	none := labels.SelectorFromSet(labels.Set{"nomatch": "true"})
	if n := count(func(fn clientcache.AppendFunc) error { return clientcache.ListAll(idx, none, fn) }); n != 0 {
		t.Errorf("ListAll(nomatch) = %d, want 0", n)
	}
	// o0, o15 are in ns0 and match; o5, o20 in ns2; o10, o25 in ns1.
	if n := count(func(fn clientcache.AppendFunc) error { return clientcache.ListAllByNamespace(idx, "ns0", sel, fn) }); n != 2 {
		t.Errorf("ListAllByNamespace(ns0, match) = %d, want 2", n)
	}
}

// typed_test.go TestTypedIndexer and TestTypedSharedIndexInformer*: the
// typed indexer of the informer, directly and through client-go's wrapper.
func TestClientGoScenarioTypedIndexer(t *testing.T) { onBoth(t, scenarioTypedIndexer) }

func scenarioTypedIndexer(t *testing.T, im impl) {
	s := newServer()
	create(s, labelled("ns", "pod1", "foo"))
	create(s, labelled("ns", "pod2", "foo"))
	byFoo := clientcache.TypedIndexers[*corev1.ConfigMap]{
		"foo": func(o *corev1.ConfigMap) ([]string, error) { return []string{o.Labels["foo"]}, nil },
	}
	byName := clientcache.TypedIndexers[*corev1.ConfigMap]{
		"name": func(o *corev1.ConfigMap) ([]string, error) { return []string{o.Name}, nil },
	}
	// client-go's informer needs a non-nil Indexers to add indexes to later
	// (NewSharedInformer passes Indexers{}): given nil, AddIndexers panics.
	inf, _ := im.start(t, s, informerOptions{indexers: clientcache.Indexers{}}, func(inf typedInformer) {
		var typed clientcache.TypedSharedIndexInformer[*corev1.ConfigMap] = inf
		if err := typed.AddTypedIndexers(byFoo); err != nil {
			t.Fatal(err)
		}
		if err := clientcache.NewTypedSharedIndexInformer[*corev1.ConfigMap](inf).AddTypedIndexers(byName); err != nil {
			t.Fatal(err)
		}
	})
	waitSynced(t, inf)
	for name, ti := range map[string]clientcache.TypedIndexer[*corev1.ConfigMap]{
		"informer's own":    inf.GetTypedIndexer(),
		"client-go wrapper": clientcache.NewTypedSharedIndexInformer[*corev1.ConfigMap](inf).GetTypedIndexer(),
	} {
		t.Run(name, func(t *testing.T) {
			pod1, _, _ := ti.GetByKey("ns/pod1")
			res, err := ti.TypedIndex("foo", pod1.(*corev1.ConfigMap))
			if err != nil || !slices.Equal(typedNames(res), []string{"pod1", "pod2"}) {
				t.Errorf("TypedIndex(foo) = %v, %v", typedNames(res), err)
			}
			res, err = ti.ByTypedIndex("foo", "yes")
			if err != nil || !slices.Equal(typedNames(res), []string{"pod1", "pod2"}) {
				t.Errorf("ByTypedIndex(foo, yes) = %v, %v", typedNames(res), err)
			}
			if _, err := ti.ByTypedIndex("does-not-exist", "x"); err == nil {
				t.Error("ByTypedIndex on a missing index gave no error")
			}
			// A typed index is an untyped one too.
			res2, err := inf.GetIndexer().ByIndex("name", "pod1")
			if err != nil || !slices.Equal(namesOf(res2), []string{"pod1"}) {
				t.Errorf("ByIndex(name, pod1) = %v, %v", namesOf(res2), err)
			}
		})
	}
}

// typed_test.go TestTypedSharedIndexInformerAddTypedEventHandler: at most
// one HandlerOptions; a refused handler is not added.
func TestClientGoScenarioTypedHandlerTakesAtMostOneOptions(t *testing.T) {
	onBoth(t, scenarioTypedHandlerTakesAtMostOneOptions)
}

func scenarioTypedHandlerTakesAtMostOneOptions(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	inf, _ := im.start(t, s, informerOptions{}, nil)
	waitSynced(t, inf)
	for name, ti := range map[string]clientcache.TypedSharedIndexInformer[*corev1.ConfigMap]{
		"informer's own":    inf,
		"client-go wrapper": clientcache.NewTypedSharedIndexInformer[*corev1.ConfigMap](inf),
	} {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			h := clientcache.TypedResourceEventHandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap) { calls.Add(1) }}
			if _, err := ti.AddTypedEventHandler(h, clientcache.HandlerOptions{}, clientcache.HandlerOptions{}); err == nil {
				t.Fatal("two HandlerOptions accepted")
			}
			period := time.Minute
			reg, err := ti.AddTypedEventHandler(h, clientcache.HandlerOptions{ResyncPeriod: &period})
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, "replay", reg.HasSynced)
			if n := calls.Load(); n != 1 {
				t.Fatalf("handler called %d times; the refused registration must not deliver", n)
			}
		})
	}
}

// typed_test.go TestTypedFilteringResourceEventHandler, on a running
// informer: an update into the filter is an add, one out of it a delete
// of the old object, and nothing outside it reaches the handler.
func TestClientGoScenarioFilteringHandlers(t *testing.T) { onBoth(t, scenarioFilteringHandlers) }

func scenarioFilteringHandlers(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", "out"))
	matches := func(o *corev1.ConfigMap) bool { return o.Data["v"] == "in" }
	typedRec, untypedRec := newRecorder(t), newRecorder(t)
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		if _, err := inf.AddTypedEventHandler(clientcache.TypedFilteringResourceEventHandler[*corev1.ConfigMap]{
			FilterFunc: matches, Handler: typedRec.typed(),
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := inf.AddEventHandler(clientcache.FilteringResourceEventHandler{
			FilterFunc: func(o any) bool {
				if d, ok := o.(clientcache.DeletedFinalStateUnknown); ok {
					o = d.Obj
				}
				return matches(o.(*corev1.ConfigMap))
			},
			Handler: untypedRec.untyped(),
		}); err != nil {
			t.Fatal(err)
		}
	})
	waitSynced(t, inf)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	update(s, "ns", "a", "in")
	update(s, "ns", "a", "in") // still in: an update
	update(s, "ns", "a", "out")
	update(s, "ns", "a", "out") // still out: nothing
	del(s, "ns", "a")
	create(s, cm("ns", "zz-barrier", "in"))
	for _, r := range []*recorder{typedRec, untypedRec} {
		eventually(t, "barrier", func() bool { return len(r.snapshot()) == 4 })
	}
	for name, r := range map[string]*recorder{"typed": typedRec, "untyped": untypedRec} {
		got := kinds(without(r.snapshot(), "zz-barrier"))
		want := []string{"add:a", "update:a", "delete:a"}
		if n := len(r.snapshot()); n != 4 {
			t.Errorf("%s filtering handler got %d events, want 4", name, n)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s filtering handler saw %v, want %v", name, got, want)
			continue
		}
		ev := r.snapshot()
		if ev[0].flag {
			t.Errorf("%s: an add made by an update was marked as in the initial list", name)
		}
		if ev[2].obj.Data["v"] != "in" {
			t.Errorf("%s: the delete made by an update carries %v, want the old object", name, ev[2].obj.Data)
		}
	}
}

// shared_informer_test.go TestSharedInformerMultipleRegistration,
// TestSharedInformerRemoveForeignHandler and TestRemovingRemovedSharedInformer:
// one handler registered twice is told twice; each registration is
// removed on its own; removing one again, or removing it from another
// informer, is not an error and changes nothing.
func TestClientGoScenarioRegistrationsAreIndependent(t *testing.T) {
	onBoth(t, scenarioRegistrationsAreIndependent)
}

func scenarioRegistrationsAreIndependent(t *testing.T, im impl) {
	s := newServer()
	rec := newRecorder(t)
	h := rec.untyped()
	var reg1, reg2 clientcache.ResourceEventHandlerRegistration
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		var err error
		if reg1, err = inf.AddEventHandler(h); err != nil {
			t.Fatal(err)
		}
		if reg2, err = inf.AddEventHandler(h); err != nil {
			t.Fatal(err)
		}
	})
	other, _ := im.start(t, newServer(), informerOptions{}, nil)
	waitSynced(t, inf)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })

	countOf := func(name string) int {
		n := 0
		for _, e := range rec.snapshot() {
			if e.obj.Name == name {
				n++
			}
		}
		return n
	}
	create(s, cm("ns", "first", ""))
	eventually(t, "first twice", func() bool { return countOf("first") == 2 })

	if err := other.RemoveEventHandler(reg1); err != nil {
		t.Fatalf("removing a registration from an informer it is not on: %v", err)
	}
	create(s, cm("ns", "second", ""))
	eventually(t, "second twice", func() bool { return countOf("second") == 2 })

	if err := inf.RemoveEventHandler(reg1); err != nil {
		t.Fatal(err)
	}
	if err := inf.RemoveEventHandler(reg1); err != nil {
		t.Fatalf("removing a registration twice: %v", err)
	}
	create(s, cm("ns", "third", ""))
	eventually(t, "third", func() bool { return countOf("third") >= 1 })
	if err := inf.RemoveEventHandler(reg2); err != nil {
		t.Fatal(err)
	}
	// Nothing more reaches h: use a second handler as the barrier.
	fence := newRecorder(t)
	if _, err := inf.AddEventHandler(fence.untyped()); err != nil {
		t.Fatal(err)
	}
	barrier(t, s, "fourth", fence)
	if n := countOf("third"); n != 1 {
		t.Fatalf("third was told %d times with one registration left, want 1", n)
	}
	if n := countOf("fourth"); n != 0 {
		t.Fatalf("fourth reached a handler whose registrations are all removed")
	}
}

// shared_informer_test.go TestSharedInformerRemoveHandler: handlers
// removed before Run are never called.
func TestClientGoScenarioHandlersRemovedBeforeRunAreNotCalled(t *testing.T) {
	onBoth(t, scenarioHandlersRemovedBeforeRunAreNotCalled)
}

func scenarioHandlersRemovedBeforeRunAreNotCalled(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	removed, kept := newRecorder(t), newRecorder(t)
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		r1, _ := inf.AddEventHandler(removed.untyped())
		r2, _ := inf.AddTypedEventHandler(removed.typed())
		if _, err := inf.AddEventHandler(kept.untyped()); err != nil {
			t.Fatal(err)
		}
		for _, r := range []clientcache.ResourceEventHandlerRegistration{r2, r1} {
			if err := inf.RemoveEventHandler(r); err != nil {
				t.Fatal(err)
			}
		}
	})
	waitSynced(t, inf)
	barrier(t, s, "b", kept)
	if n := len(removed.snapshot()); n != 0 {
		t.Fatalf("handlers removed before Run got %d events", n)
	}
}

// shared_informer_test.go TestStateSharedInformer, TestAddOnStoppedSharedInformer,
// TestRemoveOnStoppedSharedInformer, and the informer's setters once
// started: what an informer allows before, while and after it runs.
func TestClientGoScenarioInformerLifecycle(t *testing.T) { onBoth(t, scenarioInformerLifecycle) }

func scenarioInformerLifecycle(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	inf := im.newInformer(s.ListerWatcher(), informerOptions{resync: 0})
	var sii clientcache.SharedIndexInformer = inf
	if sii.IsStopped() {
		t.Fatal("stopped before Run")
	}
	rec := newRecorder(t)
	reg, err := sii.AddEventHandler(rec.untyped())
	if err != nil {
		t.Fatal(err)
	}
	if reg.HasSynced() {
		t.Fatal("a registration synced before Run")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sii.Run(stop)
	}()
	waitSynced(t, sii)
	eventually(t, "initial add", func() bool { return len(rec.snapshot()) == 1 })
	if sii.IsStopped() {
		t.Fatal("stopped while running")
	}
	const started = "informer has already started"
	if err := sii.SetTransform(func(o any) (any, error) { return o, nil }); err == nil || err.Error() != started {
		t.Errorf("SetTransform while running: %v, want %q", err, started)
	}
	if err := sii.SetWatchErrorHandler(func(*clientcache.Reflector, error) {}); err == nil || err.Error() != started {
		t.Errorf("SetWatchErrorHandler while running: %v, want %q", err, started)
	}
	if err := sii.SetWatchErrorHandlerWithContext(func(context.Context, *clientcache.Reflector, error) {}); err == nil || err.Error() != started {
		t.Errorf("SetWatchErrorHandlerWithContext while running: %v, want %q", err, started)
	}

	close(stop)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after stop")
	}
	if !sii.IsStopped() {
		t.Fatal("not stopped once Run returned")
	}
	_, err = sii.AddEventHandlerWithResyncPeriod(newRecorder(t).untyped(), 0)
	if err == nil || !strings.HasSuffix(err.Error(), "was not added to shared informer because it has stopped already") {
		t.Fatalf("adding a handler to a stopped informer: %v", err)
	}
	if err := sii.RemoveEventHandler(reg); err != nil {
		t.Fatalf("removing a handler from a stopped informer: %v", err)
	}
	// Run again is refused quietly: it returns at once.
	sii.Run(make(chan struct{}))
}

// shared_informer_test.go TestSharedInformerInitializationRace and
// TestSharedInformerStartRace: a handler added, and the setters called,
// while Run starts. Under -race this must be clean; the handler sees each
// object exactly once, whichever side won.
func TestClientGoScenarioSettersAndHandlersRaceWithRun(t *testing.T) {
	onBoth(t, scenarioSettersAndHandlersRaceWithRun)
}

func scenarioSettersAndHandlersRaceWithRun(t *testing.T, im impl) {
	for range 20 {
		s := newServer()
		create(s, cm("ns", "a", ""))
		create(s, cm("ns", "b", ""))
		inf := im.newInformer(s.ListerWatcher(), informerOptions{resync: time.Second})
		rec := newRecorder(t)
		var wg sync.WaitGroup
		regs := make(chan clientcache.ResourceEventHandlerRegistration, 1)
		wg.Go(func() {
			reg, err := inf.AddEventHandlerWithResyncPeriod(rec.untyped(), 0)
			if err != nil {
				t.Error(err)
			}
			regs <- reg
		})
		wg.Go(func() {
			// Each may win or lose against Run; either is fine.
			_ = inf.SetTransform(func(o any) (any, error) { return o, nil })
			_ = inf.SetWatchErrorHandler(func(*clientcache.Reflector, error) {})
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			inf.RunWithContext(ctx)
		}()
		wg.Wait()
		reg := <-regs
		eventually(t, "handler synced", reg.HasSynced)
		want := []string{"add:a", "add:b"}
		if im.name == "client-go" {
			// client-go v0.37 can report a handler added while Run starts
			// as synced before its handler saw the whole initial list
			// (seen once, on a loaded machine: [add:a] at HasSynced); a
			// scenario client-go fails is a wrong scenario, so wait for
			// the rest. ctrlgen's handler has it all by then.
			eventually(t, "each object delivered", func() bool { return len(rec.snapshot()) >= len(want) })
		}
		if got := sorted(kinds(rec.snapshot())); !slices.Equal(got, want) {
			t.Fatalf("handler added while Run started saw %v, want each object once", got)
		}
		cancel()
		<-done
	}
}

// shared_informer_test.go TestSharedInformerHandlerAbuse: many goroutines
// add (with a resync period) and remove handlers while events flow and the
// informer stops under them. The only error allowed is the stopped one.
func TestClientGoScenarioHandlersAddedAndRemovedUnderLoad(t *testing.T) {
	onBoth(t, scenarioHandlersAddedAndRemovedUnderLoad)
}

func scenarioHandlersAddedAndRemovedUnderLoad(t *testing.T, im impl) {
	s := newServer()
	inf := im.newInformer(s.ListerWatcher(), informerOptions{resync: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		inf.RunWithContext(ctx)
	}()
	var quit atomic.Bool
	var workers sync.WaitGroup
	for w := range 8 {
		workers.Go(func() {
			funcs := clientcache.ResourceEventHandlerDetailedFuncs{
				AddFunc:    func(any, bool) {},
				UpdateFunc: func(any, any) {},
				DeleteFunc: func(any) {},
			}
			var regs []clientcache.ResourceEventHandlerRegistration
			for i := 0; !quit.Load(); i++ {
				if (i+w)%3 != 0 || len(regs) == 0 {
					reg, err := inf.AddEventHandlerWithResyncPeriod(funcs, time.Second)
					if err != nil {
						if !strings.Contains(err.Error(), "stopped already") {
							t.Errorf("adding a handler: %v", err)
						}
						return
					}
					regs = append(regs, reg)
					continue
				}
				k := i % len(regs)
				if err := inf.RemoveEventHandler(regs[k]); err != nil {
					t.Errorf("removing a handler: %v", err)
					return
				}
				regs = slices.Delete(regs, k, k+1)
			}
		})
	}
	live := []string{}
	for i := range 2000 {
		name := fmt.Sprint("o", i)
		switch {
		case len(live) == 0 || i%3 == 0:
			create(s, cm("ns", name, ""))
			live = append(live, name)
		case i%3 == 1:
			update(s, "ns", live[i%len(live)], name)
		default:
			k := i % len(live)
			del(s, "ns", live[k])
			live = slices.Delete(live, k, k+1)
		}
	}
	cancel()
	select {
	case <-runDone:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
	quit.Store(true)
	workers.Wait()
}

// shared_informer_test.go TestAddWhileActive: a handler added before Run
// has not synced until Run has delivered the list; one added while the
// informer runs is told the cache as an initial list and has not synced
// until that is delivered; later objects reach both, not as initial.
func TestClientGoScenarioHandlerAddedWhileActive(t *testing.T) {
	onBoth(t, scenarioHandlerAddedWhileActive)
}

func scenarioHandlerAddedWhileActive(t *testing.T, im impl) {
	s := newServer()
	first, later := newRecorder(t), newRecorder(t)
	var reg1 clientcache.ResourceEventHandlerRegistration
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		var err error
		if reg1, err = inf.AddEventHandler(first.untyped()); err != nil {
			t.Fatal(err)
		}
		if reg1.HasSynced() {
			t.Fatal("synced before Run")
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if !clientcache.WaitFor(ctx, "", reg1.HasSyncedChecker()) || !reg1.HasSynced() {
		t.Fatal("first handler never synced")
	}
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	create(s, cm("ns", "pod1", ""))
	eventually(t, "pod1", func() bool { return len(first.snapshot()) == 1 })

	later.gate = make(chan struct{})
	reg2, err := inf.AddEventHandler(later.untyped())
	if err != nil {
		t.Fatal(err)
	}
	if reg2.HasSynced() {
		t.Fatal("synced before its replay was delivered")
	}
	close(later.gate)
	create(s, cm("ns", "pod2", ""))
	if !clientcache.WaitFor(ctx, "", reg2.HasSyncedChecker()) {
		t.Fatal("second handler never synced")
	}
	eventually(t, "pod2 to both", func() bool { return len(first.snapshot()) == 2 && len(later.snapshot()) == 2 })
	for name, r := range map[string]*recorder{"first": first, "later": later} {
		ev := r.snapshot()
		if kinds(ev)[0] != "add:pod1" || kinds(ev)[1] != "add:pod2" {
			t.Fatalf("%s saw %v", name, kinds(ev))
		}
		if ev[1].flag {
			t.Errorf("%s: pod2, created after the sync, marked as in the initial list", name)
		}
	}
	if ev := later.snapshot(); !ev[0].flag {
		t.Error("the replay of the cache to a late handler is not marked as its initial list")
	}
	if ev := first.snapshot(); ev[0].flag {
		t.Error("pod1, created after the sync, marked as in the initial list")
	}
}

// shared_informer_test.go TestRemoveEventHandler_AsynchronousPanic:
// RemoveEventHandler returns at once, even while the handler is blocked
// in a callback; the callback then runs to its end.
func TestClientGoScenarioRemoveDoesNotWaitForTheHandler(t *testing.T) {
	onBoth(t, scenarioRemoveDoesNotWaitForTheHandler)
}

func scenarioRemoveDoesNotWaitForTheHandler(t *testing.T, im impl) {
	s := newServer()
	started, release, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := clientcache.ResourceEventHandlerFuncs{AddFunc: func(any) {
		once.Do(func() {
			close(started)
			<-release
			close(finished)
		})
	}}
	inf, _ := im.start(t, s, informerOptions{}, nil)
	waitSynced(t, inf)
	reg, err := inf.AddEventHandler(h)
	if err != nil {
		t.Fatal(err)
	}
	create(s, cm("ns", "a", ""))
	<-started
	removed := make(chan error, 1)
	go func() { removed <- inf.RemoveEventHandler(reg) }()
	select {
	case err := <-removed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("RemoveEventHandler waited for a blocked handler")
	}
	close(release)
	<-finished
}

// shared_informer_test.go TestSharedInformerErrorHandling: a failing list
// reaches the watch error handler with its error.
func TestClientGoScenarioWatchErrorHandlerSeesListErrors(t *testing.T) {
	onBoth(t, scenarioWatchErrorHandlerSeesListErrors)
}

func scenarioWatchErrorHandlerSeesListErrors(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	s.FailNextLists(errors.New("Access Denied"))
	// A client that cannot stream initial lists: both informers list.
	s.SetWatchListSemanticsUnsupported(true)
	errs := make(chan error, 10)
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		if err := inf.SetWatchErrorHandler(func(r *clientcache.Reflector, err error) {
			select {
			case errs <- err:
			default:
			}
		}); err != nil {
			t.Fatal(err)
		}
	})
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "Access Denied") {
			t.Fatalf("error handler got %v, want the list's Access Denied", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("watch error handler never called")
	}
	waitSynced(t, inf) // the list is retried
}

// shared_informer_test.go TestSharedInformerTransformer: handlers and the
// cache see the transformed object.
func TestClientGoScenarioTransformedObjectsReachHandlers(t *testing.T) {
	onBoth(t, scenarioTransformedObjectsReachHandlers)
}

func scenarioTransformedObjectsReachHandlers(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "pod1", ""))
	create(s, cm("ns", "pod2", ""))
	rec := newRecorder(t)
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		if err := inf.SetTransform(func(o any) (any, error) {
			// The test server shares its objects with its watches; a
			// transform of decoded objects may modify them in place.
			c := o.(*corev1.ConfigMap).DeepCopy()
			c.Name = strings.ToUpper(c.Name)
			return c, nil
		}); err != nil {
			t.Fatal(err)
		}
		handlerKinds[0].add(t, inf, rec)
	})
	waitSynced(t, inf)
	eventually(t, "adds", func() bool { return len(rec.snapshot()) == 2 })
	if got := sorted(kinds(rec.snapshot())); !slices.Equal(got, []string{"add:POD1", "add:POD2"}) {
		t.Fatalf("handler saw %v, want the transformed names", got)
	}
	if got := sorted(inf.GetStore().ListKeys()); !slices.Equal(got, []string{"ns/POD1", "ns/POD2"}) {
		t.Fatalf("cache keys %v, want the transformed names", got)
	}
}

// delta_fifo_test.go TestDeltaFIFO_transformer, as an informer's user sees
// it: every object the server sends is transformed, deletes included, and
// a watch event's object exactly once; a delete a relist finds hands over
// the object as it was transformed and cached, without transforming it
// again; the transform is never handed a tombstone.
//
// The objects of the initial list are transformed at least once: client-go
// v0.37.2 transforms those of a streamed list twice (its Reflector's
// temporary store, then its RealFIFO's Replace), so a transform must be
// idempotent there; ctrlgen transforms them once, which it checks alone.
func TestClientGoScenarioTransformRunsOncePerObject(t *testing.T) {
	onBoth(t, scenarioTransformRunsOncePerObject)
}

func scenarioTransformRunsOncePerObject(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	create(s, cm("ns", "gone", ""))
	var mu sync.Mutex
	seen := map[string]int{} // name@rv → transforms
	rec := newRecorder(t)
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		if err := inf.SetTransform(func(o any) (any, error) {
			c, ok := o.(*corev1.ConfigMap)
			if !ok {
				return nil, fmt.Errorf("transform got a %T", o)
			}
			mu.Lock()
			seen[c.Name+"@"+c.ResourceVersion]++
			mu.Unlock()
			c = c.DeepCopy()
			c.Annotations = map[string]string{"transformed": "yes"}
			return c, nil
		}); err != nil {
			t.Fatal(err)
		}
		handlerKinds[0].add(t, inf, rec)
	})
	waitSynced(t, inf)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	mu.Lock()
	initial := maps.Clone(seen)
	clear(seen)
	mu.Unlock()

	update(s, "ns", "a", "2")
	final := del(s, "ns", "a")
	eventually(t, "delete of a", func() bool { return len(rec.snapshot()) == 4 })
	s.SetDown(true)
	del(s, "ns", "gone")
	s.Compact()
	s.SetDown(false)
	eventually(t, "relist delete", func() bool {
		for _, e := range rec.snapshot() {
			if e.kind == "delete" && e.obj.Name == "gone" {
				return true
			}
		}
		return false
	})
	for _, e := range rec.snapshot() {
		if e.obj.Annotations["transformed"] != "yes" {
			t.Errorf("%s of %s@%s carries an untransformed object", e.kind, e.obj.Name, e.obj.ResourceVersion)
		}
		if e.kind == "delete" && e.obj.Name == "a" && e.obj.ResourceVersion != final.ResourceVersion {
			t.Errorf("the delete of a carries %s, want its final state %s", e.obj.ResourceVersion, final.ResourceVersion)
		}
	}
	if len(initial) != 2 || initial["a@1"] == 0 || initial["gone@2"] == 0 {
		t.Errorf("the initial list transformed %v, want a@1 and gone@2", initial)
	}
	if im.name == ctrlgenImpl.name && (initial["a@1"] != 1 || initial["gone@2"] != 1) {
		t.Errorf("ctrlgen transformed the initial list %v, want each object once", initial)
	}
	mu.Lock()
	defer mu.Unlock()
	// a@3, a@4 (its delete), and nothing for the tombstone of gone.
	if want := map[string]int{"a@3": 1, "a@4": 1}; !maps.Equal(seen, want) {
		t.Errorf("after the sync transformed %v, want %v", seen, want)
	}
}

// relist makes the informer relist: the server forgets its history, so the
// watch, resumed from the last version seen, gets 410 Gone.
func relist(s *server) {
	s.Compact()
	s.CloseWatches()
}

// shared_informer_test.go TestSharedInformerWatchDisruption, before any
// resync check: changes the watch missed are found by the relist. A new
// object is an add, one whose resourceVersion changed an update, and one
// that did not change is an update with the same resourceVersion, which
// until the first resync check reaches every handler.
func TestClientGoScenarioRelistDeliversWhatTheWatchMissed(t *testing.T) {
	onBoth(t, scenarioRelistDeliversWhatTheWatchMissed)
}

func scenarioRelistDeliversWhatTheWatchMissed(t *testing.T, im impl) {
	for _, hk := range handlerKinds {
		t.Run(hk.name, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "pod1", "1"))
			create(s, cm("ns", "pod2", "1"))
			rec := newRecorder(t)
			inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) { hk.add(t, inf, rec) })
			waitSynced(t, inf)
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			var pod2 *corev1.ConfigMap
			s.Detached(func() {
				create(s, cm("ns", "pod3", "1"))
				pod2 = update(s, "ns", "pod2", "2")
			})
			relist(s)
			barrier(t, s, "pod4", rec)
			got := map[string]event{}
			for _, e := range rec.snapshot()[2:] {
				if _, dup := got[e.obj.Name]; dup {
					t.Fatalf("%s told twice after the relist: %v", e.obj.Name, kinds(rec.snapshot()))
				}
				got[e.obj.Name] = e
			}
			if e := got["pod3"]; e.kind != "add" || e.flag {
				t.Errorf("pod3: %+v, want an add not in the initial list", e)
			}
			if e := got["pod2"]; e.kind != "update" || e.old.Data["v"] != "1" || e.obj.ResourceVersion != pod2.ResourceVersion {
				t.Errorf("pod2: %+v, want an update from 1 to its new version", e)
			}
			if e := got["pod1"]; e.kind != "update" || e.old.ResourceVersion != e.obj.ResourceVersion {
				t.Errorf("pod1: %+v, want an update that keeps the resourceVersion", e)
			}
			if cached, _, _ := inf.GetStore().GetByKey("ns/pod2"); cached.(*corev1.ConfigMap).ResourceVersion != pod2.ResourceVersion {
				t.Error("cache does not hold what the relist found")
			}
		})
	}
}

// delta_fifo_test.go TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue
// and TestDeltaFIFO_ReplaceMakesDeletions, as an informer's user sees them:
// an object deleted while the watch was down is a delete with an unknown
// final state carrying the last known object, told once however many
// relists follow.
func TestClientGoScenarioMissedDeleteIsToldOnce(t *testing.T) {
	onBoth(t, scenarioMissedDeleteIsToldOnce)
}

func scenarioMissedDeleteIsToldOnce(t *testing.T, im impl) {
	for _, hk := range handlerKinds {
		t.Run(hk.name, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "gone", "last"))
			create(s, cm("ns", "kept", ""))
			rec := newRecorder(t)
			inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) { hk.add(t, inf, rec) })
			waitSynced(t, inf)
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			s.Detached(func() { del(s, "ns", "gone") })
			relist(s)
			barrier(t, s, "b1", rec)
			s.Detached(func() { update(s, "ns", "kept", "2") })
			relist(s)
			barrier(t, s, "b2", rec)
			var deletes []event
			for _, e := range rec.snapshot() {
				if e.kind == "delete" {
					deletes = append(deletes, e)
				}
			}
			if len(deletes) != 1 || deletes[0].obj.Name != "gone" || !deletes[0].flag || deletes[0].obj.Data["v"] != "last" {
				t.Fatalf("deletes %+v, want one of gone, final state unknown, with its last known object", deletes)
			}
			if _, ok, _ := inf.GetStore().GetByKey("ns/gone"); ok {
				t.Fatal("gone still cached")
			}
		})
	}
}

// A relist that finds an object under a known name with a new UID (it was
// deleted and created again while the watch was down): both caches end
// with the new object, and the handlers are told of it after the relist,
// not as part of an initial list.
//
// How they are told differs, by design of ctrlgen's DeltaFIFO (see its
// Replace): client-go v0.37.2 tells an update from the old object to the
// new one; ctrlgen tells a delete of the old object, with an unknown final
// state, then an add of the new one. Each implementation is checked
// against its own.
func TestClientGoScenarioRecreatedObjectFoundByRelist(t *testing.T) {
	onBoth(t, scenarioRecreatedObjectFoundByRelist)
}

func scenarioRecreatedObjectFoundByRelist(t *testing.T, im impl) {
	for _, hk := range handlerKinds {
		t.Run(hk.name, func(t *testing.T) {
			s := newServer()
			old := create(s, cm("ns", "a", "old"))
			rec := newRecorder(t)
			inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) { hk.add(t, inf, rec) })
			waitSynced(t, inf)
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			var recreated *corev1.ConfigMap
			s.Detached(func() {
				del(s, "ns", "a")
				recreated = create(s, cm("ns", "a", "new"))
			})
			relist(s)
			barrier(t, s, "b", rec)
			if cached, _, _ := inf.GetStore().GetByKey("ns/a"); cached.(*corev1.ConfigMap).UID != recreated.UID {
				t.Error("cache holds the old object")
			}
			ev := without(rec.snapshot()[1:], "b")
			if len(ev) == 0 {
				t.Fatal("the handler was told nothing of the recreated object")
			}
			if last := ev[len(ev)-1]; last.obj.UID != recreated.UID || last.kind == "delete" || (last.kind == "add" && last.flag) {
				t.Errorf("last event %+v, want the new object, not in an initial list", last)
			}
			switch im.name {
			case clientGoImpl.name:
				if !slices.Equal(kinds(ev), []string{"update:a"}) {
					t.Fatalf("after the relist: %v, want [update:a]", kinds(ev))
				}
				if ev[0].old.UID != old.UID {
					t.Errorf("update from %+v, want from the old object", ev[0].old)
				}
			case ctrlgenImpl.name:
				if !slices.Equal(kinds(ev), []string{"delete:a", "add:a"}) {
					t.Fatalf("after the relist: %v, want [delete:a add:a]", kinds(ev))
				}
				if ev[0].obj.UID != old.UID || !ev[0].flag {
					t.Errorf("delete %+v, want the old object with unknown final state", ev[0])
				}
			}
		})
	}
}

// delta_fifo_test.go TestDeltaFIFO_basic and TestDeltaFIFO_addUpdate: the
// changes to one object reach every handler in the order they were made,
// however quickly they follow each other.
func TestClientGoScenarioChangesToOneObjectKeepTheirOrder(t *testing.T) {
	onBoth(t, scenarioChangesToOneObjectKeepTheirOrder)
}

func scenarioChangesToOneObjectKeepTheirOrder(t *testing.T, im impl) {
	s := newServer()
	recs := []*recorder{newRecorder(t), newRecorder(t), newRecorder(t)}
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		for i, hk := range handlerKinds {
			hk.add(t, inf, recs[i])
		}
	})
	waitSynced(t, inf)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	want := map[string][]string{}
	for i := range 20 {
		name := fmt.Sprint("o", i)
		create(s, cm("ns", name, "0"))
		want[name] = append(want[name], "add")
	}
	for round := 1; round <= 5; round++ {
		for i := range 20 {
			name := fmt.Sprint("o", i)
			update(s, "ns", name, fmt.Sprint(round))
			want[name] = append(want[name], "update")
		}
	}
	for i := range 20 {
		if i%2 == 0 {
			name := fmt.Sprint("o", i)
			del(s, "ns", name)
			want[name] = append(want[name], "delete")
		}
	}
	for i, r := range recs {
		eventually(t, handlerKinds[i].name, func() bool { return len(r.snapshot()) == 20+100+10 })
		got := map[string][]string{}
		lastRV := map[string]string{}
		for _, e := range r.snapshot() {
			got[e.obj.Name] = append(got[e.obj.Name], e.kind)
			if prev := lastRV[e.obj.Name]; prev != "" && len(e.obj.ResourceVersion) <= len(prev) && e.obj.ResourceVersion <= prev {
				t.Fatalf("%s: %s of %s at %s after %s", handlerKinds[i].name, e.kind, e.obj.Name, e.obj.ResourceVersion, prev)
			}
			lastRV[e.obj.Name] = e.obj.ResourceVersion
		}
		for name, w := range want {
			if !slices.Equal(got[name], w) {
				t.Fatalf("%s: %s saw %v, want %v", handlerKinds[i].name, name, got[name], w)
			}
		}
	}
}

// wait_test.go TestWaitFor: client-go's WaitFor and WaitForCacheSync take
// the informer's and registrations' checkers, and give up when the context
// ends before a sync.
func TestClientGoScenarioWaitFor(t *testing.T) { onBoth(t, scenarioWaitFor) }

func scenarioWaitFor(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	var reg clientcache.ResourceEventHandlerRegistration
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		reg, _ = inf.AddEventHandler(clientcache.ResourceEventHandlerFuncs{})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if !clientcache.WaitFor(ctx, "caches", inf.HasSyncedChecker(), reg.HasSyncedChecker()) {
		t.Fatal("WaitFor gave up on a syncing informer")
	}
	if inf.HasSyncedChecker().Name() == "" || reg.HasSyncedChecker().Name() == "" {
		t.Error("a checker has no name")
	}
	if !clientcache.WaitForCacheSync(ctx.Done(), inf.HasSynced, reg.HasSynced) {
		t.Fatal("WaitForCacheSync gave up on a synced informer")
	}

	down := newServer()
	down.SetDown(true)
	never, _ := im.start(t, down, informerOptions{}, nil)
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	if clientcache.WaitFor(short, "", never.HasSyncedChecker()) {
		t.Fatal("WaitFor reported a sync that cannot have happened")
	}
	if clientcache.IsDone(never.HasSyncedChecker()) || never.HasSynced() {
		t.Fatal("an informer whose server is down reports synced")
	}
}

// shared_informer_test.go TestShutdown: once Run has returned, nothing the
// informer started is left running, whether handlers were added before
// Run, after the sync, or never given a Run at all.
func TestClientGoScenarioShutdownLeavesNoGoroutines(t *testing.T) {
	onBoth(t, scenarioShutdownLeavesNoGoroutines)
}

func scenarioShutdownLeavesNoGoroutines(t *testing.T, im impl) {
	for _, tc := range []struct {
		name string
		run  bool
		late bool
	}{{"handler before Run", true, false}, {"handler after sync", true, true}, {"no Run", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			s := newServer()
			create(s, cm("ns", "a", ""))
			inf := im.newInformer(s.ListerWatcher(), informerOptions{resync: time.Second})
			h := clientcache.ResourceEventHandlerFuncs{AddFunc: func(any) {}}
			var reg clientcache.ResourceEventHandlerRegistration
			var err error
			if !tc.late {
				if reg, err = inf.AddEventHandler(h); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.run {
				return
			}
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				inf.Run(stop)
			}()
			waitSynced(t, inf)
			if tc.late {
				if reg, err = inf.AddEventHandler(h); err != nil {
					t.Fatal(err)
				}
			}
			eventually(t, "handler synced", reg.HasSynced)
			close(stop)
			<-done
			if err := inf.RemoveEventHandler(reg); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// shared_informer_test.go TestIndexer: an index added to a running
// informer indexes the cached objects at once and follows later ones; a
// stopped informer refuses it with client-go's error.
func TestClientGoScenarioAddIndexersWhileRunning(t *testing.T) {
	onBoth(t, scenarioAddIndexersWhileRunning)
}

func scenarioAddIndexersWhileRunning(t *testing.T, im impl) {
	s := newServer()
	create(s, labelled("ns", "a", "x", "y"))
	inf, cancel := im.start(t, s, informerOptions{indexers: clientcache.Indexers{"labels": byLabelKey}}, nil)
	var sii clientcache.SharedIndexInformer = inf
	waitSynced(t, sii)
	if err := sii.AddIndexers(clientcache.Indexers{"labels-again": byLabelKey}); err != nil {
		t.Fatalf("AddIndexers on a running informer: %v", err)
	}
	if objs, err := sii.GetIndexer().ByIndex("labels-again", "x"); err != nil || !slices.Equal(namesOf(objs), []string{"a"}) {
		t.Fatalf("ByIndex(labels-again, x) right after AddIndexers = %v, %v", namesOf(objs), err)
	}
	create(s, labelled("ns", "b", "x"))
	eventually(t, "b indexed", func() bool {
		objs, _ := sii.GetIndexer().ByIndex("labels-again", "x")
		return slices.Equal(namesOf(objs), []string{"a", "b"})
	})
	if got := sorted(sii.GetIndexer().ListIndexFuncValues("labels-again")); !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("values = %v", got)
	}
	if err := sii.AddIndexers(clientcache.Indexers{"labels": byLabelKey}); err == nil {
		t.Fatal("a taken index name accepted while running")
	}
	cancel()
	eventually(t, "stopped", sii.IsStopped)
	err := sii.AddIndexers(clientcache.Indexers{"late": byLabelKey})
	if err == nil || err.Error() != "indexer was not added because it has stopped already" {
		t.Fatalf("AddIndexers on a stopped informer: %v", err)
	}
}

// shared_informer_test.go TestRemoveEventHandler_SynchronousShutdown and
// TestShutDownEventHandler_Lifecycles: client-go's ShutDownEventHandler
// removes a handler and returns once it is no longer running, so that
// what the handler uses can be released; it works on an informer never
// started, on a handler added after the sync and on one added before Run.
func TestClientGoScenarioShutDownEventHandler(t *testing.T) { onBoth(t, scenarioShutDownEventHandler) }

func scenarioShutDownEventHandler(t *testing.T, im impl) {
	t.Run("waits for a running callback", func(t *testing.T) {
		s := newServer()
		inf, _ := im.start(t, s, informerOptions{}, nil)
		waitSynced(t, inf)
		started, release := make(chan struct{}), make(chan struct{})
		var returned atomic.Bool
		var once sync.Once
		reg, err := inf.AddEventHandler(clientcache.ResourceEventHandlerFuncs{AddFunc: func(any) {
			once.Do(func() {
				close(started)
				<-release
				returned.Store(true)
			})
		}})
		if err != nil {
			t.Fatal(err)
		}
		create(s, cm("ns", "a", ""))
		<-started
		close(release)
		if err := clientcache.ShutDownEventHandler(inf, reg); err != nil {
			t.Fatal(err)
		}
		if !returned.Load() {
			t.Fatal("ShutDownEventHandler returned while the callback still ran")
		}
		// Idempotent, as RemoveEventHandler.
		if err := clientcache.ShutDownEventHandler(inf, reg); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct {
		name        string
		run, before bool
	}{{"informer never started", false, true}, {"added after the sync", true, false}, {"added before Run", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", ""))
			inf := im.newInformer(s.ListerWatcher(), informerOptions{resync: 0})
			h := clientcache.ResourceEventHandlerFuncs{AddFunc: func(any) {}}
			var reg clientcache.ResourceEventHandlerRegistration
			var err error
			if tc.before {
				if reg, err = inf.AddEventHandler(h); err != nil {
					t.Fatal(err)
				}
			}
			if tc.run {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(ctx)
				}()
				defer func() {
					cancel()
					<-done
				}()
				waitSynced(t, inf)
			}
			if !tc.before {
				if reg, err = inf.AddEventHandler(h); err != nil {
					t.Fatal(err)
				}
			}
			shut := make(chan error, 1)
			go func() { shut <- clientcache.ShutDownEventHandler(inf, reg) }()
			select {
			case err := <-shut:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("ShutDownEventHandler never returned")
			}
		})
	}
}

// shared_informer_test.go TestEventPanics: when the process is set not to
// crash on panics (utilruntime.ReallyCrash false), a handler that panics
// has the panic handled and logged, loses that one notification, and is
// told the later ones; the other handlers are not disturbed.
func TestClientGoScenarioPanickingHandlerKeepsReceiving(t *testing.T) {
	onBoth(t, scenarioPanickingHandlerKeepsReceiving)
}

func scenarioPanickingHandlerKeepsReceiving(t *testing.T, im impl) {
	oldCrash, oldHandlers := utilruntime.ReallyCrash, utilruntime.PanicHandlers
	t.Cleanup(func() { utilruntime.ReallyCrash, utilruntime.PanicHandlers = oldCrash, oldHandlers })
	utilruntime.ReallyCrash = false
	panics := make(chan any, 10)
	utilruntime.PanicHandlers = append(slices.Clone(oldHandlers), func(_ context.Context, r any) { panics <- r })

	s := newServer()
	panicking, calm := newRecorder(t), newRecorder(t)
	h := panicking.untyped().(clientcache.ResourceEventHandlerDetailedFuncs)
	record := h.AddFunc
	h.AddFunc = func(obj any, initial bool) {
		if obj.(*corev1.ConfigMap).Name == "boom" {
			panic("fake panic")
		}
		record(obj, initial)
	}
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		if _, err := inf.AddEventHandler(h); err != nil {
			t.Fatal(err)
		}
		handlerKinds[1].add(t, inf, calm)
	})
	waitSynced(t, inf)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	for _, n := range []string{"a", "boom", "c"} {
		create(s, cm("ns", n, ""))
	}
	eventually(t, "calm handler", func() bool { return len(calm.snapshot()) == 3 })
	select {
	case r := <-panics:
		if r != "fake panic" {
			t.Fatalf("panic handler got %v", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the handler's panic was not handled")
	}
	eventually(t, "after the panic", func() bool { return len(panicking.snapshot()) == 2 })
	if got := kinds(panicking.snapshot()); !slices.Equal(got, []string{"add:a", "add:c"}) {
		t.Fatalf("panicking handler saw %v, want [add:a add:c]", got)
	}
}

// resyncClock is a fake clock for the resync scenarios. The informer times
// its resync checks with its Reflector's clock, arming one timer at a time,
// so that with no backoff under way the clock has one waiter: the next
// check.
type resyncClock struct {
	t *testing.T
	*clocktesting.FakeClock
}

func newResyncClock(t *testing.T) *resyncClock {
	return &resyncClock{t, clocktesting.NewFakeClock(time.Unix(1_000_000, 0))}
}

// advance moves the clock by d and, when that made a resync check, waits
// until the check is done: the Sync deltas it queued precede whatever is
// queued after advance returns.
func (c *resyncClock) advance(d time.Duration) {
	c.t.Helper()
	c.Step(d)
	if c.Waiters() == 0 {
		eventually(c.t, "the resync check", func() bool { return c.Waiters() == 1 })
	}
}

// armed waits for the first resync check to be armed.
func (c *resyncClock) armed() {
	c.t.Helper()
	eventually(c.t, "resync timer", func() bool { return c.Waiters() == 1 })
}

// resyncs returns the names told as resyncs (updates that keep the
// resourceVersion) to r, in order.
func resyncs(r *recorder) []string {
	var out []string
	for _, e := range r.snapshot() {
		if e.kind == "update" && e.old.ResourceVersion == e.obj.ResourceVersion {
			out = append(out, e.obj.Name)
		}
	}
	return out
}

// startWithClock starts ctrlgen's informer with c as its clock.
func startWithClock(t *testing.T, s *server, c *resyncClock, resync time.Duration, setup func(informer)) informer {
	t.Helper()
	return startWithClockOn(t, ctrlgenImpl, s, c, resync, func(inf typedInformer) {
		if setup != nil {
			setup(inf.(informer))
		}
	}).(informer)
}

// startWithClockOn starts im's informer with c as its clock, and waits
// for its sync and its watch; it skips the test when im's informer takes
// no clock.
func startWithClockOn(t *testing.T, im impl, s *server, c *resyncClock, resync time.Duration, setup func(typedInformer)) typedInformer {
	t.Helper()
	im.needsClock(t)
	inf, _ := im.start(t, s, informerOptions{resync: resync, clock: c}, setup)
	waitSynced(t, inf)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	return inf
}

// shared_informer_test.go TestListenerResyncPeriods: each handler is
// resynced on its own period: never, every 2s, every 3s, on an informer
// whose default is 1s.
func TestClientGoScenarioResyncPeriodsPerHandler(t *testing.T) {
	onBoth(t, scenarioResyncPeriodsPerHandler)
}

func scenarioResyncPeriodsPerHandler(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "pod1", ""))
	create(s, cm("ns", "pod2", ""))
	c := newResyncClock(t)
	l1, l2, l3 := newRecorder(t), newRecorder(t), newRecorder(t)
	startWithClockOn(t, im, s, c, time.Second, func(inf typedInformer) {
		for r, p := range map[*recorder]time.Duration{l1: 0, l2: 2 * time.Second, l3: 3 * time.Second} {
			if _, err := inf.AddEventHandlerWithResyncPeriod(r.untyped(), p); err != nil {
				t.Fatal(err)
			}
		}
	})
	c.armed()
	c.advance(time.Second)
	barrier(t, s, "b1", l1, l2, l3)
	for i, r := range []*recorder{l1, l2, l3} {
		if got := resyncs(r); len(got) != 0 {
			t.Fatalf("listener%d resynced at 1s: %v", i+1, got)
		}
	}
	c.advance(time.Second)
	barrier(t, s, "b2", l1, l2, l3)
	if got := sorted(resyncs(l2)); !slices.Equal(got, []string{"b1", "pod1", "pod2"}) {
		t.Fatalf("listener2 at 2s resynced %v, want every object", got)
	}
	if len(resyncs(l1))+len(resyncs(l3)) != 0 {
		t.Fatalf("listeners 1 and 3 resynced at 2s: %v, %v", resyncs(l1), resyncs(l3))
	}
	c.advance(time.Second)
	barrier(t, s, "b3", l1, l2, l3)
	if got := sorted(resyncs(l3)); !slices.Equal(got, []string{"b1", "b2", "pod1", "pod2"}) {
		t.Fatalf("listener3 at 3s resynced %v, want every object", got)
	}
	if n := len(resyncs(l2)); n != 3 || len(resyncs(l1)) != 0 {
		t.Fatalf("at 3s listener2 resynced again (%d) or listener1 did (%v)", n, resyncs(l1))
	}
}

// shared_informer_test.go TestResyncCheckPeriod: handlers added before
// Run lower the informer's check period to the shortest period asked for,
// and each handler keeps its own period.
func TestClientGoScenarioResyncCheckPeriodFollowsHandlers(t *testing.T) {
	onBoth(t, scenarioResyncCheckPeriodFollowsHandlers)
}

func scenarioResyncCheckPeriodFollowsHandlers(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	c := newResyncClock(t)
	periods := []time.Duration{0, time.Minute, 55 * time.Second, 5 * time.Second}
	recs := make([]*recorder, len(periods))
	startWithClockOn(t, im, s, c, 12*time.Hour, func(inf typedInformer) {
		for i, p := range periods {
			recs[i] = newRecorder(t)
			if _, err := inf.AddEventHandlerWithResyncPeriod(recs[i].untyped(), p); err != nil {
				t.Fatal(err)
			}
		}
	})
	c.armed()
	// count returns how many times each handler has resynced a.
	count := func() []int {
		out := make([]int, len(recs))
		for i, r := range recs {
			for _, n := range resyncs(r) {
				if n == "a" {
					out[i]++
				}
			}
		}
		return out
	}
	for _, step := range []struct {
		by   time.Duration
		want []int
	}{
		{5 * time.Second, []int{0, 0, 0, 1}},  // 5s: the 5s handler only
		{50 * time.Second, []int{0, 0, 1, 2}}, // 55s
		{5 * time.Second, []int{0, 1, 1, 3}},  // 60s
		{5 * time.Second, []int{0, 1, 1, 4}},  // 65s
	} {
		c.advance(step.by)
		barrier(t, s, fmt.Sprint("b", c.Now().Unix()), recs...)
		if got := count(); !slices.Equal(got, step.want) {
			t.Fatalf("after %v resyncs of handlers with periods %v: %v, want %v", step.by, periods, got, step.want)
		}
	}
}

// client-go raises a handler's resync period below one second to one
// second, and an informer whose default resync period is zero does no
// resyncs at all, whatever its handlers ask for.
func TestClientGoScenarioResyncLimits(t *testing.T) { onBoth(t, scenarioResyncLimits) }

func scenarioResyncLimits(t *testing.T, im impl) {
	im.needsClock(t)
	t.Run("at least a second", func(t *testing.T) {
		s := newServer()
		create(s, cm("ns", "a", ""))
		c := newResyncClock(t)
		r := newRecorder(t)
		startWithClockOn(t, im, s, c, time.Second, func(inf typedInformer) {
			if _, err := inf.AddEventHandlerWithResyncPeriod(r.untyped(), 100*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		})
		c.armed()
		c.advance(100 * time.Millisecond)
		barrier(t, s, "b1", r)
		if got := resyncs(r); len(got) != 0 {
			t.Fatalf("a handler asking for 100ms was resynced after 100ms: %v", got)
		}
		c.advance(900 * time.Millisecond)
		barrier(t, s, "b2", r)
		if got := sorted(resyncs(r)); !slices.Equal(got, []string{"a", "b1"}) {
			t.Fatalf("after a second the handler resynced %v", got)
		}
	})
	t.Run("none on an informer without a default", func(t *testing.T) {
		s := newServer()
		create(s, cm("ns", "a", ""))
		c := newResyncClock(t)
		r := newRecorder(t)
		startWithClockOn(t, im, s, c, 0, func(inf typedInformer) {
			if _, err := inf.AddEventHandlerWithResyncPeriod(r.untyped(), time.Second); err != nil {
				t.Fatal(err)
			}
		})
		if n := c.Waiters(); n != 0 {
			t.Fatalf("an informer without a resync period armed %d resync timers", n)
		}
		c.Step(time.Hour)
		barrier(t, s, "b", r)
		if got := resyncs(r); len(got) != 0 {
			t.Fatalf("resynced %v", got)
		}
	})
}

// shared_informer_test.go TestSharedInformerWatchDisruption: once a resync
// check has run, an object a relist finds unchanged is told only to the
// handlers that resync, as a resync; what changed is told to every handler.
func TestClientGoScenarioRelistAfterResyncCheck(t *testing.T) {
	onBoth(t, scenarioRelistAfterResyncCheck)
}

func scenarioRelistAfterResyncCheck(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "pod1", "1"))
	create(s, cm("ns", "pod2", "1"))
	c := newResyncClock(t)
	quiet, resyncing := newRecorder(t), newRecorder(t)
	startWithClockOn(t, im, s, c, time.Second, func(inf typedInformer) {
		inf.AddEventHandlerWithResyncPeriod(quiet.untyped(), 0)
		inf.AddEventHandlerWithResyncPeriod(resyncing.untyped(), time.Second)
	})
	c.armed()
	c.advance(time.Second)
	eventually(t, "first resync", func() bool { return len(resyncs(resyncing)) == 2 })
	quietBefore, resyncingBefore := len(quiet.snapshot()), len(resyncing.snapshot())

	s.Detached(func() {
		create(s, cm("ns", "pod3", "1"))
		update(s, "ns", "pod2", "2")
	})
	relist(s)
	// The reflector backs off on the fake clock before it relists.
	eventually(t, "relist", func() bool {
		if c.Waiters() > 1 {
			c.Step(10 * time.Millisecond)
		}
		for _, e := range quiet.snapshot() {
			if e.obj.Name == "pod3" {
				return true
			}
		}
		return false
	})
	barrier(t, s, "pod4", quiet, resyncing)
	got := kinds(without(quiet.snapshot()[quietBefore:], "pod4"))
	if !slices.Equal(sorted(got), []string{"add:pod3", "update:pod2"}) {
		t.Errorf("the handler without resync was told %v after the relist, want [update:pod2 add:pod3]", got)
	}
	got = kinds(without(resyncing.snapshot()[resyncingBefore:], "pod4"))
	if !slices.Equal(sorted(got), []string{"add:pod3", "update:pod1", "update:pod2"}) {
		t.Errorf("the resyncing handler was told %v after the relist, want pod1's resync too", got)
	}
}

func atRV(name, rv string) *corev1.ConfigMap {
	c := cm("ns", name, "")
	c.ResourceVersion = rv
	return c
}

// thread_safe_store_test.go TestThreadSafeStoreRV, through cache.Store:
// the store's last resourceVersion is that of the last object written,
// added, updated or deleted with its state, or of the last Replace or
// Bookmark; a delete by tombstone leaves it.
func TestClientGoScenarioStoreResourceVersion(t *testing.T) { onBoth(t, scenarioStoreResourceVersion) }

func scenarioStoreResourceVersion(t *testing.T, im impl) {
	var store clientcache.Store = im.newIndexer(nil)
	check := func(what, want string) {
		t.Helper()
		if got := store.LastStoreSyncResourceVersion(); got != want {
			t.Errorf("after %s: LastStoreSyncResourceVersion = %q, want %q", what, got, want)
		}
	}
	check("nothing", "")
	store.Add(atRV("a", "10"))
	check("Add at 10", "10")
	store.Add(atRV("b", "10"))
	check("another Add at 10", "10")
	store.Update(atRV("c", "20"))
	check("Update at 20", "20")
	store.Delete(atRV("c", "30"))
	check("Delete at 30", "30")
	store.Delete(clientcache.DeletedFinalStateUnknown{Key: "ns/b", Obj: atRV("b", "10")})
	check("a tombstone's Delete", "30")
	store.Add(atRV("d", "40"))
	check("Add at 40", "40")
	store.Replace([]any{atRV("e", "41"), atRV("f", "45")}, "50")
	check("Replace at 50", "50")
	store.Bookmark("60")
	check("Bookmark at 60", "60")
}

// The store of a running informer, as client-go's: at the list's
// resourceVersion once synced, then at that of each change it applies,
// and at the relist's after a relist.
func TestClientGoScenarioInformerStoreResourceVersion(t *testing.T) {
	onBoth(t, scenarioInformerStoreResourceVersion)
}

func scenarioInformerStoreResourceVersion(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	create(s, cm("ns", "b", ""))
	marker := create(s, cm("ns", "c", "")) // the list's resourceVersion is the last write's
	rec := newRecorder(t)
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) { handlerKinds[0].add(t, inf, rec) })
	waitSynced(t, inf)
	store := inf.GetStore()
	if got := store.LastStoreSyncResourceVersion(); got != marker.ResourceVersion {
		t.Fatalf("synced store at %q, want the list's %q", got, marker.ResourceVersion)
	}
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	u := update(s, "ns", "a", "2")
	eventually(t, "update applied", func() bool { return store.LastStoreSyncResourceVersion() == u.ResourceVersion })
	d := del(s, "ns", "b")
	eventually(t, "delete applied", func() bool { return store.LastStoreSyncResourceVersion() == d.ResourceVersion })

	var last *corev1.ConfigMap
	s.Detached(func() {
		del(s, "ns", "c")
		last = create(s, cm("ns", "d", ""))
	})
	relist(s)
	eventually(t, "relist applied", func() bool { return store.LastStoreSyncResourceVersion() == last.ResourceVersion })
	if _, ok, _ := store.GetByKey("ns/c"); ok {
		t.Fatal("the store is at the relist's version but still holds what it dropped")
	}
}

// A transform may rename what it caches, as TestSharedInformerTransformer's
// does; the cache is keyed by the transformed object, so a relist that
// finds the same objects tells updates, not deletes and adds.
func TestClientGoScenarioRenamingTransformSurvivesRelist(t *testing.T) {
	onBoth(t, scenarioRenamingTransformSurvivesRelist)
}

func scenarioRenamingTransformSurvivesRelist(t *testing.T, im impl) {
	s := newServer()
	create(s, cm("ns", "pod1", ""))
	create(s, cm("ns", "pod2", ""))
	rec := newRecorder(t)
	inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
		if err := inf.SetTransform(func(o any) (any, error) {
			c := o.(*corev1.ConfigMap).DeepCopy()
			c.Name = strings.ToUpper(c.Name)
			return c, nil
		}); err != nil {
			t.Fatal(err)
		}
		handlerKinds[0].add(t, inf, rec)
	})
	waitSynced(t, inf)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	s.Detached(func() { update(s, "ns", "pod2", "2") })
	relist(s)
	create(s, cm("ns", "zz", ""))
	eventually(t, "barrier", func() bool {
		for _, e := range rec.snapshot() {
			if e.obj.Name == "ZZ" {
				return true
			}
		}
		return false
	})
	got := sorted(kinds(without(rec.snapshot()[2:], "ZZ")))
	if !slices.Equal(got, []string{"update:POD1", "update:POD2"}) {
		t.Fatalf("after a relist: %v, want an update of each object", got)
	}
	if keys := sorted(inf.GetStore().ListKeys()); !slices.Equal(keys, []string{"ns/POD1", "ns/POD2", "ns/ZZ"}) {
		t.Fatalf("cache keys %v", keys)
	}
	del(s, "ns", "pod1")
	eventually(t, "delete", func() bool { _, ok, _ := inf.GetStore().GetByKey("ns/POD1"); return !ok })
}

// store_test.go TestKeyError: what has no key is refused with client-go's
// KeyError, which wraps the cause.
func TestClientGoScenarioKeyErrors(t *testing.T) { onBoth(t, scenarioKeyErrors) }

func scenarioKeyErrors(t *testing.T, im impl) {
	var store clientcache.Store = im.newIndexer(nil)
	for name, call := range map[string]func() error{
		"Add":    func() error { return store.Add(42) },
		"Update": func() error { return store.Update("x") },
		"Delete": func() error { return store.Delete(42) },
		"Get":    func() error { _, _, err := store.Get(42); return err },
	} {
		err := call()
		var keyErr clientcache.KeyError
		if !errors.As(err, &keyErr) || keyErr.Err == nil || errors.Unwrap(keyErr) != keyErr.Err {
			t.Errorf("%s of an object without metadata: %v (%T), want a KeyError", name, err, err)
		}
	}
}

// thread_safe_store AddIndexers conflicts, as client-go reports them:
// every taken name, the namespace index included when it was given, and
// nothing added. GetIndexers gives back the index functions given.
func TestClientGoScenarioIndexerConflicts(t *testing.T) { onBoth(t, scenarioIndexerConflicts) }

func scenarioIndexerConflicts(t *testing.T, im impl) {
	var idx clientcache.Indexer = im.newIndexer(clientcache.Indexers{
		"a": byLabelKey, "b": byLabelKey, clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc,
	})
	err := idx.AddIndexers(clientcache.Indexers{"b": byLabelKey, "a": byLabelKey, "c": byLabelKey})
	if err == nil || err.Error() != "indexer conflict: map[a:{} b:{}]" {
		t.Fatalf("two taken names: %v", err)
	}
	if _, ok := idx.GetIndexers()["c"]; ok {
		t.Fatal("a refused AddIndexers added some of its indexes")
	}
	err = idx.AddIndexers(clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc})
	if err == nil || err.Error() != "indexer conflict: map[namespace:{}]" {
		t.Fatalf("the namespace index added again: %v", err)
	}

	// Not nil: client-go's indexer given nil Indexers panics in AddIndexers.
	var plain clientcache.Indexer = im.newIndexer(clientcache.Indexers{})
	if got := plain.GetIndexers(); len(got) != 0 {
		t.Fatalf("GetIndexers of an indexer given none: %v", got)
	}
	if err := plain.AddIndexers(clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc}); err != nil {
		t.Fatal(err)
	}
	if _, ok := plain.GetIndexers()[clientcache.NamespaceIndex]; !ok {
		t.Fatal("GetIndexers lacks the namespace index added")
	}
	if err := plain.AddIndexers(clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc}); err == nil {
		t.Fatal("the namespace index added twice")
	}
}

// delta_fifo.go dedupDeltas and isDeletionDup, on a DeltaFIFO built as an
// informer builds one (its indexer as known objects; client-go's emitting
// Replaced deltas): of two deletes of one key queued one after the other,
// the older is kept, unless the older is a tombstone a relist made
// (DeletedFinalStateUnknown), when the known delete after it is kept. A
// relist after a known delete leaves that delete alone, and deletes with
// another change between them are both kept.
func TestClientGoScenarioDeltaFIFODeletesOfOneKey(t *testing.T) {
	onBoth(t, scenarioDeltaFIFODeletesOfOneKey)
}

func scenarioDeltaFIFODeletesOfOneKey(t *testing.T, im impl) {
	deleted := func(rv string, tombstone bool) poppedDelta {
		return poppedDelta{Type: "Deleted", RV: rv, Tombstone: tombstone}
	}
	for _, tc := range []struct {
		name string
		// feed changes ns/a, which the known objects hold at version 1.
		feed func(q deltaQueue) error
		want []poppedDelta
	}{
		{"two known deletes keep the older", func(q deltaQueue) error {
			return errors.Join(q.Delete(atRV("a", "2")), q.Delete(atRV("a", "3")))
		}, []poppedDelta{deleted("2", false)}},
		{"a tombstone then a known delete keep the known one", func(q deltaQueue) error {
			return errors.Join(q.Replace(nil, "2"), q.Delete(atRV("a", "3")))
		}, []poppedDelta{deleted("3", false)}},
		{"a known delete then a relist keep the known delete", func(q deltaQueue) error {
			return errors.Join(q.Delete(atRV("a", "2")), q.Replace(nil, "3"))
		}, []poppedDelta{deleted("2", false)}},
		{"deletes with an add between them are all kept", func(q deltaQueue) error {
			return errors.Join(q.Delete(atRV("a", "2")), q.Add(atRV("a", "3")), q.Delete(atRV("a", "4")))
		}, []poppedDelta{deleted("2", false), {Type: "Added", RV: "3"}, deleted("4", false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			known := im.newIndexer(clientcache.Indexers{})
			if err := known.Add(atRV("a", "1")); err != nil {
				t.Fatal(err)
			}
			q := im.newDeltaFIFO(known)
			if err := tc.feed(q); err != nil {
				t.Fatal(err)
			}
			got := q.closeAndPopAll(t)
			want := []popped{{Key: "ns/a", Deltas: tc.want}}
			if !slices.EqualFunc(got, want, func(a, b popped) bool { return a.Key == b.Key && slices.Equal(a.Deltas, b.Deltas) }) {
				t.Fatalf("popped %+v, want %+v", got, want)
			}
		})
	}
}

// reflector.go ListAndWatchWithContext and watchList: a streamed initial
// list (WatchList, on by default in v0.37.2) that fails with anything
// client-go streams again after (connection refused, 429, an expired or
// too large resourceVersion) is followed by a paginated LIST in the same
// cycle. An informer whose path to the server fails streamed lists (a 503
// from a proxy, a transport error) but serves lists syncs at once, without
// an error for the watch error handler; it streams again at its next
// relist.
func TestClientGoScenarioFailedStreamedListFallsBackToList(t *testing.T) {
	onBoth(t, scenarioFailedStreamedListFallsBackToList)
}

func scenarioFailedStreamedListFallsBackToList(t *testing.T, im impl) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	for name, fail := range map[string]error{
		"503":             apierrors.NewServiceUnavailable("no endpoints available"),
		"transport error": errors.New("read tcp 127.0.0.1:1->127.0.0.1:6443: read: connection reset by peer"),
	} {
		t.Run(name, func(t *testing.T) {
			// Registered first, so checked last: once the informer has
			// stopped, nothing it started is left running.
			ignore := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, ignore) })

			s := newServer()
			create(s, cm("ns", "a", ""))
			create(s, cm("ns", "b", ""))
			s.FailNextWatches(fail)
			var mu sync.Mutex
			var handled []error
			rec := newRecorder(t)
			var reg clientcache.ResourceEventHandlerRegistration
			inf, _ := im.start(t, s, informerOptions{}, func(inf typedInformer) {
				if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *clientcache.Reflector, err error) {
					mu.Lock()
					handled = append(handled, err)
					mu.Unlock()
				}); err != nil {
					t.Fatal(err)
				}
				reg = handlerKinds[0].add(t, inf, rec)
			})
			waitSynced(t, inf)
			eventually(t, "handler synced", reg.HasSynced)
			mu.Lock()
			errs := slices.Clone(handled)
			mu.Unlock()
			if len(errs) != 0 {
				t.Fatalf("the watch error handler was told %v; want the failed stream followed by a list, no error", errs)
			}
			lists, watches := s.Calls()
			if len(streamed(watches)) != 1 || len(lists) != 1 {
				t.Fatalf("synced after %d streamed lists and %d lists, want the failed stream, then a list in the same cycle", len(streamed(watches)), len(lists))
			}
			if got := kinds(rec.snapshot()); !slices.Equal(sorted(got), []string{"add:a", "add:b"}) {
				t.Fatalf("handler told %v, want the list's objects", got)
			}
			for _, e := range rec.snapshot() {
				if !e.flag {
					t.Errorf("%s not told as part of the initial list", e.obj.Name)
				}
			}

			// No refusal: the relist after a 410 streams.
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			s.Detached(func() {
				del(s, "ns", "b")
				s.Compact()
			})
			s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
			eventually(t, "relist by a stream", func() bool {
				_, watches := s.Calls()
				return len(streamed(watches)) == 2 && s.OpenWatches() == 1 &&
					slices.Equal(inf.GetStore().ListKeys(), []string{"ns/a"})
			})
			if lists, _ := s.Calls(); len(lists) != 1 {
				t.Fatalf("%d lists, want the relist streamed", len(lists))
			}
		})
	}
}

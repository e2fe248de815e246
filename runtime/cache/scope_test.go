package cache_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// TestHashRangesAgreeWithTheServer: a value's bucket is the range the
// apiserver's own hash (sharding.HashField) and bounds comparison
// (sharding.HexLess) put it in, and adjacent buckets merge into one range.
func TestHashRangesAgreeWithTheServer(t *testing.T) {
	for _, n := range []int{1, 3, 4, 7, 12, 64} {
		h := cache.Namespaces(n)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		for v := range 2000 {
			value := fmt.Sprintf("ns-%d", v)
			b := h.Bucket(value)
			if b < 0 || b >= n {
				t.Fatalf("n=%d: bucket %d of %q", n, b, value)
			}
			hash := "0x" + sharding.HashField(value)
			lo, hi := bounds(t, h.Selector([]int{b}))
			if sharding.HexLess(hash, lo) || !sharding.HexLess(hash, hi) {
				t.Fatalf("n=%d: %q hashes to %s, outside its bucket %d's range [%s, %s)", n, value, hash, b, lo, hi)
			}
		}
		if got, want := h.Selector(all), "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')"; got != want {
			t.Errorf("n=%d: all buckets: %s, want %s", n, got, want)
		}
	}
	if got, want := cache.Namespaces(4).Selector([]int{0, 1, 3}), "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')"; got != want {
		t.Errorf("buckets 0, 1, 3 of 4: %s, want %s", got, want)
	}
	if got, want := cache.Namespaces(3).Selector([]int{1}), "shardRange(object.metadata.namespace, '0x5555555555555556', '0xaaaaaaaaaaaaaaab')"; got != want {
		t.Errorf("bucket 1 of 3: %s, want %s", got, want)
	}
	if got := cache.Namespaces(3).Selector(nil); got != "" {
		t.Errorf("no buckets: %q", got)
	}
}

// bounds parses a one-range selector.
func bounds(t *testing.T, selector string) (lo, hi string) {
	t.Helper()
	parts := strings.Split(selector, "'")
	if len(parts) != 5 || !strings.HasPrefix(selector, "shardRange(object.metadata.namespace, ") {
		t.Fatalf("not one range: %q", selector)
	}
	return parts[1], parts[3]
}

// scopeEvents records a scoped informer's adds and deletes by key.
type scopeEvents struct {
	mu      sync.Mutex
	adds    []cache.ObjectName
	deletes []cache.ObjectName
	added   chan cache.ObjectName
	// taken counts what was read from added.
	taken int
}

func (e *scopeEvents) handler() clientcache.ResourceEventHandler {
	return clientcache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			key := cache.MetaObjectName(obj.(*corev1.ConfigMap))
			e.mu.Lock()
			e.adds = append(e.adds, key)
			e.mu.Unlock()
			e.added <- key
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(clientcache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			e.mu.Lock()
			e.deletes = append(e.deletes, cache.MetaObjectName(obj.(*corev1.ConfigMap)))
			e.mu.Unlock()
		},
	}
}

// TestRescope: an informer scoped to buckets by namespace holds and tells
// its handlers of only those; rescoped, it evicts what left the scope
// without a delete and adds what entered it, and a real delete in scope
// still reaches the handlers. The same with a server that filters by the
// shard selector and with one that ignores it.
func TestRescope(t *testing.T) {
	h := cache.Namespaces(4)
	// Two namespaces per bucket.
	byBucket := map[int][]string{}
	for i := 0; len(byBucket[0]) < 2 || len(byBucket[1]) < 2 || len(byBucket[2]) < 2 || len(byBucket[3]) < 2; i++ {
		ns := fmt.Sprintf("ns-%d", i)
		if b := h.Bucket(ns); len(byBucket[b]) < 2 {
			byBucket[b] = append(byBucket[b], ns)
		}
	}
	scope := func(held ...int) cache.Scope[*corev1.ConfigMap] {
		return cache.HashRangeScope(h, held, (*corev1.ConfigMap).GetNamespace)
	}
	keys := func(held ...int) []cache.ObjectName {
		var out []cache.ObjectName
		for _, b := range held {
			for _, ns := range byBucket[b] {
				out = append(out, cache.NewObjectName(ns, "a"), cache.NewObjectName(ns, "b"))
			}
		}
		slices.SortFunc(out, compareNames)
		return out
	}
	for _, filters := range []bool{true, false} {
		t.Run(fmt.Sprintf("server filters %v", filters), func(t *testing.T) {
			srv := newServer()
			if filters {
				selectors := map[string]func(any) bool{}
				for _, held := range [][]int{{0, 1}, {1, 2}} {
					sc := scope(held...)
					selectors[sc.ShardSelector] = func(obj any) bool { return sc.Contains(obj.(*corev1.ConfigMap)) }
				}
				srv.ServeShardSelectors(func(selector string) (func(any) bool, error) {
					if f, ok := selectors[selector]; ok {
						return f, nil
					}
					return nil, fmt.Errorf("unexpected selector %q", selector)
				})
			}
			for _, b := range []int{0, 1, 2, 3} {
				for _, ns := range byBucket[b] {
					for _, name := range []string{"a", "b"} {
						if _, err := srv.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			inf := cache.NewSharedIndexInformer[*corev1.ConfigMap](srv.ListerWatcher(), 0, clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc})
			rescoper := inf.(cache.Rescoper[*corev1.ConfigMap])
			initial := rescoper.Rescope(scope(0, 1))
			events := &scopeEvents{added: make(chan cache.ObjectName, 100)}
			if _, err := inf.AddEventHandler(events.handler()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go inf.RunWithContext(ctx)
			<-initial
			if !inf.HasSynced() {
				t.Fatal("the scope's first list was handled, and the informer has not synced")
			}
			if got, want := cachedKeys(inf), keys(0, 1); !slices.Equal(got, want) {
				t.Fatalf("scoped to buckets 0 and 1, the cache holds %v, want %v", got, want)
			}
			waitAdds(t, events, len(keys(0, 1)))

			<-rescoper.Rescope(scope(1, 2))
			if got, want := cachedKeys(inf), keys(1, 2); !slices.Equal(got, want) {
				t.Fatalf("rescoped to buckets 1 and 2, the cache holds %v, want %v", got, want)
			}
			waitAdds(t, events, len(keys(0, 1))+len(keys(2)))
			events.mu.Lock()
			added := slices.Clone(events.adds[len(keys(0, 1)):])
			deleted := slices.Clone(events.deletes)
			events.mu.Unlock()
			slices.SortFunc(added, compareNames)
			if want := keys(2); !slices.Equal(added, want) {
				t.Errorf("rescoping added %v, want bucket 2's %v", added, want)
			}
			if len(deleted) != 0 {
				t.Errorf("rescoping told handlers of deletes: %v", deleted)
			}

			// A create out of scope is not heard of; one in scope is, after it.
			out, in := cache.NewObjectName(byBucket[0][0], "c"), cache.NewObjectName(byBucket[2][0], "c")
			for _, key := range []cache.ObjectName{out, in} {
				if _, err := srv.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}); err != nil {
					t.Fatal(err)
				}
			}
			if got := <-events.added; got != in {
				events.taken++
				t.Errorf("after rescoping, an add of %v, want only %v's", got, in)
			}
			if _, ok, _ := inf.GetIndexer().GetByKey(out.String()); ok {
				t.Errorf("%v, outside the scope, is cached", out)
			}
			// A delete in scope is a delete.
			gone := cache.NewObjectName(byBucket[1][0], "a")
			if _, err := srv.Delete(gone); err != nil {
				t.Fatal(err)
			}
			if !clientcache.WaitForCacheSync(ctx.Done(), func() bool {
				events.mu.Lock()
				defer events.mu.Unlock()
				return len(events.deletes) > 0
			}) {
				t.Fatal("no delete")
			}
			events.mu.Lock()
			if !slices.Equal(events.deletes, []cache.ObjectName{gone}) {
				t.Errorf("deletes %v, want %v", events.deletes, gone)
			}
			events.mu.Unlock()

			lists, watches := srv.Calls()
			for _, opts := range append(lists, watches...) {
				if opts.ShardSelector != scope(0, 1).ShardSelector && opts.ShardSelector != scope(1, 2).ShardSelector {
					t.Errorf("a list or watch with shard selector %q", opts.ShardSelector)
				}
			}
		})
	}
}

// waitAdds waits for the first n adds.
func waitAdds(t *testing.T, e *scopeEvents, n int) {
	t.Helper()
	for ; e.taken < n; e.taken++ {
		<-e.added
	}
}

func cachedKeys(inf cache.SharedIndexInformer[*corev1.ConfigMap]) []cache.ObjectName {
	keys := inf.FastIndexer().ListNames()
	slices.SortFunc(keys, compareNames)
	return keys
}

func compareNames(a, b cache.ObjectName) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// TestConcurrentRescopesAllSync: Rescopes at once from several
// goroutines each see their channel closed, and the cache ends in one of
// their scopes.
func TestConcurrentRescopesAllSync(t *testing.T) {
	h := cache.Namespaces(4)
	srv := newServer()
	for i := range 40 {
		if _, err := srv.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i), Name: "a"}}); err != nil {
			t.Fatal(err)
		}
	}
	inf := cache.NewSharedIndexInformer[*corev1.ConfigMap](srv.ListerWatcher(), 0, nil)
	rescoper := inf.(cache.Rescoper[*corev1.ConfigMap])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	if !clientcache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("not synced")
	}
	var wg sync.WaitGroup
	for b := range 4 {
		wg.Go(func() {
			select {
			case <-rescoper.Rescope(cache.HashRangeScope(h, []int{b}, (*corev1.ConfigMap).GetNamespace)):
			case <-ctx.Done():
			}
		})
	}
	wg.Wait()
	buckets := map[int]bool{}
	for _, key := range inf.FastIndexer().ListNames() {
		buckets[h.Bucket(key.Namespace)] = true
	}
	if len(buckets) > 1 {
		t.Errorf("the cache holds objects of buckets %v: not one scope", buckets)
	}
}

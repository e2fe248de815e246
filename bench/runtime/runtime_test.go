package runtimebench

import (
	"fmt"
	"testing"

	"github.com/ctrlgen/ctrlgen/bench/internal/widget"
)

// The quick tests run every workload at a small size through both
// implementations and check that the counts are right, so that `make test`
// catches a benchmark that measures the wrong thing.

func TestFixtures(t *testing.T) {
	if n := widget.EncodedSize(); n < 800 || n > 1300 {
		t.Errorf("a Widget is %d bytes of JSON, want about 1 KB", n)
	}
	list := widget.List(300)
	if len(list.Items) != 300 || list.ResourceVersion == "" {
		t.Fatalf("list: %d items, resourceVersion %q", len(list.Items), list.ResourceVersion)
	}
	seen := map[string]bool{}
	for i := range list.Items {
		w := &list.Items[i]
		key := w.Namespace + "/" + w.Name
		if seen[key] {
			t.Fatalf("duplicate object %s", key)
		}
		seen[key] = true
		if len(w.Labels) == 0 || len(w.Annotations) == 0 || len(w.Spec.Config) == 0 || len(w.Spec.Tags) == 0 || w.Status.Phase == "" {
			t.Fatalf("%s was not decoded whole: %+v", key, w)
		}
	}
	if &list.Items[0].Labels == &list.Items[1].Labels {
		t.Fatal("objects share their labels")
	}
	c := list.Items[7].DeepCopy()
	c.Labels["x"], c.Spec.Config["x"], c.Spec.Tags[0] = "y", "y", "y"
	if list.Items[7].Labels["x"] != "" || list.Items[7].Spec.Config["x"] != "" || list.Items[7].Spec.Tags[0] == "y" {
		t.Fatal("DeepCopy shares maps or slices with the original")
	}

	ups := widget.Updates(10, 30)
	for j, w := range ups {
		orig := &list.Items[j%10]
		if w.Namespace != orig.Namespace || w.Name != orig.Name || w.UID != orig.UID {
			t.Fatalf("update %d is of %s/%s, want %s/%s", j, w.Namespace, w.Name, orig.Namespace, orig.Name)
		}
		if w.ResourceVersion == orig.ResourceVersion {
			t.Fatalf("update %d has the resourceVersion of the original", j)
		}
	}
	keys := widget.Keys(1000)
	distinct := map[string]bool{}
	for _, k := range keys {
		distinct[k] = true
	}
	if len(distinct) != 1000 {
		t.Fatalf("%d distinct keys of 1000", len(distinct))
	}
}

func TestInitialList(t *testing.T) {
	const n = 3000
	list := widget.List(n)
	for _, impl := range InformerImpls {
		t.Run(impl.Name, func(t *testing.T) {
			res, err := InitialList(NoTimer{}, impl, list)
			if err != nil {
				t.Fatal(err)
			}
			want := InformerResult{Counts: Counts{Adds: n, InitialAdds: n}, Cached: n, Lists: 1, Watches: res.Watches}
			if res != want || res.Watches > 1 {
				t.Fatalf("got %+v, want %+v with at most one watch", res, want)
			}
		})
	}
}

func TestNamespaceIndex(t *testing.T) {
	const n = 1000
	list := widget.List(n)
	for _, impl := range InformerImpls {
		t.Run(impl.Name, func(t *testing.T) {
			c := NewCounter(n, 0)
			inf := impl.New(list, &WatchSource{}, c)
			inf.Start()
			defer inf.Stop()
			if err := waitSynced(inf, c); err != nil {
				t.Fatal(err)
			}
			total := 0
			for i := range widget.Namespaces {
				ns := fmt.Sprintf("team-%02d", i)
				objs, err := inf.ByNamespace(ns)
				if err != nil {
					t.Fatal(err)
				}
				for _, obj := range objs {
					if obj.Namespace != ns {
						t.Fatalf("%s/%s indexed under %s", obj.Namespace, obj.Name, ns)
					}
				}
				total += len(objs)
			}
			if total != n {
				t.Fatalf("the namespace index holds %d objects, want %d", total, n)
			}
		})
	}
}

func TestWatchUpdates(t *testing.T) {
	const base, events = 100, 5000
	list := widget.List(base)
	updates := widget.Updates(base, events)
	for _, impl := range InformerImpls {
		t.Run(impl.Name, func(t *testing.T) {
			var stale []string
			res, err := WatchUpdates(NoTimer{}, impl, list, ModifiedEvents(updates), func(inf Informer) {
				// The cache holds the last version of each key.
				for _, last := range updates[events-base:] {
					got, ok := inf.Get(last.Namespace, last.Name)
					if !ok || got != last {
						stale = append(stale, last.Namespace+"/"+last.Name)
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			want := InformerResult{Counts: Counts{Adds: base, InitialAdds: base, Updates: events}, Cached: base, Lists: 1, Watches: 1}
			if res != want {
				t.Fatalf("got %+v, want %+v", res, want)
			}
			if len(stale) > 0 {
				t.Fatalf("%d objects are not at their last version, e.g. %s", len(stale), stale[0])
			}
		})
	}
}

func TestWatchUpdatesPaced(t *testing.T) {
	const base, events = 100, 2000
	list := widget.List(base)
	for _, impl := range InformerImpls {
		t.Run(impl.Name, func(t *testing.T) {
			res, err := WatchUpdatesPaced(NoTimer{}, impl, list, ModifiedEvents(widget.Updates(base, events)))
			if err != nil {
				t.Fatal(err)
			}
			want := InformerResult{Counts: Counts{Adds: base, InitialAdds: base, Updates: events}, Cached: base, Lists: 1, Watches: 1}
			if res != want {
				t.Fatalf("got %+v, want %+v", res, want)
			}
		})
	}
}

func TestWorkQueue(t *testing.T) {
	const n = 20_000
	keys := widget.Keys(n)
	for _, impl := range QueueImpls {
		t.Run(impl.Name, func(t *testing.T) {
			var got [Workers][]string
			processed, err := WorkQueue(NoTimer{}, impl, keys, func(w int, key string) {
				got[w] = append(got[w], key)
			})
			if err != nil {
				t.Fatal(err)
			}
			if processed != n {
				t.Fatalf("%d items processed, want %d", processed, n)
			}
			times := map[string]int{}
			for _, keys := range got {
				for _, k := range keys {
					times[k]++
				}
			}
			for _, k := range keys {
				if times[k] != 1 {
					t.Fatalf("%s processed %d times", k, times[k])
				}
			}
			if len(times) != n {
				t.Fatalf("%d distinct keys processed, want %d", len(times), n)
			}
		})
	}
}

func TestMemory(t *testing.T) {
	const n = 5000
	list := widget.List(n)
	for _, impl := range InformerImpls {
		t.Run(impl.Name, func(t *testing.T) {
			res, err := Memory(impl, list)
			if err != nil {
				t.Fatal(err)
			}
			perObject := func(a, b uint64) float64 { return (float64(a) - float64(b)) / n }
			t.Logf("overhead %.0f B/object; the cached objects beyond the input list: %.0f B/object",
				res.Overhead(), perObject(res.Held, res.Before))
			if o := res.Overhead(); o <= 0 || o > 4096 {
				t.Fatalf("overhead %.0f B/object: the measurement is broken (%+v)", o, res)
			}
		})
	}
}

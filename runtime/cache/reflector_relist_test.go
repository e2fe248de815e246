package cache_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// After a 410 the watch cache has moved past the reflector's version X,
// but etcd has not compacted X. A relist that the apiserver reads as an
// exact read at X (a limit and no resourceVersionMatch) returns the old
// state at X, and the watch from X gets 410 again: the reflector would
// relist forever with a stale cache. The relist must read at least X.
func TestReflectorRelistAfter410ReachesTheLatestState(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", "1"))
	create(s, cm("ns", "b", "2"))
	create(s, cm("ns", "c", "3"))
	h := runReflector(t, s, cache.ReflectorOptions{DisableWatchList: true})
	h.until(t, "first watch", func() bool { return s.OpenWatches() == 1 })

	s.Detached(func() {
		update(s, "ns", "a", "4")
		del(s, "ns", "b")
		create(s, cm("ns", "d", "6"))
	})
	s.TrimWatchCache() // the watch cache starts at 6 now; etcd keeps 3
	s.CloseWatches()   // so the rewatch from 3 gets 410

	const enough = 10
	h.until(t, "the latest state, or a relist loop", func() bool {
		return h.inSync() && s.OpenWatches() == 1 || len(h.lists()) > enough
	})
	lists, watches := h.lists(), h.watches()
	if !h.inSync() {
		t.Fatalf("cache is stale after %d lists:%s", len(lists), describeLists(lists))
	}
	if len(lists) != 2 {
		t.Fatalf("%d lists, want the initial one and one relist:%s", len(lists), describeLists(lists))
	}
	if relist := lists[1]; relist.ResourceVersion != "3" || relist.Limit != 0 || relist.ResourceVersionMatch != "" {
		t.Fatalf("relist options = %+v, want resourceVersion 3 without a limit, for the watch cache to serve", relist)
	}
	if last := watches[len(watches)-1]; last.ResourceVersion != "6" {
		t.Fatalf("last watch from %q, want 6", last.ResourceVersion)
	}
}

// Where lists at "0" come back paged, there is no watch cache to serve an
// unpaged list, so the relist keeps its pages; it asks for NotOlderThan so
// that the apiserver does not read the old state at exactly X.
func TestReflectorPagedRelistAfter410AsksForNotOlderThan(t *testing.T) {
	s := newServer()
	s.DisableWatchCache()
	create(s, cm("ns", "a", "1"))
	create(s, cm("ns", "b", "2"))
	create(s, cm("ns", "c", "3"))
	h := runReflector(t, s, cache.ReflectorOptions{PageSize: 2, DisableWatchList: true})
	h.until(t, "first watch", func() bool { return s.OpenWatches() == 1 })
	if n := len(h.lists()); n != 2 {
		t.Fatalf("initial list in %d pages, want 2", n)
	}

	s.Detached(func() {
		update(s, "ns", "a", "4")
		del(s, "ns", "b")
		create(s, cm("ns", "d", "6"))
	})
	// The server's own watch history still has 3: only a 410 makes it relist.
	s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})

	h.until(t, "the latest state", func() bool { return h.inSync() && s.OpenWatches() == 1 })
	lists := h.lists()
	if len(lists) != 4 {
		t.Fatalf("%d lists, want 2 pages and 2 pages:%s", len(lists), describeLists(lists))
	}
	relist := lists[2]
	if relist.ResourceVersion != "3" || relist.Limit != 2 || relist.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
		t.Fatalf("relist options = %+v, want resourceVersion 3, limit 2, NotOlderThan", relist)
	}
	if next := lists[3]; next.Continue == "" || next.ResourceVersion != "" || next.ResourceVersionMatch != "" {
		t.Fatalf("next page options = %+v, want only the continue token and limit", next)
	}
}

package cache_test

import (
	"context"
	"errors"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// reflectorHarness runs a cache.Reflector into a cache.DeltaFIFO backed by an cache.Indexer
// and applies popped deltas to the cache.Indexer, as an informer does.
type reflectorHarness struct {
	server  *server
	idx     cache.Indexer[*corev1.ConfigMap]
	fifo    *cache.DeltaFIFO[*corev1.ConfigMap]
	r       *cache.Reflector[*corev1.ConfigMap]
	mu      sync.Mutex
	errs    []error
	deletes []cache.Delta[*corev1.ConfigMap]
	cancel  context.CancelFunc
	done    chan struct{}
}

func startReflector(t *testing.T, s *server, opts cache.ReflectorOptions) *reflectorHarness {
	t.Helper()
	h := &reflectorHarness{server: s, idx: cache.NewIndexer[*corev1.ConfigMap](nil), done: make(chan struct{})}
	h.fifo = cache.NewDeltaFIFO[*corev1.ConfigMap](h.idx, nil)
	if opts.Backoff.Initial == 0 {
		opts.Backoff = fastBackoff
	}
	opts.WatchErrorHandler = func(_ context.Context, err error) {
		h.mu.Lock()
		h.errs = append(h.errs, err)
		h.mu.Unlock()
	}
	h.r = cache.NewReflector[*corev1.ConfigMap](s.ListerWatcher(), h.fifo, opts)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() {
		defer close(h.done)
		h.r.Run(ctx)
	}()
	go func() {
		for h.fifo.Pop(h.apply) == nil {
		}
	}()
	t.Cleanup(h.stop)
	return h
}

func (h *reflectorHarness) apply(_ cache.ObjectName, deltas cache.Deltas[*corev1.ConfigMap], _ bool) {
	for _, d := range deltas {
		if d.Type == cache.Deleted {
			h.idx.Delete(d.Object)
			h.mu.Lock()
			h.deletes = append(h.deletes, d)
			h.mu.Unlock()
		} else {
			h.idx.Update(d.Object)
		}
	}
}

func (h *reflectorHarness) stop() {
	h.cancel()
	<-h.done
	h.fifo.Close()
}

func (h *reflectorHarness) errors() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.errs...)
}

// inSync reports whether the cache holds exactly the server's objects at
// their latest versions.
func (h *reflectorHarness) inSync() bool {
	return cacheMatches(h.idx, h.server.State())
}

func cacheMatches(idx cache.Indexer[*corev1.ConfigMap], want map[cache.ObjectName]*corev1.ConfigMap) bool {
	if idx.Len() != len(want) {
		return false
	}
	for k, o := range want {
		got, ok, _ := idx.GetByKey(k)
		if !ok || got.ResourceVersion != o.ResourceVersion {
			return false
		}
	}
	return true
}

func TestReflectorListsFromWatchCacheThenWatchesFromListVersion(t *testing.T) {
	s := newServer()
	for i := range 7 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	h := startReflector(t, s, cache.ReflectorOptions{PageSize: 3, MinWatchTimeout: time.Minute})
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	eventually(t, "cache", h.inSync)

	// The watch cache ignores the limit of a list at "0": one call.
	lists, watches := s.Calls()
	if len(lists) != 1 || lists[0].ResourceVersion != "0" || lists[0].Limit != 3 {
		t.Fatalf("list calls = %+v, want one at resourceVersion 0 with limit 3", lists)
	}
	w := watches[0]
	if w.ResourceVersion != "7" || !w.AllowWatchBookmarks || w.TimeoutSeconds == nil || *w.TimeoutSeconds < 60 || *w.TimeoutSeconds >= 120 {
		t.Fatalf("watch options = %+v, want rv 7, bookmarks, timeout in [60s, 120s)", w)
	}
	create(s, cm("ns", "later", ""))
	eventually(t, "watched create", h.inSync)
}

func TestReflectorListsInPagesWithoutWatchCache(t *testing.T) {
	s := newServer()
	s.DisableWatchCache()
	for i := range 7 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	h := startReflector(t, s, cache.ReflectorOptions{PageSize: 3})
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	eventually(t, "cache", h.inSync)
	lists, watches := s.Calls()
	if len(lists) != 3 || lists[0].ResourceVersion != "0" || lists[0].Limit != 3 || lists[1].Continue == "" || lists[2].Continue == "" {
		t.Fatalf("list calls = %+v, want 3 pages starting at resourceVersion 0", lists)
	}
	if watches[0].ResourceVersion != "7" {
		t.Fatalf("watch from %q, want 7", watches[0].ResourceVersion)
	}
}

func TestReflectorFallsBackToConsistentListWhenWatchCacheCannotServe(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	s.SetRV0Unservable(true)
	h := startReflector(t, s, cache.ReflectorOptions{})
	eventually(t, "cache", h.inSync)
	lists, _ := s.Calls()
	if len(lists) != 2 || lists[0].ResourceVersion != "0" || lists[1].ResourceVersion != "" {
		t.Fatalf("list calls = %+v, want rv 0 then a consistent list", lists)
	}
	if len(h.errors()) != 0 {
		t.Fatalf("fallback reported errors: %v", h.errors())
	}
}

func TestReflectorRestartsListWhenContinueTokenExpires(t *testing.T) {
	s := newServer()
	for i := range 4 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	s.DisableWatchCache() // so that the list at "0" is paged
	s.ExpireNextContinues(1)
	h := startReflector(t, s, cache.ReflectorOptions{PageSize: 2})
	eventually(t, "cache", h.inSync)
	lists, _ := s.Calls()
	last := lists[len(lists)-1]
	if len(lists) != 3 || last.ResourceVersion != "" || last.Continue != "" {
		t.Fatalf("list calls = %+v, want page, expired page, consistent list", lists)
	}
}

func TestReflectorResumesFromLastVersionAfterWatchEnds(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	h := startReflector(t, s, cache.ReflectorOptions{})
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	update(s, "ns", "a", "2") // rv 2
	eventually(t, "update", h.inSync)
	s.CloseWatches()
	eventually(t, "second watch", func() bool { return s.OpenWatches() == 1 })
	create(s, cm("ns", "b", "")) // rv 3
	s.Bookmark()                 // bookmark at rv 3
	eventually(t, "create", h.inSync)
	eventually(t, "bookmark", func() bool { return h.r.LastSyncResourceVersion() == "3" })
	s.CloseWatches()
	eventually(t, "third watch", func() bool { return s.OpenWatches() == 1 })

	lists, watches := s.Calls()
	if len(lists) != 1 {
		t.Fatalf("relisted %d times after normal watch ends; want no relist", len(lists)-1)
	}
	if rvs := [3]string{watches[0].ResourceVersion, watches[1].ResourceVersion, watches[2].ResourceVersion}; rvs != [3]string{"1", "2", "3"} {
		t.Fatalf("watches resumed at %v, want [1 2 3]", rvs)
	}
}

func TestReflectorResumesAfterWatchErrorAndReportsIt(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	h := startReflector(t, s, cache.ReflectorOptions{})
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: "etcd hiccup"})
	update(s, "ns", "a", "2")
	eventually(t, "update after error", h.inSync)
	errs := h.errors()
	if len(errs) != 1 || !apierrors.IsInternalError(errs[0]) {
		t.Fatalf("watch error handler got %v, want the internal error once", errs)
	}
	if lists, _ := s.Calls(); len(lists) != 1 {
		t.Fatalf("relisted after a non-410 watch error (%d lists)", len(lists))
	}
}

func TestReflectorRetriesWatchWhileServerIsDown(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	h := startReflector(t, s, cache.ReflectorOptions{})
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	s.SetDown(true)
	eventually(t, "failed retries", func() bool { return len(h.errors()) >= 3 })
	update(s, "ns", "a", "2") // happens while the reflector is cut off
	s.SetDown(false)
	eventually(t, "catch up", h.inSync)
	if lists, _ := s.Calls(); len(lists) != 1 {
		t.Fatalf("relisted %d times; the change log still had the versions", len(lists)-1)
	}
}

func TestReflectorRelistsOn410AndTombstonesWhatVanished(t *testing.T) {
	for _, how := range []string{"at watch start", "in an error event"} {
		t.Run(how, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "gone", "last-known"))
			create(s, cm("ns", "kept", ""))
			h := startReflector(t, s, cache.ReflectorOptions{})
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			eventually(t, "initial", h.inSync)

			// The object is deleted and the log compacted where the
			// reflector cannot see it: while it is cut off, or with its
			// watch detached, so that only a relist can find the delete.
			if how == "at watch start" {
				s.SetDown(true)
			}
			s.Detached(func() {
				del(s, "ns", "gone")
				s.Compact()
			})
			if how == "at watch start" {
				s.SetDown(false)
			} else {
				s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
			}

			eventually(t, "relist", h.inSync)
			h.mu.Lock()
			deletes := append([]cache.Delta[*corev1.ConfigMap](nil), h.deletes...)
			h.mu.Unlock()
			if len(deletes) != 1 || !deletes[0].FinalStateUnknown || deletes[0].Object.Data["v"] != "last-known" {
				t.Fatalf("deletes = %+v, want one tombstone with the last known state", deletes)
			}
			expired := false
			for _, err := range h.errors() {
				expired = expired || isExpired(err)
			}
			if !expired {
				t.Fatalf("410 not reported to the watch error handler: %v", h.errors())
			}
		})
	}
}

func TestReflectorBacksOffOnListErrors(t *testing.T) {
	s := newServer()
	s.FailNextLists(errors.New("boom 1"), errors.New("boom 2"))
	create(s, cm("ns", "a", ""))
	h := startReflector(t, s, cache.ReflectorOptions{Backoff: cache.BackoffConfig{Initial: 20 * time.Millisecond, Max: time.Second}})
	start := time.Now()
	eventually(t, "cache", h.inSync)
	// Two failures wait at least 20ms and then 40ms.
	if waited := time.Since(start); waited < 60*time.Millisecond {
		t.Fatalf("recovered after %v; backoff not applied", waited)
	}
	if len(h.errors()) != 2 {
		t.Fatalf("errors reported: %v", h.errors())
	}
}

func TestReflectorStopsPromptlyOnCancel(t *testing.T) {
	s := newServer()
	s.SetDown(true)
	h := startReflector(t, s, cache.ReflectorOptions{Backoff: cache.BackoffConfig{Initial: time.Hour, Max: time.Hour}})
	eventually(t, "first failure", func() bool { return len(h.errors()) == 1 })
	h.cancel()
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel while backing off")
	}
}

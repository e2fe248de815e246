package cache_test

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// These tests drive the Reflector into a plain map store (see
// reflector_harness_test.go); what the informer's DeltaFIFO makes of its
// calls, tombstones included, is tested with the DeltaFIFO.

func TestReflectorListsFromWatchCacheThenWatchesFromListVersion(t *testing.T) {
	s := newServer()
	for i := range 7 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	h := runReflector(t, s, cache.ReflectorOptions{PageSize: 3, MinWatchTimeout: time.Minute, DisableWatchList: true})
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })

	// The watch cache ignores the limit of a list at "0": one call.
	lists, watches := s.Calls()
	if len(lists) != 1 || lists[0].ResourceVersion != "0" || lists[0].Limit != 3 {
		t.Fatalf("list calls:%s\nwant one at resourceVersion 0 with limit 3", describeLists(lists))
	}
	w := watches[0]
	if w.ResourceVersion != "7" || !w.AllowWatchBookmarks || w.TimeoutSeconds == nil || *w.TimeoutSeconds < 60 || *w.TimeoutSeconds >= 120 {
		t.Fatalf("watch options = %+v, want rv 7, bookmarks, timeout in [60s, 120s)", w)
	}
	create(s, cm("ns", "later", ""))
	h.until(t, "watched create", h.inSync)
}

func TestReflectorListsInPagesWithoutWatchCache(t *testing.T) {
	s := newServer()
	s.DisableWatchCache()
	for i := range 7 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	h := runReflector(t, s, cache.ReflectorOptions{PageSize: 3, DisableWatchList: true})
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
	lists, watches := s.Calls()
	if len(lists) != 3 || lists[0].ResourceVersion != "0" || lists[0].Limit != 3 || lists[1].Continue == "" || lists[2].Continue == "" {
		t.Fatalf("list calls:%s\nwant 3 pages starting at resourceVersion 0", describeLists(lists))
	}
	if watches[0].ResourceVersion != "7" {
		t.Fatalf("watch from %q, want 7", watches[0].ResourceVersion)
	}
}

func TestReflectorFallsBackToConsistentListWhenWatchCacheCannotServe(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	s.SetRV0Unservable(true)
	h := runReflector(t, s, cache.ReflectorOptions{DisableWatchList: true})
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
	lists := h.lists()
	if len(lists) != 2 || lists[0].ResourceVersion != "0" || lists[1].ResourceVersion != "" {
		t.Fatalf("list calls:%s\nwant rv 0 then a consistent list", describeLists(lists))
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
	h := runReflector(t, s, cache.ReflectorOptions{PageSize: 2, DisableWatchList: true})
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
	lists := h.lists()
	last := lists[len(lists)-1]
	if len(lists) != 3 || last.ResourceVersion != "" || last.Continue != "" || last.Limit != 0 {
		t.Fatalf("list calls:%s\nwant page, expired page, whole consistent list", describeLists(lists))
	}
}

func TestReflectorResumesFromLastVersionAfterWatchEnds(t *testing.T) {
	for _, path := range syncPaths {
		t.Run(path.name, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", ""))
			h := runReflector(t, s, cache.ReflectorOptions{DisableWatchList: path.disableWatchList})
			h.until(t, "watch", func() bool { return s.OpenWatches() == 1 })
			update(s, "ns", "a", "2") // rv 2
			h.until(t, "update", h.inSync)
			s.CloseWatches()
			h.until(t, "second watch", func() bool { return len(h.watches()) == 2 && s.OpenWatches() == 1 })
			create(s, cm("ns", "b", "")) // rv 3
			h.until(t, "create", h.inSync)
			// Versions 4 and 5 pass unseen by the watch, as changes to other
			// resources or objects outside its selection do; its bookmark carries 5.
			s.Detached(func() {
				create(s, cm("ns", "x", "")) // rv 4
				del(s, "ns", "x")            // rv 5
			})
			s.Bookmark()
			s.CloseWatches()
			h.until(t, "third watch", func() bool { return len(h.watches()) == 3 && s.OpenWatches() == 1 })

			if n := h.syncs(); n != 1 {
				t.Fatalf("relisted %d times after normal watch ends; want no relist", n-1)
			}
			watches := h.watches()
			// A streamed list asks for the latest state; a list's watch
			// starts at the list's version.
			first := "1"
			if !path.disableWatchList {
				first = ""
			}
			if rvs := [3]string{watches[0].ResourceVersion, watches[1].ResourceVersion, watches[2].ResourceVersion}; rvs != [3]string{first, "2", "5"} {
				t.Fatalf("watches resumed at %v, want [%s 2 5]", rvs, first)
			}
			if got := h.r.LastSyncResourceVersion(); got != "5" {
				t.Fatalf("LastSyncResourceVersion = %q, want the bookmark's 5", got)
			}
			if !h.inSync() {
				t.Fatal("cache out of sync")
			}
		})
	}
}

func TestReflectorResumesAfterWatchErrorAndReportsIt(t *testing.T) {
	for _, path := range syncPaths {
		t.Run(path.name, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", ""))
			h := runReflector(t, s, cache.ReflectorOptions{DisableWatchList: path.disableWatchList})
			h.until(t, "watch", func() bool { return s.OpenWatches() == 1 })
			s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: "etcd hiccup"})
			update(s, "ns", "a", "2")
			h.until(t, "update after error", func() bool { return h.inSync() && len(h.errors()) > 0 })
			errs := h.errors()
			if len(errs) != 1 || !apierrors.IsInternalError(errs[0]) {
				t.Fatalf("watch error handler got %v, want the internal error once", errs)
			}
			if n := h.syncs(); n != 1 {
				t.Fatalf("relisted after a non-410 watch error (%d syncs)", n)
			}
		})
	}
}

func TestReflectorRetriesWatchWhileServerIsDown(t *testing.T) {
	for _, path := range syncPaths {
		t.Run(path.name, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", ""))
			h := runReflector(t, s, cache.ReflectorOptions{DisableWatchList: path.disableWatchList})
			h.until(t, "watch", func() bool { return s.OpenWatches() == 1 })
			s.SetDown(true)
			h.until(t, "failed retries", func() bool { return len(h.errors()) >= 3 })
			update(s, "ns", "a", "2") // happens while the reflector is cut off
			s.SetDown(false)
			h.until(t, "catch up", h.inSync)
			if n := h.syncs(); n != 1 {
				t.Fatalf("relisted %d times; the change log still had the versions", n-1)
			}
		})
	}
}

func TestReflectorRelistsOn410AndDropsWhatVanished(t *testing.T) {
	for _, path := range syncPaths {
		for _, how := range []string{"at watch start", "in an error event", "from the watch call"} {
			t.Run(path.name+"/"+how, func(t *testing.T) {
				s := newServer()
				create(s, cm("ns", "gone", "last-known"))
				create(s, cm("ns", "kept", ""))
				h := runReflector(t, s, cache.ReflectorOptions{DisableWatchList: path.disableWatchList})
				h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })

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
				switch how {
				case "at watch start":
					s.SetDown(false) // the next watch, from 2, gets a 410 event
				case "in an error event":
					s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
				case "from the watch call":
					s.FailNextWatches(apierrors.NewResourceExpired("too old resource version: 2 (3)"))
					s.CloseWatches()
				}

				h.until(t, "relist", func() bool { return h.inSync() && s.OpenWatches() == 1 })
				if n := h.syncs(); n != 2 {
					lists, watches := s.Calls()
					t.Fatalf("%d syncs, want the first and one relist; lists:%s\nwatches: %+v", n, describeLists(lists), watches)
				}
				// After a 410, the streamed relist asks for a state at least
				// as new as the last seen.
				if st := streamed(h.watches()); !path.disableWatchList && (len(st) != 2 || st[1].ResourceVersion != "2") {
					t.Fatalf("streamed lists %+v, want the first and one from 2", st)
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
}

func TestReflectorBacksOffOnListErrors(t *testing.T) {
	s := newServer()
	s.FailNextLists(errors.New("boom 1"), errors.New("boom 2"))
	create(s, cm("ns", "a", ""))
	clk := newWaitClock()
	h := runReflector(t, s, cache.ReflectorOptions{Clock: clk, Backoff: cache.BackoffConfig{Initial: 20 * time.Millisecond, Max: time.Second}, DisableWatchList: true})
	clk.backOff(t, 20*time.Millisecond)
	clk.backOff(t, 40*time.Millisecond)
	h.until(t, "cache", h.inSync)
	if len(h.errors()) != 2 {
		t.Fatalf("errors reported: %v", h.errors())
	}
}

func TestReflectorStopsPromptlyOnCancel(t *testing.T) {
	s := newServer()
	s.SetDown(true)
	h := runReflector(t, s, cache.ReflectorOptions{Backoff: cache.BackoffConfig{Initial: time.Hour, Max: time.Hour}})
	h.until(t, "first failure", func() bool { return len(h.errors()) == 1 })
	h.cancel()
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel while backing off")
	}
}

// cacheMatches reports whether idx holds exactly want's objects at their
// resourceVersions. The informer's tests use it.
func cacheMatches(idx cache.FastIndexer[*corev1.ConfigMap], want map[cache.ObjectName]*corev1.ConfigMap) bool {
	if idx.Len() != len(want) {
		return false
	}
	for k, o := range want {
		got, ok := idx.GetByName(k)
		if !ok || got.ResourceVersion != o.ResourceVersion {
			return false
		}
	}
	return true
}

package cache_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
)

// The Reflector reads the whole state with a streamed list (WatchList), as
// client-go's does by default: these tests check its protocol, its
// fallback to a paginated list, and what turns it off. What both ways must
// do alike is tested on each (syncPaths).

func TestReflectorStreamsInitialListAndKeepsItsWatch(t *testing.T) {
	s := newServer()
	for i := range 5 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	h := runReflector(t, s, cache.ReflectorOptions{MinWatchTimeout: time.Minute})
	// The version is the initial-events-end bookmark's, 5.
	h.until(t, "watch, cache and version", func() bool {
		return s.OpenWatches() == 1 && h.inSync() && h.r.LastSyncResourceVersion() == "5"
	})
	update(s, "ns", "o1", "x")
	del(s, "ns", "o2")
	h.until(t, "watched changes", func() bool { return h.inSync() && h.r.LastSyncResourceVersion() == "7" })

	lists, watches := s.Calls()
	if len(lists) != 0 {
		t.Fatalf("listed:%s\nwant no list", describeLists(lists))
	}
	if len(watches) != 1 {
		t.Fatalf("%d watches, want the streamed list's only, carried on", len(watches))
	}
	w := watches[0]
	if w.SendInitialEvents == nil || !*w.SendInitialEvents || w.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan ||
		!w.AllowWatchBookmarks || w.ResourceVersion != "" || w.Limit != 0 ||
		w.TimeoutSeconds == nil || *w.TimeoutSeconds < 60 || *w.TimeoutSeconds >= 120 {
		t.Fatalf("watch options = %+v, want sendInitialEvents, NotOlderThan from \"\", bookmarks, timeout in [60s, 120s)", w)
	}
}

// errorEventLW answers a streamed list with a watch that sends status as
// an error event before any bookmark, as an apiserver whose storage cannot
// serve one does; everything else goes to the server.
type errorEventLW struct {
	cache.ListerWatcher[*corev1.ConfigMap]
	status *metav1.Status
	// streams counts the streamed lists asked for.
	streams *atomic.Int32
}

func (lw errorEventLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents == nil {
		return lw.ListerWatcher.Watch(ctx, opts)
	}
	lw.streams.Add(1)
	w := watch.NewFakeWithChanSize(1, false)
	w.Error(lw.status)
	return w, nil
}

// A server that refuses a streamed list is listed instead, without an
// error for the handler; the Reflector remembers it, and relists after a
// 410 without trying again.
func TestReflectorFallsBackToListWhenStreamingIsRefusedAndRemembers(t *testing.T) {
	storageCannot := &metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError,
		Message: "a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled"}
	for _, how := range []string{"feature off: 422 from the watch call", "storage cannot: 500 error event"} {
		t.Run(how, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", ""))
			create(s, cm("ns", "b", ""))
			var lw cache.ListerWatcher[*corev1.ConfigMap] = s.ListerWatcher()
			var errorEventStreams atomic.Int32
			if strings.HasPrefix(how, "feature off") {
				s.SetWatchListDisabled(true)
			} else {
				lw = errorEventLW{lw, storageCannot, &errorEventStreams}
			}
			h := runReflectorOn(t, s, lw, cache.ReflectorOptions{})
			h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
			if len(h.errors()) != 0 {
				t.Fatalf("the fallback reported errors: %v", h.errors())
			}

			s.Detached(func() {
				del(s, "ns", "b")
				s.Compact()
			})
			s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
			h.until(t, "relist", func() bool { return h.inSync() && s.OpenWatches() == 1 && len(h.lists()) >= 2 })

			lists, watches := s.Calls()
			if n := len(streamed(watches)) + int(errorEventStreams.Load()); n != 1 {
				t.Fatalf("%d streamed lists, want the refused one only", n)
			}
			if len(lists) != 2 || lists[0].ResourceVersion != "0" || lists[1].ResourceVersion != "2" {
				t.Fatalf("lists:%s\nwant the fallback at 0 and the relist at 2", describeLists(lists))
			}
		})
	}
}

// The failures client-go's watchList streams again after (the server
// unreachable, 429) back off and stream again.
func TestReflectorStreamsAgainWhenUnreachableOrThrottled(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	s.FailNextWatches(cachetest.ErrRefused, apierrors.NewTooManyRequests("slow down", 1))
	clk := newWaitClock()
	h := runReflector(t, s, cache.ReflectorOptions{Backoff: steadyBackoff, Clock: clk})
	for _, d := range []time.Duration{time.Second, 2 * time.Second} {
		clk.backOff(t, d)
	}
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
	lists, watches := s.Calls()
	if len(lists) != 0 || len(streamed(watches)) != 3 {
		t.Fatalf("%d lists and %d streamed lists, want 3 streamed lists and no list", len(lists), len(streamed(watches)))
	}
	if errs := h.errors(); len(errs) != 2 {
		t.Fatalf("errors reported: %v, want the 2 failures", errs)
	}
}

// Any other failure of a streamed list (a 503 from a proxy in the path, a
// transport error) is followed by a paginated list in the same cycle, as
// client-go's ListAndWatch falls back: a path that fails streams while it
// serves lists still syncs. It is no refusal: the next cycle streams again.
func TestReflectorListsWhenAStreamedListFails(t *testing.T) {
	for _, fail := range []error{
		apierrors.NewServiceUnavailable("no endpoints available"),
		errors.New("read tcp 127.0.0.1:1->127.0.0.1:6443: read: connection reset by peer"),
	} {
		t.Run(fail.Error(), func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", ""))
			create(s, cm("ns", "b", ""))
			s.FailNextWatches(fail)
			h := runReflector(t, s, cache.ReflectorOptions{})
			h.until(t, "list, watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
			if errs := h.errors(); len(errs) != 0 {
				t.Fatalf("the fallback reported errors: %v", errs)
			}
			lists, watches := s.Calls()
			if len(lists) != 1 || lists[0].ResourceVersion != "0" || len(streamed(watches)) != 1 {
				t.Fatalf("%d lists and %d streamed lists, want the failed stream, then one list at 0", len(lists), len(streamed(watches)))
			}

			relistByStream(t, s, h)
			if lists, _ := s.Calls(); len(lists) != 1 {
				t.Fatalf("%d lists, want the relist streamed", len(lists))
			}
		})
	}
}

// cutStreamLW ends the first streamed list's watch after its first event,
// before the bookmark, as a connection lost mid-stream.
type cutStreamLW struct {
	cache.ListerWatcher[*corev1.ConfigMap]
	cut chan struct{}
}

func (lw cutStreamLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := lw.ListerWatcher.Watch(ctx, opts)
	if err != nil || opts.SendInitialEvents == nil {
		return w, err
	}
	select {
	case <-lw.cut:
		return w, nil
	default:
		close(lw.cut)
	}
	defer w.Stop()
	ev := <-w.ResultChan()
	fake := watch.NewFakeWithChanSize(1, false)
	fake.Add(ev.Object)
	fake.Stop()
	return fake, nil
}

func TestReflectorStreamsAgainWhenStreamIsCutBeforeItsEnd(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	create(s, cm("ns", "b", ""))
	h := runReflectorOn(t, s, cutStreamLW{s.ListerWatcher(), make(chan struct{})}, cache.ReflectorOptions{})
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
	lists, watches := s.Calls()
	if len(lists) != 0 || len(streamed(watches)) != 2 {
		t.Fatalf("%d lists and %d streamed lists, want 2 streamed lists", len(lists), len(streamed(watches)))
	}
}

// Without a watch cache, etcd serves a streamed list at exactly the version
// asked; once compacted, the 410 makes the Reflector ask for the latest
// state at once.
func TestReflectorStreamedRelistAfterCompactionAsksForLatest(t *testing.T) {
	s := newServer()
	s.DisableWatchCache()
	create(s, cm("ns", "gone", ""))
	create(s, cm("ns", "kept", ""))
	h := runReflector(t, s, cache.ReflectorOptions{})
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
	s.Detached(func() {
		del(s, "ns", "gone")
		create(s, cm("ns", "new", ""))
		s.Compact()
	})
	s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
	h.until(t, "relist", func() bool { return h.inSync() && s.OpenWatches() == 1 })
	_, watches := s.Calls()
	st := streamed(watches)
	if len(st) != 3 || st[0].ResourceVersion != "" || st[1].ResourceVersion != "2" || st[2].ResourceVersion != "" {
		t.Fatalf("streamed lists %+v, want from \"\", from 2 (compacted), from \"\"", st)
	}
}

// The option, client-go's WatchListClient feature gate, and a client that
// says it cannot stream, each make the Reflector list: it never asks for
// a streamed list.
func TestReflectorWatchListTurnedOff(t *testing.T) {
	for _, how := range []string{"option", "feature gate", "client unsupported"} {
		t.Run(how, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", ""))
			var opts cache.ReflectorOptions
			switch how {
			case "option":
				opts.DisableWatchList = true
			case "feature gate":
				clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
			case "client unsupported":
				s.SetWatchListSemanticsUnsupported(true)
			}
			h := runReflector(t, s, opts)
			h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
			checkNeverStreamed(t, s)
		})
	}
}

func checkNeverStreamed(t *testing.T, s *server) {
	t.Helper()
	lists, watches := s.Calls()
	if st := streamed(watches); len(st) != 0 || len(lists) != 1 {
		t.Fatalf("%d streamed lists and %d lists, want one list only", len(st), len(lists))
	}
	for _, w := range watches {
		if w.SendInitialEvents != nil || w.ResourceVersionMatch != "" {
			t.Fatalf("watch options %+v ask for initial events", w)
		}
	}
}

const envSwitchChild = "CTRLGEN_TEST_WATCHLIST_ENV_CHILD"

// KUBE_FEATURE_WatchListClient=false turns streamed lists off, as in
// client-go: client-go reads it once per process, so the check runs in a
// child process of this test binary.
func TestReflectorWatchListEnvSwitch(t *testing.T) {
	if os.Getenv(envSwitchChild) == "1" {
		s := newServer()
		create(s, cm("ns", "a", ""))
		h := runReflector(t, s, cache.ReflectorOptions{})
		h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
		checkNeverStreamed(t, s)
		t.Log("child: listed, never streamed")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReflectorWatchListEnvSwitch$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envSwitchChild+"=1", "KUBE_FEATURE_WatchListClient=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "child: listed, never streamed") {
		t.Fatalf("child did not run the check:\n%s", out)
	}
}

// midStreamErrorLW fails the first streamed list with status after its
// first object, as a server that began to serve it and then failed.
type midStreamErrorLW struct {
	cache.ListerWatcher[*corev1.ConfigMap]
	status *metav1.Status
	once   *sync.Once
}

func (lw midStreamErrorLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := lw.ListerWatcher.Watch(ctx, opts)
	if err != nil || opts.SendInitialEvents == nil {
		return w, err
	}
	var fake *watch.FakeWatcher
	lw.once.Do(func() {
		defer w.Stop()
		ev := <-w.ResultChan()
		fake = watch.NewFakeWithChanSize(2, false)
		fake.Add(ev.Object)
		fake.Error(lw.status)
	})
	if fake != nil {
		return fake, nil
	}
	return w, nil
}

// relistByStream deletes b and compacts, ends the watch with a 410, and
// waits for the relist to be streamed: the second streamed list.
func relistByStream(t *testing.T, s *server, h *bareReflector) {
	t.Helper()
	s.Detached(func() {
		del(s, "ns", "b")
		s.Compact()
	})
	s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
	h.until(t, "relist by a stream", func() bool {
		_, watches := s.Calls()
		return h.inSync() && s.OpenWatches() == 1 && len(streamed(watches)) == 2
	})
}

// An internal error after a streamed list has begun is a failure of the
// server while serving it, not a refusal: as client-go, the Reflector lists
// instead this time, and streams again the next.
func TestReflectorListsAfterErrorMidStreamAndStreamsNextTime(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	create(s, cm("ns", "b", ""))
	lw := midStreamErrorLW{s.ListerWatcher(), internalError, new(sync.Once)}
	h := runReflectorOn(t, s, lw, cache.ReflectorOptions{})
	h.until(t, "watch and cache", func() bool { return s.OpenWatches() == 1 && h.inSync() })
	lists, watches := s.Calls()
	if len(lists) != 1 || len(streamed(watches)) != 1 {
		t.Fatalf("%d lists and %d streamed lists, want the failed stream, then one list", len(lists), len(streamed(watches)))
	}
	if errs := h.errors(); len(errs) != 0 {
		t.Fatalf("errors reported: %v, want none: the list served", errs)
	}

	relistByStream(t, s, h)
}

package cache_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// A bare harness for the Reflector: it writes into a mapStore, not the
// informer's DeltaFIFO, and every store write, list, watch and reported
// error wakes the test, which waits on conditions without sleeping.

// wakeup is a level-triggered notification: poke never blocks, and a poke
// between a check and a wait is kept for the wait.
type wakeup chan struct{}

func newWakeup() wakeup { return make(wakeup, 1) }

func (w wakeup) poke() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// until waits for cond, re-checking it on every poke, and every 10ms for
// what changes without one (the Reflector's resourceVersion is set after
// the store it pokes from).
func (w wakeup) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	recheck := time.NewTicker(10 * time.Millisecond)
	defer recheck.Stop()
	for !cond() {
		select {
		case <-w:
		case <-recheck.C:
		case <-timeout.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// mapStore is a ReflectorStore holding the latest state of each object.
type mapStore struct {
	wake wakeup
	mu   sync.Mutex
	objs map[cache.ObjectName]*corev1.ConfigMap
}

func (s *mapStore) set(obj *corev1.ConfigMap, present bool) error {
	s.mu.Lock()
	if present {
		s.objs[cache.MetaObjectName(obj)] = obj
	} else {
		delete(s.objs, cache.MetaObjectName(obj))
	}
	s.mu.Unlock()
	s.wake.poke()
	return nil
}

func (s *mapStore) Add(obj *corev1.ConfigMap) error    { return s.set(obj, true) }
func (s *mapStore) Update(obj *corev1.ConfigMap) error { return s.set(obj, true) }
func (s *mapStore) Delete(obj *corev1.ConfigMap) error { return s.set(obj, false) }

func (s *mapStore) Replace(list []*corev1.ConfigMap, _ string) error {
	s.mu.Lock()
	s.objs = make(map[cache.ObjectName]*corev1.ConfigMap, len(list))
	for _, o := range list {
		s.objs[cache.MetaObjectName(o)] = o
	}
	s.mu.Unlock()
	s.wake.poke()
	return nil
}

// matches reports whether the store holds exactly want's objects at their
// resourceVersions.
func (s *mapStore) matches(want map[cache.ObjectName]*corev1.ConfigMap) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.objs) != len(want) {
		return false
	}
	for k, o := range want {
		if got, ok := s.objs[k]; !ok || got.ResourceVersion != o.ResourceVersion {
			return false
		}
	}
	return true
}

// pokingLW wakes the test after every List and Watch call returns, and
// after each watch it opened is stopped (which closes it on the server).
type pokingLW struct {
	lw   cache.ListerWatcher[*corev1.ConfigMap]
	wake wakeup
}

func (p pokingLW) List(ctx context.Context, opts metav1.ListOptions) (cache.ListPage[*corev1.ConfigMap], error) {
	defer p.wake.poke()
	return p.lw.List(ctx, opts)
}

func (p pokingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	defer p.wake.poke()
	w, err := p.lw.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return pokingWatch{w, p.wake}, nil
}

type pokingWatch struct {
	watch.Interface
	wake wakeup
}

func (w pokingWatch) Stop() {
	w.Interface.Stop()
	w.wake.poke()
}

// IsWatchListSemanticsUnSupported passes on what the server's
// ListerWatcher says.
func (p pokingLW) IsWatchListSemanticsUnSupported() bool {
	u, ok := p.lw.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && u.IsWatchListSemanticsUnSupported()
}

type bareReflector struct {
	server *server
	store  *mapStore
	wake   wakeup
	r      *cache.Reflector[*corev1.ConfigMap]
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returns

	mu   sync.Mutex
	errs []error
}

// runReflector runs a Reflector over s into a mapStore until the test ends.
// Unless opts says otherwise, it backs off for a few milliseconds.
func runReflector(t *testing.T, s *server, opts cache.ReflectorOptions) *bareReflector {
	t.Helper()
	return runReflectorOn(t, s, s.ListerWatcher(), opts)
}

// runReflectorOn is runReflector over lw, which reaches s.
func runReflectorOn(t *testing.T, s *server, lw cache.ListerWatcher[*corev1.ConfigMap], opts cache.ReflectorOptions) *bareReflector {
	t.Helper()
	wake := newWakeup()
	h := &bareReflector{server: s, wake: wake, store: &mapStore{wake: wake, objs: map[cache.ObjectName]*corev1.ConfigMap{}}}
	if opts.Backoff.Initial == 0 {
		opts.Backoff = fastBackoff
	}
	opts.WatchErrorHandler = func(_ context.Context, err error) {
		h.mu.Lock()
		h.errs = append(h.errs, err)
		h.mu.Unlock()
		wake.poke()
	}
	h.r = cache.NewReflector[*corev1.ConfigMap](pokingLW{lw: lw, wake: wake}, h.store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan struct{})
	go func() {
		defer close(h.done)
		h.r.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-h.done
	})
	return h
}

func (h *bareReflector) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	h.wake.until(t, what, cond)
}

func (h *bareReflector) inSync() bool { return h.store.matches(h.server.State()) }

func (h *bareReflector) errors() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.errs...)
}

func (h *bareReflector) lists() []metav1.ListOptions {
	lists, _ := h.server.Calls()
	return lists
}

func (h *bareReflector) watches() []metav1.ListOptions {
	_, watches := h.server.Calls()
	return watches
}

// syncs counts the reads of the whole state: lists' first pages and
// streamed lists.
func (h *bareReflector) syncs() int {
	lists, watches := h.server.Calls()
	n := 0
	for _, l := range lists {
		if l.Continue == "" {
			n++
		}
	}
	return n + len(streamed(watches))
}

// streamed returns the watches that asked for a streamed list.
func streamed(watches []metav1.ListOptions) []metav1.ListOptions {
	var out []metav1.ListOptions
	for _, w := range watches {
		if w.SendInitialEvents != nil && *w.SendInitialEvents {
			out = append(out, w)
		}
	}
	return out
}

// syncPaths are the two ways a Reflector reads the whole state: a streamed
// list (WatchList) and a paginated list. Tests of what both must do run
// on each; DisableWatchList is the option that picks the path.
var syncPaths = []struct {
	name             string
	disableWatchList bool
}{{"watchlist", false}, {"list", true}}

// describeLists renders list calls compactly, as "rv=3 limit=500 match= continue=false".
func describeLists(lists []metav1.ListOptions) string {
	var b strings.Builder
	for _, o := range lists {
		fmt.Fprintf(&b, "\n\trv=%q limit=%d match=%q continue=%t", o.ResourceVersion, o.Limit, o.ResourceVersionMatch, o.Continue != "")
	}
	return b.String()
}

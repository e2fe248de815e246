package cache

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// fakeServer is an in-memory apiserver for one resource, with a change log
// that watches replay from any resourceVersion newer than the last
// compaction. Tests inject closed watches, error events, 410s, bookmarks and
// outages through it.
type fakeServer struct {
	mu        sync.Mutex
	rv        int64
	uid       int64
	objs      map[ObjectName]*corev1.ConfigMap
	log       []watch.Event
	compacted int64
	watchers  map[*fakeWatcher]struct{}
	down      bool

	// listErrs and watchErrs are returned, first to last, by the next calls.
	listErrs  []error
	watchErrs []error
	// rv0Unservable makes lists at resourceVersion "0" fail with 410.
	rv0Unservable bool
	// expireContinues makes that many continue tokens expire.
	expireContinues int

	lists   []metav1.ListOptions
	watches []metav1.ListOptions
}

func newFakeServer() *fakeServer {
	return &fakeServer{objs: map[ObjectName]*corev1.ConfigMap{}, watchers: map[*fakeWatcher]struct{}{}}
}

func cm(ns, name, data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string]string{"v": data},
	}
}

func (s *fakeServer) lw() *ListWatch[*corev1.ConfigMap] {
	return &ListWatch[*corev1.ConfigMap]{ListFunc: s.List, WatchFunc: s.Watch}
}

// create, update and delete change the server's state and notify watchers.
func (s *fakeServer) create(obj *corev1.ConfigMap) *corev1.ConfigMap {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := MetaObjectName(obj)
	if _, ok := s.objs[key]; ok {
		panic("exists: " + key.String())
	}
	obj = obj.DeepCopy()
	s.uid++
	obj.UID = types.UID("uid-" + strconv.FormatInt(s.uid, 10))
	s.commitLocked(watch.Added, obj)
	return obj.DeepCopy()
}

func (s *fakeServer) update(ns, name, data string) *corev1.ConfigMap {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj := s.objs[NewObjectName(ns, name)].DeepCopy()
	obj.Data = map[string]string{"v": data}
	s.commitLocked(watch.Modified, obj)
	return obj.DeepCopy()
}

func (s *fakeServer) delete(ns, name string) *corev1.ConfigMap {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj := s.objs[NewObjectName(ns, name)].DeepCopy()
	s.commitLocked(watch.Deleted, obj)
	return obj.DeepCopy()
}

func (s *fakeServer) commitLocked(t watch.EventType, obj *corev1.ConfigMap) {
	s.rv++
	obj.ResourceVersion = strconv.FormatInt(s.rv, 10)
	if t == watch.Deleted {
		delete(s.objs, MetaObjectName(obj))
	} else {
		s.objs[MetaObjectName(obj)] = obj
	}
	ev := watch.Event{Type: t, Object: obj}
	s.log = append(s.log, ev)
	for w := range s.watchers {
		w.send(ev)
	}
}

// state returns the server's objects by key.
func (s *fakeServer) state() map[ObjectName]*corev1.ConfigMap {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[ObjectName]*corev1.ConfigMap, len(s.objs))
	for k, v := range s.objs {
		out[k] = v
	}
	return out
}

// compact forgets the change log: watches from older versions get 410.
func (s *fakeServer) compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compacted = s.rv
	s.log = nil
}

// closeWatches ends every open watch, as a server-side timeout would.
func (s *fakeServer) closeWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.close()
		delete(s.watchers, w)
	}
}

// failWatches sends an error event carrying status to every watch, then
// ends it.
func (s *fakeServer) failWatches(status *metav1.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.send(watch.Event{Type: watch.Error, Object: status})
		w.close()
		delete(s.watchers, w)
	}
}

// bookmark sends a bookmark at the current resourceVersion to every watch.
func (s *fakeServer) bookmark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		bm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.FormatInt(s.rv, 10)}}
		w.send(watch.Event{Type: watch.Bookmark, Object: bm})
	}
}

// setDown takes the server away (every call fails with connection refused,
// open watches end) or brings it back.
func (s *fakeServer) setDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
	if down {
		s.closeWatches()
	}
}

func (s *fakeServer) openWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

func (s *fakeServer) calls() (lists, watches []metav1.ListOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]metav1.ListOptions(nil), s.lists...), append([]metav1.ListOptions(nil), s.watches...)
}

var errRefused = fmt.Errorf("dial tcp 127.0.0.1:6443: connect: connection refused")

func (s *fakeServer) List(_ context.Context, opts metav1.ListOptions) (ListPage[*corev1.ConfigMap], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists = append(s.lists, opts)
	if s.down {
		return ListPage[*corev1.ConfigMap]{}, errRefused
	}
	if len(s.listErrs) > 0 {
		err := s.listErrs[0]
		s.listErrs = s.listErrs[1:]
		return ListPage[*corev1.ConfigMap]{}, err
	}
	if opts.ResourceVersion == "0" && s.rv0Unservable {
		return ListPage[*corev1.ConfigMap]{}, apierrors.NewResourceExpired("too old resource version: 0")
	}
	// A continue token is "<list rv>/<offset>", served from a snapshot
	// that this fake approximates with the current state; it expires with
	// a compaction past its version.
	start, listRV := 0, s.rv
	if opts.Continue != "" {
		var tokRV int64
		fmt.Sscanf(opts.Continue, "%d/%d", &tokRV, &start)
		if tokRV < s.compacted || s.expireContinues > 0 {
			s.expireContinues--
			return ListPage[*corev1.ConfigMap]{}, apierrors.NewResourceExpired("continue token expired")
		}
		listRV = tokRV
	}
	keys := make([]ObjectName, 0, len(s.objs))
	for k := range s.objs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	end := len(keys)
	page := ListPage[*corev1.ConfigMap]{ResourceVersion: strconv.FormatInt(listRV, 10)}
	if opts.Limit > 0 && start+int(opts.Limit) < end {
		end = start + int(opts.Limit)
		page.Continue = fmt.Sprintf("%d/%d", listRV, end)
	}
	for _, k := range keys[start:end] {
		page.Items = append(page.Items, s.objs[k].DeepCopy())
	}
	return page, nil
}

func (s *fakeServer) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches = append(s.watches, opts)
	if s.down {
		return nil, errRefused
	}
	if len(s.watchErrs) > 0 {
		err := s.watchErrs[0]
		s.watchErrs = s.watchErrs[1:]
		return nil, err
	}
	from, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
	if err != nil {
		return nil, apierrors.NewBadRequest("bad resourceVersion " + opts.ResourceVersion)
	}
	if from < s.compacted {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, s.compacted))
	}
	w := newFakeWatcher(s)
	for _, ev := range s.log {
		if rvOf(ev) > from {
			w.send(ev)
		}
	}
	s.watchers[w] = struct{}{}
	return w, nil
}

func rvOf(ev watch.Event) int64 {
	n, _ := strconv.ParseInt(ev.Object.(metav1.Object).GetResourceVersion(), 10, 64)
	return n
}

// fakeWatcher delivers events through an unbounded queue, so the server
// never blocks on a slow reader.
type fakeWatcher struct {
	server  *fakeServer
	mu      sync.Mutex
	cond    sync.Cond
	queue   []watch.Event
	closed  bool
	stopped bool
	ch      chan watch.Event
	done    chan struct{}
}

func newFakeWatcher(s *fakeServer) *fakeWatcher {
	w := &fakeWatcher{server: s, ch: make(chan watch.Event), done: make(chan struct{})}
	w.cond.L = &w.mu
	go w.pump()
	return w
}

func (w *fakeWatcher) send(ev watch.Event) {
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *fakeWatcher) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *fakeWatcher) pump() {
	defer close(w.ch)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closed && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped || len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		ev := w.queue[0]
		w.queue = w.queue[1:]
		w.mu.Unlock()
		select {
		case w.ch <- ev:
		case <-w.done:
			return
		}
	}
}

func (w *fakeWatcher) Stop() {
	w.server.mu.Lock()
	delete(w.server.watchers, w)
	w.server.mu.Unlock()
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		close(w.done)
	}
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *fakeWatcher) ResultChan() <-chan watch.Event { return w.ch }

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

var fastBackoff = BackoffConfig{Initial: time.Millisecond, Max: 5 * time.Millisecond}

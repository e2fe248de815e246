package cache_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

type event struct {
	kind string // add, update, delete
	obj  *corev1.ConfigMap
	old  *corev1.ConfigMap
	// flag is isInInitialList for adds, and for deletes whether the final
	// state was unknown.
	flag bool
}

// recorder records what a handler is told and keeps, per key, the last
// state it saw (nil after a delete). untyped and typed give it as
// client-go's two kinds of handler; each checks that a delete arrives in
// the form client-go gives it.
type recorder struct {
	t      *testing.T
	mu     sync.Mutex
	events []event
	last   map[cache.ObjectName]*corev1.ConfigMap
	// gate, when set, blocks every call until it is closed.
	gate chan struct{}
}

func newRecorder(t *testing.T) *recorder {
	return &recorder{t: t, last: map[cache.ObjectName]*corev1.ConfigMap{}}
}

func (r *recorder) record(e event) {
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	if e.kind == "delete" {
		r.last[cache.MetaObjectName(e.obj)] = nil
	} else {
		r.last[cache.MetaObjectName(e.obj)] = e.obj
	}
}

func (r *recorder) untyped() clientcache.ResourceEventHandler {
	return clientcache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) { r.record(event{kind: "add", obj: obj.(*corev1.ConfigMap), flag: initial}) },
		UpdateFunc: func(old, obj any) {
			r.record(event{kind: "update", obj: obj.(*corev1.ConfigMap), old: old.(*corev1.ConfigMap)})
		},
		DeleteFunc: func(obj any) {
			switch o := obj.(type) {
			case *corev1.ConfigMap:
				r.record(event{kind: "delete", obj: o})
			case clientcache.DeletedFinalStateUnknown:
				c := o.Obj.(*corev1.ConfigMap)
				if o.Key != cache.MetaObjectName(c).String() {
					r.t.Errorf("tombstone key %q for %s/%s", o.Key, c.Namespace, c.Name)
				}
				r.record(event{kind: "delete", obj: c, flag: true})
			default:
				r.t.Errorf("delete of a %T", obj)
			}
		},
	}
}

func (r *recorder) typed() clientcache.TypedResourceEventHandler[*corev1.ConfigMap] {
	return clientcache.TypedResourceEventHandlerDetailedFuncs[*corev1.ConfigMap]{
		AddFunc:    func(obj *corev1.ConfigMap, initial bool) { r.record(event{kind: "add", obj: obj, flag: initial}) },
		UpdateFunc: func(old, obj *corev1.ConfigMap) { r.record(event{kind: "update", obj: obj, old: old}) },
		DeleteFunc: func(d clientcache.DeletedObject[*corev1.ConfigMap]) {
			if d.OptionalObj == nil {
				r.t.Errorf("delete of %s without its last known object", d.GetKey())
				return
			}
			if d.FinalStateUnknown != nil && d.FinalStateUnknown.Obj != any(d.OptionalObj) {
				r.t.Errorf("tombstone of %s holds another object", d.GetKey())
			}
			r.record(event{kind: "delete", obj: d.OptionalObj, flag: d.FinalStateUnknown != nil})
		},
	}
}

func (r *recorder) snapshot() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...)
}

// sawFinalState reports whether the handler's last view of every key is
// the server's state: the latest version of live objects, a delete for the
// rest.
func (r *recorder) sawFinalState(want map[cache.ObjectName]*corev1.ConfigMap) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, o := range r.last {
		w, live := want[k]
		if (o == nil) != !live || (live && o.ResourceVersion != w.ResourceVersion) {
			return false
		}
	}
	for k := range want {
		if _, ok := r.last[k]; !ok {
			return false
		}
	}
	return true
}

type informer = cache.SharedIndexInformer[*corev1.ConfigMap]

// runUntilCleanup runs inf until the returned cancel or the end of the
// test, which waits for Run to return.
func runUntilCleanup(t *testing.T, inf interface{ RunWithContext(context.Context) }) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return cancel
}

func startInformer(t *testing.T, s *server, opts cache.SharedIndexInformerOptions, setup func(informer)) (informer, context.CancelFunc) {
	t.Helper()
	opts.Reflector.Backoff = fastBackoff
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](s.ListerWatcher(), opts)
	if setup != nil {
		setup(inf)
	}
	return inf, runUntilCleanup(t, inf)
}

func TestInformerDeliversEventsAndFillsTheIndexer(t *testing.T) {
	for _, hk := range handlerKinds {
		t.Run(hk.name, func(t *testing.T) {
			s := newServer()
			create(s, cm("ns", "a", "1"))
			rec := newRecorder(t)
			inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{}, func(inf informer) { hk.add(t, inf, rec) })
			if !clientcache.WaitForNamedCacheSync("test", make(chan struct{}), inf.HasSynced) {
				t.Fatal("never synced")
			}
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			update(s, "ns", "a", "2")
			final := del(s, "ns", "a")
			eventually(t, "events", func() bool { return len(rec.snapshot()) == 3 })

			ev := rec.snapshot()
			if ev[0].kind != "add" || !ev[0].flag {
				t.Errorf("first event %+v, want an initial-list add", ev[0])
			}
			if ev[1].kind != "update" || ev[1].old.Data["v"] != "1" || ev[1].obj.Data["v"] != "2" {
				t.Errorf("second event %+v, want update 1→2", ev[1])
			}
			if ev[2].kind != "delete" || ev[2].flag || ev[2].obj.ResourceVersion != final.ResourceVersion {
				t.Errorf("third event %+v, want a delete with the final state", ev[2])
			}
			if keys := inf.GetIndexer().ListKeys(); len(keys) != 0 {
				t.Errorf("indexer still holds %v", keys)
			}
		})
	}
}

// A delete missed while the watch was down is found by the relist after a
// 410; client-go hands it over as a DeletedFinalStateUnknown holding the
// last known object, and the typed API as DeletedObject.FinalStateUnknown.
func TestInformerDeleteFoundByRelistHasUnknownFinalState(t *testing.T) {
	for _, hk := range handlerKinds {
		for _, path := range syncPaths {
			t.Run(hk.name+"/"+path.name, func(t *testing.T) {
				testDeleteFoundByRelist(t, hk.add, path.disableWatchList)
			})
		}
	}
}

func testDeleteFoundByRelist(t *testing.T, add func(*testing.T, typedInformer, *recorder, ...clientcache.HandlerOptions) clientcache.ResourceEventHandlerRegistration, disableWatchList bool) {
	{
		{
			s := newServer()
			create(s, cm("ns", "gone", "1"))
			create(s, cm("ns", "kept", "1"))
			rec := newRecorder(t)
			opts := cache.SharedIndexInformerOptions{Reflector: cache.ReflectorOptions{DisableWatchList: disableWatchList}}
			inf, _ := startInformer(t, s, opts, func(inf informer) { add(t, inf, rec) })
			clientcache.WaitForCacheSync(make(chan struct{}), inf.HasSynced)
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			s.SetDown(true)
			del(s, "ns", "gone")
			s.Compact()
			s.SetDown(false)
			// The relist also tells every handler of kept again, as an
			// update with old == new, as client-go's informer does until
			// its first resync check.
			var d event
			eventually(t, "delete", func() bool {
				for _, e := range rec.snapshot() {
					if e.kind == "delete" {
						d = e
						return true
					}
				}
				return false
			})
			if !d.flag || d.obj.Name != "gone" || d.obj.Data["v"] != "1" {
				t.Fatalf("event %+v, want a delete of gone with unknown final state and its last known object", d)
			}
			checkPath(t, s, disableWatchList)
		}
	}
}

// checkPath checks that the informer read the whole state the way asked:
// by streamed lists only, or by lists only.
func checkPath(t *testing.T, s *server, disableWatchList bool) {
	t.Helper()
	lists, watches := s.Calls()
	if disableWatchList && len(streamed(watches)) != 0 || !disableWatchList && len(lists) != 0 {
		t.Fatalf("%d lists and %d streamed lists; want only %s", len(lists), len(streamed(watches)), map[bool]string{true: "lists", false: "streamed lists"}[disableWatchList])
	}
}

// An object deleted and created again under the same name while the
// informer was cut off comes back with another UID: the relist tells the
// handlers of the old object's delete, with an unknown final state, then
// of the new one's add.
func TestInformerUIDChangeFoundByRelist(t *testing.T) {
	for _, path := range syncPaths {
		t.Run(path.name, func(t *testing.T) {
			s := newServer()
			old := create(s, cm("ns", "a", "old"))
			rec := newRecorder(t)
			opts := cache.SharedIndexInformerOptions{Reflector: cache.ReflectorOptions{DisableWatchList: path.disableWatchList}}
			inf, _ := startInformer(t, s, opts, func(inf informer) { handlerKinds[1].add(t, inf, rec) })
			waitSynced(t, inf)
			eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
			s.SetDown(true)
			del(s, "ns", "a")
			recreated := create(s, cm("ns", "a", "new"))
			s.Compact()
			s.SetDown(false)
			eventually(t, "delete and add", func() bool { return len(rec.snapshot()) == 3 })
			ev := rec.snapshot()
			if ev[1].kind != "delete" || !ev[1].flag || ev[1].obj.UID != old.UID {
				t.Fatalf("second event %+v, want the old object's delete with unknown final state", ev[1])
			}
			if ev[2].kind != "add" || ev[2].obj.UID != recreated.UID {
				t.Fatalf("third event %+v, want the new object's add", ev[2])
			}
			checkPath(t, s, path.disableWatchList)
		})
	}
}

// A streamed list's objects are transformed once each, as they arrive,
// and what is cached is the transformed object.
func TestInformerTransformsStreamedObjectsOnce(t *testing.T) {
	s := newServer()
	for i := range 3 {
		obj := cm("ns", "o"+itoa(i), "")
		obj.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
		create(s, obj)
	}
	var mu sync.Mutex
	calls := map[string]int{}
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{}, func(inf informer) {
		if err := inf.SetTransform(func(o any) (any, error) {
			c := o.(*corev1.ConfigMap)
			mu.Lock()
			calls[c.Name]++
			mu.Unlock()
			c.ManagedFields = nil
			return c, nil
		}); err != nil {
			t.Fatal(err)
		}
	})
	waitSynced(t, inf)
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 3 || calls["o0"] != 1 || calls["o1"] != 1 || calls["o2"] != 1 {
		t.Fatalf("transform calls %v, want one per object", calls)
	}
	for _, obj := range inf.GetIndexer().List() {
		if obj.(*corev1.ConfigMap).ManagedFields != nil {
			t.Fatal("cached object kept managedFields")
		}
	}
	checkPath(t, s, false)
}

func TestInformerHandlerAddedLaterGetsCacheReplayAndSyncs(t *testing.T) {
	for _, hk := range handlerKinds {
		t.Run(hk.name, func(t *testing.T) {
			s := newServer()
			for i := range 50 {
				create(s, cm("ns", "o"+itoa(i), ""))
			}
			inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{}, nil)
			clientcache.WaitForCacheSync(make(chan struct{}), inf.HasSynced)

			rec := newRecorder(t)
			rec.gate = make(chan struct{})
			reg := hk.add(t, inf, rec)
			create(s, cm("ns", "new", ""))
			if reg.HasSynced() {
				t.Fatal("registration synced while its replay was blocked in the handler")
			}
			close(rec.gate)
			select {
			case <-reg.HasSyncedChecker().Done():
			case <-time.After(20 * time.Second):
				t.Fatal("registration never synced")
			}
			eventually(t, "all events", func() bool { return len(rec.snapshot()) == 51 })
			initial := 0
			seen := map[string]bool{}
			for _, e := range rec.snapshot() {
				if e.kind != "add" || seen[e.obj.Name] {
					t.Fatalf("unexpected or repeated event %+v", e)
				}
				seen[e.obj.Name] = true
				if e.flag {
					initial++
				}
			}
			if initial != 50 || !seen["new"] {
				t.Fatalf("%d adds marked initial, want the 50 replayed ones", initial)
			}
		})
	}
}

func TestInformerBacklogIsReportedPerHandler(t *testing.T) {
	s := newServer()
	for i := range 50 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	rec := newRecorder(t)
	rec.gate = make(chan struct{})
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{}, func(inf informer) { handlerKinds[0].add(t, inf, rec) })
	regs := inf.HandlerRegistrations()
	if len(regs) != 1 {
		t.Fatalf("%d registrations", len(regs))
	}
	eventually(t, "backlog", func() bool { return regs[0].Backlog() >= 49 })
	close(rec.gate)
	eventually(t, "delivered", func() bool { return regs[0].Backlog() == 0 && len(rec.snapshot()) == 50 })
}

func TestInformerSlowHandlerDoesNotBlockOthers(t *testing.T) {
	s := newServer()
	slow, fast := newRecorder(t), newRecorder(t)
	slow.gate = make(chan struct{})
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{}, func(inf informer) {
		handlerKinds[0].add(t, inf, slow)
		handlerKinds[1].add(t, inf, fast)
	})
	clientcache.WaitForCacheSync(make(chan struct{}), inf.HasSynced)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	for i := range 1000 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	eventually(t, "fast handler", func() bool { return len(fast.snapshot()) == 1000 })
	eventually(t, "indexer", func() bool { return len(inf.GetIndexer().ListKeys()) == 1000 })
	if n := len(slow.snapshot()); n != 0 {
		t.Fatalf("blocked handler saw %d events", n)
	}
	close(slow.gate)
	eventually(t, "slow handler", func() bool { return len(slow.snapshot()) == 1000 })
}

func TestInformerResyncReachesOnlyHandlersThatAskForIt(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	resyncing, quiet := newRecorder(t), newRecorder(t)
	c := newResyncClock(t)
	// The informer's default resync period is a second; the typed handler
	// asks for none.
	startWithClock(t, s, c, time.Second, func(inf informer) {
		if _, err := inf.AddEventHandlerWithResyncPeriod(resyncing.untyped(), time.Second); err != nil {
			t.Fatal(err)
		}
		handlerKinds[1].add(t, inf, quiet, clientcache.HandlerOptions{ResyncPeriod: new(time.Duration)})
	})
	c.armed()
	for range 3 {
		c.advance(time.Second)
	}
	eventually(t, "resyncs", func() bool { return len(resyncing.snapshot()) >= 4 })
	for _, e := range resyncing.snapshot()[1:] {
		if e.kind != "update" || e.old != e.obj {
			t.Fatalf("resync event %+v, want update with old == new", e)
		}
	}
	update(s, "ns", "a", "2")
	eventually(t, "real update", func() bool { return len(quiet.snapshot()) == 2 })
	for _, e := range quiet.snapshot() {
		if e.kind == "update" && e.old == e.obj {
			t.Fatalf("handler without resync got a resync: %+v", e)
		}
	}
}

func TestInformerTransformAppliesBeforeCaching(t *testing.T) {
	s := newServer()
	obj := cm("ns", "a", "")
	obj.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	create(s, obj)
	rec := newRecorder(t)
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{}, func(inf informer) {
		err := inf.SetTransform(func(o any) (any, error) {
			o.(*corev1.ConfigMap).ManagedFields = nil
			return o, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		handlerKinds[0].add(t, inf, rec)
	})
	clientcache.WaitForCacheSync(make(chan struct{}), inf.HasSynced)
	cached, _, _ := inf.GetIndexer().GetByKey("ns/a")
	if cached.(*corev1.ConfigMap).ManagedFields != nil {
		t.Fatal("cached object kept managedFields")
	}
	eventually(t, "add", func() bool { return len(rec.snapshot()) == 1 })
	if rec.snapshot()[0].obj.ManagedFields != nil {
		t.Fatal("handler got managedFields")
	}
	if err := inf.SetTransform(nil); err == nil {
		t.Fatal("SetTransform after start gave no error")
	}
}

func TestInformerRemovedHandlerStopsReceiving(t *testing.T) {
	s := newServer()
	kept, removed := newRecorder(t), newRecorder(t)
	var reg clientcache.ResourceEventHandlerRegistration
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{}, func(inf informer) {
		handlerKinds[0].add(t, inf, kept)
		reg = handlerKinds[1].add(t, inf, removed)
	})
	clientcache.WaitForCacheSync(make(chan struct{}), inf.HasSynced)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	create(s, cm("ns", "a", ""))
	eventually(t, "first", func() bool { return len(removed.snapshot()) == 1 && len(kept.snapshot()) == 1 })
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	create(s, cm("ns", "b", ""))
	eventually(t, "second", func() bool { return len(kept.snapshot()) == 2 })
	if n := len(removed.snapshot()); n != 1 {
		t.Fatalf("removed handler got %d events", n)
	}
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatalf("removing an already removed handler: %v; client-go returns nil", err)
	}
}

func TestInformerStopsOnCancelAndRunsOnce(t *testing.T) {
	s := newServer()
	inf, cancel := startInformer(t, s, cache.SharedIndexInformerOptions{}, nil)
	select {
	case <-inf.HasSyncedChecker().Done():
	case <-time.After(20 * time.Second):
		t.Fatal("informer never synced")
	}
	inf.RunWithContext(context.Background()) // second Run returns at once
	cancel()
	eventually(t, "stopped", inf.IsStopped)
	if _, err := inf.AddEventHandler(newRecorder(t).untyped()); err == nil {
		t.Fatal("handler added to a stopped informer")
	}
}

// Handlers added while the informer stops are either refused or stopped
// with it: Run must return either way.
func TestInformerRunReturnsWhenHandlersAreAddedWhileStopping(t *testing.T) {
	for range 200 {
		s := newServer()
		inf := cache.NewSharedIndexInformer[*corev1.ConfigMap](s.ListerWatcher(), 0, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			inf.RunWithContext(ctx)
		}()
		adding := make(chan struct{})
		go func() {
			defer close(adding)
			for !inf.IsStopped() {
				if _, err := inf.AddEventHandler(clientcache.ResourceEventHandlerFuncs{}); err != nil {
					return
				}
			}
		}()
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("Run did not return after a handler was added while it stopped")
		}
		<-adding
	}
}

func TestInformerWatchErrorHandlerGetsAReflector(t *testing.T) {
	s := newServer()
	errs := make(chan error, 10)
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions{ObjectDescription: "configmaps"}, func(inf informer) {
		err := inf.SetWatchErrorHandler(func(r *clientcache.Reflector, err error) {
			if r == nil {
				err = errors.New("nil *Reflector")
			}
			select {
			case errs <- err:
			default:
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	clientcache.WaitForCacheSync(make(chan struct{}), inf.HasSynced)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError})
	select {
	case err := <-errs:
		if err.Error() == "nil *Reflector" {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("watch error handler never called")
	}
}

// TestInformerConvergesUnderRandomFaults drives random creates, updates and
// deletes while watches close, fail, and the server goes away and compacts
// its log. The cache must end equal to the server, and every handler must
// have seen every object's last state.
func TestInformerConvergesUnderRandomFaults(t *testing.T) {
	for _, path := range syncPaths {
		t.Run(path.name, func(t *testing.T) { testConvergesUnderRandomFaults(t, path.disableWatchList) })
	}
}

func testConvergesUnderRandomFaults(t *testing.T, disableWatchList bool) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	s := newServer()
	recs := []*recorder{newRecorder(t), newRecorder(t), newRecorder(t)}
	opts := cache.SharedIndexInformerOptions{Reflector: cache.ReflectorOptions{DisableWatchList: disableWatchList}}
	inf, _ := startInformer(t, s, opts, func(inf informer) {
		handlerKinds[0].add(t, inf, recs[0])
		handlerKinds[1].add(t, inf, recs[1])
	})
	live := map[string]bool{}
	names := make([]string, 60)
	for i := range names {
		names[i] = "o" + itoa(i)
	}
	for step := range 3000 {
		name := names[rng.IntN(len(names))]
		switch {
		case !live[name]:
			create(s, cm("ns", name, itoa(step)))
			live[name] = true
		case rng.IntN(3) == 0:
			del(s, "ns", name)
			live[name] = false
		default:
			update(s, "ns", name, itoa(step))
		}
		switch r := rng.IntN(1000); {
		case r < 10:
			s.CloseWatches()
		case r < 15:
			s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError})
		case r < 20:
			s.SetDown(true)
		case r < 25:
			s.SetDown(false)
		case r < 28:
			s.Compact()
		case r < 30:
			s.Bookmark()
		}
		if step == 1500 {
			handlerKinds[2].add(t, inf, recs[2])
		}
	}
	s.SetDown(false)
	want := s.State()
	eventually(t, "cache equals server", func() bool { return cacheMatches(inf.FastIndexer(), want) })
	for i, r := range recs {
		eventually(t, "handler "+itoa(i)+" saw final states", func() bool { return r.sawFinalState(want) })
	}
}

// A factory's InformerName, as client-go's WithInformerName sets it,
// names the informer in metrics once its resource is reserved under it.
func TestInformerIdentifierPrefixesTheDescription(t *testing.T) {
	name, err := clientcache.NewInformerName(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	s := newServer()
	named := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](s.ListerWatcher(), cache.SharedIndexInformerOptions{
		ObjectDescription: "configmaps", Identifier: name.WithResource(gvr),
	})
	if got, want := named.Description(), t.Name()+"/configmaps"; got != want {
		t.Errorf("Description() = %q, want %q", got, want)
	}
	// A second informer for the same resource under the name is not
	// reserved, as in client-go, and keeps the plain description.
	again := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](s.ListerWatcher(), cache.SharedIndexInformerOptions{
		ObjectDescription: "configmaps", Identifier: name.WithResource(gvr),
	})
	if got := again.Description(); got != "configmaps" {
		t.Errorf("second informer's Description() = %q, want configmaps", got)
	}
}

package cache_test

import (
	"context"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type event struct {
	kind string // add, update, delete
	obj  *corev1.ConfigMap
	old  *corev1.ConfigMap
	flag bool
}

// recorder is a handler that records what it is told and keeps, per key,
// the last state it saw (nil after a delete).
type recorder struct {
	mu     sync.Mutex
	events []event
	last   map[cache.ObjectName]*corev1.ConfigMap
	// gate, when set, blocks every call until it is closed.
	gate chan struct{}
}

func newRecorder() *recorder { return &recorder{last: map[cache.ObjectName]*corev1.ConfigMap{}} }

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

func (r *recorder) OnAdd(obj *corev1.ConfigMap, initial bool) {
	r.record(event{kind: "add", obj: obj, flag: initial})
}
func (r *recorder) OnUpdate(old, obj *corev1.ConfigMap) {
	r.record(event{kind: "update", obj: obj, old: old})
}
func (r *recorder) OnDelete(obj *corev1.ConfigMap, unknown bool) {
	r.record(event{kind: "delete", obj: obj, flag: unknown})
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

func startInformer(t *testing.T, s *server, opts cache.SharedIndexInformerOptions[*corev1.ConfigMap], setup func(cache.SharedIndexInformer[*corev1.ConfigMap])) (cache.SharedIndexInformer[*corev1.ConfigMap], context.CancelFunc) {
	t.Helper()
	opts.Reflector.Backoff = fastBackoff
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](s.ListerWatcher(), opts)
	if setup != nil {
		setup(inf)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return inf, cancel
}

func addHandler(t *testing.T, inf cache.SharedIndexInformer[*corev1.ConfigMap], h cache.ResourceEventHandler[*corev1.ConfigMap], opts ...cache.HandlerOptions) cache.ResourceEventHandlerRegistration {
	t.Helper()
	reg, err := inf.AddEventHandler(h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestInformerDeliversTypedEventsAndFillsTheIndexer(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", "1"))
	rec := newRecorder()
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, func(inf cache.SharedIndexInformer[*corev1.ConfigMap]) {
		addHandler(t, inf, rec)
	})
	if !cache.WaitForCacheSync(context.Background(), inf.HasSynced) {
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
	if inf.GetIndexer().Len() != 0 {
		t.Errorf("indexer still holds %v", inf.GetIndexer().ListKeys())
	}
}

func TestInformerHandlerAddedLaterGetsCacheReplayAndSyncs(t *testing.T) {
	s := newServer()
	for i := range 50 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, nil)
	cache.WaitForCacheSync(context.Background(), inf.HasSynced)

	rec := newRecorder()
	rec.gate = make(chan struct{})
	reg := addHandler(t, inf, rec)
	create(s, cm("ns", "new", ""))
	eventually(t, "backlog", func() bool { return reg.Backlog() >= 50 })
	if reg.HasSynced() {
		t.Fatal("registration synced while its replay was blocked in the handler")
	}
	close(rec.gate)
	eventually(t, "handler sync", reg.HasSynced)
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
	if initial != 50 || seen["new"] != true {
		t.Fatalf("%d adds marked initial, want the 50 replayed ones", initial)
	}
	if reg.Backlog() != 0 {
		t.Fatalf("backlog %d after delivery", reg.Backlog())
	}
}

func TestInformerSlowHandlerDoesNotBlockOthers(t *testing.T) {
	s := newServer()
	slow, fast := newRecorder(), newRecorder()
	slow.gate = make(chan struct{})
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, func(inf cache.SharedIndexInformer[*corev1.ConfigMap]) {
		addHandler(t, inf, slow)
		addHandler(t, inf, fast)
	})
	cache.WaitForCacheSync(context.Background(), inf.HasSynced)
	eventually(t, "watch", func() bool { return s.OpenWatches() == 1 })
	for i := range 1000 {
		create(s, cm("ns", "o"+itoa(i), ""))
	}
	eventually(t, "fast handler", func() bool { return len(fast.snapshot()) == 1000 })
	eventually(t, "indexer", func() bool { return inf.GetIndexer().Len() == 1000 })
	if n := len(slow.snapshot()); n != 0 {
		t.Fatalf("blocked handler saw %d events", n)
	}
	close(slow.gate)
	eventually(t, "slow handler", func() bool { return len(slow.snapshot()) == 1000 })
}

func TestInformerResyncReachesOnlyHandlersThatAskForIt(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	resyncing, quiet := newRecorder(), newRecorder()
	period := 20 * time.Millisecond
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, func(inf cache.SharedIndexInformer[*corev1.ConfigMap]) {
		addHandler(t, inf, resyncing, cache.HandlerOptions{ResyncPeriod: &period})
		addHandler(t, inf, quiet)
	})
	cache.WaitForCacheSync(context.Background(), inf.HasSynced)
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
	rec := newRecorder()
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, func(inf cache.SharedIndexInformer[*corev1.ConfigMap]) {
		if err := inf.SetTransform(func(o *corev1.ConfigMap) *corev1.ConfigMap { o.ManagedFields = nil; return o }); err != nil {
			t.Fatal(err)
		}
		addHandler(t, inf, rec)
	})
	cache.WaitForCacheSync(context.Background(), inf.HasSynced)
	cached, _, _ := inf.GetIndexer().GetByKey(cache.NewObjectName("ns", "a"))
	if cached.ManagedFields != nil {
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
	kept, removed := newRecorder(), newRecorder()
	var reg cache.ResourceEventHandlerRegistration
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, func(inf cache.SharedIndexInformer[*corev1.ConfigMap]) {
		addHandler(t, inf, kept)
		reg = addHandler(t, inf, removed)
	})
	cache.WaitForCacheSync(context.Background(), inf.HasSynced)
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
	if err := inf.RemoveEventHandler(reg); err == nil {
		t.Fatal("removing twice gave no error")
	}
}

func TestInformerStopsOnCancelAndRunsOnce(t *testing.T) {
	s := newServer()
	inf, cancel := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, nil)
	cache.WaitForCacheSync(context.Background(), inf.HasSynced)
	inf.Run(context.Background()) // second Run returns at once
	cancel()
	eventually(t, "stopped", inf.IsStopped)
	if _, err := inf.AddEventHandler(newRecorder()); err == nil {
		t.Fatal("handler added to a stopped informer")
	}
}

// TestInformerConvergesUnderRandomFaults drives random creates, updates and
// deletes while watches close, fail, and the server goes away and compacts
// its log. The cache must end equal to the server, and every handler must
// have seen every object's last state.
func TestInformerConvergesUnderRandomFaults(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	s := newServer()
	recs := []*recorder{newRecorder(), newRecorder(), newRecorder()}
	inf, _ := startInformer(t, s, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{}, func(inf cache.SharedIndexInformer[*corev1.ConfigMap]) {
		addHandler(t, inf, recs[0])
		addHandler(t, inf, recs[1])
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
			addHandler(t, inf, recs[2])
		}
	}
	s.SetDown(false)
	want := s.State()
	eventually(t, "cache equals server", func() bool { return cacheMatches(inf.GetIndexer(), want) })
	for i, r := range recs {
		eventually(t, "handler "+itoa(i)+" saw final states", func() bool { return r.sawFinalState(want) })
	}
}

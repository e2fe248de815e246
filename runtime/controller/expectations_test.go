package controller_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

func TestExpectationsAreMetByObservationsOrExpiry(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Now())
	x := controller.NewExpectations[*corev1.ConfigMap](clk, time.Minute)
	owner, other := cm("owner"), cm("other")
	if !x.Satisfied(owner) {
		t.Fatal("an owner that expects nothing is not satisfied")
	}

	x.ExpectCreations(owner, 2)
	x.ExpectDeletions(owner, []cache.ObjectName{key("a"), key("b")})
	x.CreationObserved(owner)
	x.DeletionObserved(owner, key("a"))
	x.DeletionObserved(owner, key("a")) // a graceful delete is seen twice
	x.DeletionObserved(owner, key("zzz"))
	x.CreationObserved(other)
	if x.Satisfied(owner) {
		t.Fatal("satisfied with one creation and deletion b still expected")
	}
	if !x.Satisfied(other) {
		t.Fatal("another owner's observation raised its expectations")
	}
	x.CreationObserved(owner)
	if x.Satisfied(owner) {
		t.Fatal("satisfied with deletion b still expected")
	}
	x.DeletionObserved(owner, key("b"))
	if !x.Satisfied(owner) || x.Len() != 0 {
		t.Fatalf("not satisfied (or still kept: %d) after every expected event was observed", x.Len())
	}
	x.CreationObserved(owner) // observations beyond what was expected are no debt
	x.ExpectCreations(owner, 1)
	if x.Satisfied(owner) {
		t.Fatal("an extra observation before the expectation counted towards it")
	}

	clk.SetTime(clk.Now().Add(59 * time.Second))
	if x.Satisfied(owner) {
		t.Fatal("expired before the timeout")
	}
	x.ExpectCreations(owner, 1) // raising again restarts the timeout
	clk.SetTime(clk.Now().Add(59 * time.Second))
	if x.Satisfied(owner) {
		t.Fatal("expired counting from the first raise, not the last")
	}
	clk.SetTime(clk.Now().Add(time.Second))
	if !x.Satisfied(owner) || x.Len() != 0 {
		t.Fatal("not satisfied once expired")
	}
}

// gatedLW holds back the watch events of an owned informer while its gate
// is shut, so that its cache stays stale for as long as a test needs.
type gatedLW struct {
	cache.ListerWatcher[*corev1.Secret]
	mu   sync.Mutex
	gate chan struct{} // closed: open
}

// shut holds back the events of the watches started from now on.
func (g *gatedLW) shut() {
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
}

// open lets every watch's events through.
func (g *gatedLW) open() {
	g.mu.Lock()
	close(g.gate)
	g.mu.Unlock()
}

func (g *gatedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := g.ListerWatcher.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	out := make(chan watch.Event)
	stop := make(chan struct{})
	go func() {
		defer close(out)
		for ev := range w.ResultChan() {
			select {
			case <-gate:
			case <-stop:
				return
			}
			select {
			case out <- ev:
			case <-stop:
				return
			}
		}
	}()
	return &gatedWatch{w: w, ch: out, stop: stop}, nil
}

type gatedWatch struct {
	w    watch.Interface
	ch   chan watch.Event
	stop chan struct{}
	once sync.Once
}

func (g *gatedWatch) Stop()                          { g.once.Do(func() { close(g.stop); g.w.Stop() }) }
func (g *gatedWatch) ResultChan() <-chan watch.Event { return g.ch }

// replicaSet runs a controller in the shape of kube-controller-manager's
// ReplicaSet controller: each owner ConfigMap wants Data["replicas"]
// Secrets, which Reconcile counts in the owned informer's cache and
// creates, each under a fresh name as generateName would give.
type replicaSet struct {
	t       *testing.T
	owners  *server
	owned   *cachetest.Server[*corev1.Secret]
	ownedLW *gatedLW
	x       *controller.Expectations[*corev1.ConfigMap]
	c       *controller.Controller[*corev1.ConfigMap]
	metrics *counting

	creates    atomic.Int64
	reconciles atomic.Int64
	failNext   atomic.Bool
}

func newReplicaSet(t *testing.T, withExpectations bool, clk *clocktesting.FakePassiveClock) *replicaSet {
	t.Helper()
	r := &replicaSet{
		t:       t,
		owners:  cachetest.NewServer[*corev1.ConfigMap](gr),
		owned:   cachetest.NewServer[*corev1.Secret](schema.GroupResource{Resource: "secrets"}),
		metrics: &counting{counts: map[string]*atomic.Int64{}},
	}
	r.ownedLW = &gatedLW{ListerWatcher: r.owned.ListerWatcher(), gate: make(chan struct{})}
	r.ownedLW.open()
	ownerInf := cache.NewSharedIndexInformer[*corev1.ConfigMap](r.owners.ListerWatcher(), 0, nil)
	ownedInf := cache.NewSharedIndexInformer[*corev1.Secret](r.ownedLW, 0, nil)
	if withExpectations {
		r.x = controller.NewExpectations[*corev1.ConfigMap](clk, time.Minute)
	}
	controller.SetDefaultMetricsProvider(r.metrics)
	t.Cleanup(func() { controller.SetDefaultMetricsProvider(nil) })
	opts := options(r.owners, ownerInf, t.Name(), func(ctx context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		r.reconciles.Add(1)
		want, _ := strconv.Atoi(o.Data["replicas"])
		have := 0
		for _, s := range ownedInf.GetIndexer().List() {
			if ref := metav1.GetControllerOf(s.(*corev1.Secret)); ref != nil && ref.UID == o.UID {
				have++
			}
		}
		if want <= have {
			return controller.Result{}, nil
		}
		if r.x != nil {
			r.x.ExpectCreations(o, want-have)
		}
		var errs []error
		for range want - have {
			n := r.creates.Add(1)
			if r.failNext.CompareAndSwap(true, false) {
				if r.x != nil {
					r.x.CreationObserved(o)
				}
				errs = append(errs, errors.New("injected create failure"))
				continue
			}
			ref := metav1.NewControllerRef(o, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
			_, err := r.owned.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{
				Namespace: o.Namespace, Name: fmt.Sprintf("%s-%d", o.Name, n), OwnerReferences: []metav1.OwnerReference{*ref}}})
			if err != nil {
				t.Error(err)
			}
		}
		return controller.Result{}, errors.Join(errs...)
	})
	opts.UpdateStatus, opts.SetObservedGeneration = nil, nil
	opts.Expectations = r.x
	c, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	owner := controller.Owner{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespaced: true}
	if err := controller.WatchOwned(c, ownedInf, owner); err != nil {
		t.Fatal(err)
	}
	r.c = c
	runUntilCleanup(t, c, 2, nil, ownerInf, ownedInf)
	return r
}

func (r *replicaSet) children(owner string) int {
	n := 0
	for _, s := range r.owned.State() {
		if ref := metav1.GetControllerOf(s); ref != nil && ref.Name == owner {
			n++
		}
	}
	return n
}

// skipped is how many reconciles were put off for unmet expectations, or
// asked for a delay.
func (r *replicaSet) skipped() int64 { return r.metrics.value("total_requeue_after", r.t.Name()) }

// createWhileOwnedCacheIsStale creates an owner wanting 3 children while the
// owned informer sees none of its events, and has it looked at a second
// time. The owned informer's events stay held back until ownedLW.open.
func (r *replicaSet) createWhileOwnedCacheIsStale() {
	// The initial sync is itself a watch (a streamed list): let it through.
	eventually(r.t, "caches synced", r.c.HasSynced)
	r.ownedLW.shut()
	r.owned.CloseWatches() // the current watch is replaced by a gated one
	eventually(r.t, "gated watch", func() bool { return r.owned.OpenWatches() == 1 })
	owner := cm("rs")
	owner.UID = "rs-uid"
	owner.Data["replicas"] = "3"
	r.owners.Create(owner)
	eventually(r.t, "first reconcile", func() bool { return r.creates.Load() == 3 })
	reconciles, skipped := r.reconciles.Load(), r.skipped()
	r.c.Enqueue(key("rs"))
	eventually(r.t, "second look at the owner", func() bool {
		return r.reconciles.Load() > reconciles || r.skipped() > skipped
	})
}

func TestWithoutExpectationsAStaleOwnedCacheCreatesDuplicates(t *testing.T) {
	r := newReplicaSet(t, false, nil)
	r.createWhileOwnedCacheIsStale()
	r.ownedLW.open()
	// What the expectations prevent, shown: the second reconcile saw no
	// children and made 3 more. (A reconcile that runs while the opened
	// watch has delivered only some of the 6 may make more still.)
	eventually(t, "duplicates", func() bool { return r.children("rs") >= 6 })
}

func TestExpectationsHoldReconcileUntilTheCreatesAreObserved(t *testing.T) {
	r := newReplicaSet(t, true, clocktesting.NewFakePassiveClock(time.Now()))
	r.createWhileOwnedCacheIsStale()
	if got := r.reconciles.Load(); got != 1 {
		t.Fatalf("Reconcile ran %d times while its creations were unobserved, want 1", got)
	}
	r.ownedLW.open()
	// Observing the creations meets the expectations and requeues the owner.
	// The last child's event enqueues it too; when the worker takes one of
	// the two before the other arrives, the owner is reconciled twice more,
	// so wait for at least one more reconcile, not exactly one: what the
	// expectations guarantee is that no reconcile creates again (below).
	eventually(t, "reconcile after the creations are observed", func() bool { return r.reconciles.Load() >= 2 })
	owner, _ := r.owners.Get(key("rs"))
	if !r.x.Satisfied(owner) || r.x.Len() != 0 {
		t.Fatal("expectations left after every creation was observed")
	}
	if n := r.children("rs"); n != 3 || r.creates.Load() != 3 {
		t.Fatalf("%d children from %d creates, want 3 from 3", n, r.creates.Load())
	}
}

func TestAFailedCreateLowersTheExpectations(t *testing.T) {
	r := newReplicaSet(t, true, clocktesting.NewFakePassiveClock(time.Now()))
	r.failNext.Store(true)
	owner := cm("rs")
	owner.UID = "rs-uid"
	owner.Data["replicas"] = "3"
	r.owners.Create(owner)
	// The failure is retried once the two creates that worked are seen;
	// were it still expected, the owner would wait for the timeout.
	eventually(t, "3 children", func() bool { return r.children("rs") == 3 })
	eventually(t, "expectations met", func() bool { return r.x.Len() == 0 })
	if got := r.creates.Load(); got != 4 {
		t.Fatalf("%d creates, want 4 (3, one of them failed, then 1)", got)
	}
}

func TestExpiredExpectationsLetTheOwnerBeReconciled(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Now())
	r := newReplicaSet(t, true, clk)
	r.createWhileOwnedCacheIsStale()
	// The creations' events are lost: the owned informer stays stale.
	clk.SetTime(clk.Now().Add(time.Minute))
	reconciles := r.reconciles.Load()
	r.c.Enqueue(key("rs"))
	eventually(t, "reconcile after expiry", func() bool { return r.reconciles.Load() > reconciles })
	r.ownedLW.open()
}

func TestDeletingTheOwnerDropsItsExpectations(t *testing.T) {
	r := newReplicaSet(t, true, clocktesting.NewFakePassiveClock(time.Now()))
	r.createWhileOwnedCacheIsStale()
	if r.x.Len() != 1 {
		t.Fatalf("%d owners with pending expectations, want 1", r.x.Len())
	}
	r.owners.Delete(key("rs"))
	eventually(t, "expectations dropped", func() bool { return r.x.Len() == 0 })
	r.ownedLW.open()
}

package controller_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// The tests reconcile ConfigMaps, using Data["status"] as their status and
// Data["observedGeneration"] as status.observedGeneration.
type server = cachetest.Server[*corev1.ConfigMap]

var gr = schema.GroupResource{Resource: "configmaps"}

func cm(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{}}
}

func key(name string) cache.ObjectName { return cache.NewObjectName("ns", name) }

// harness runs one controller over a cachetest server.
type harness struct {
	t      *testing.T
	s      *server
	inf    cache.SharedIndexInformer[*corev1.ConfigMap]
	c      *controller.Controller[*corev1.ConfigMap]
	cancel context.CancelFunc
	done   chan error
}

var fastLimiter = workqueue.NewItemExponentialFailureRateLimiter[cache.ObjectName](time.Millisecond, 20*time.Millisecond)

// options fills what every test needs around reconcile.
func options(s *server, inf cache.SharedIndexInformer[*corev1.ConfigMap], name string, reconcile func(context.Context, *corev1.ConfigMap) (controller.Result, error)) controller.Options[*corev1.ConfigMap] {
	return controller.Options[*corev1.ConfigMap]{
		Name:        name,
		Informer:    inf,
		DeepCopy:    (*corev1.ConfigMap).DeepCopy,
		Reconcile:   reconcile,
		RateLimiter: fastLimiter,
		Get: func(_ context.Context, k cache.ObjectName) (*corev1.ConfigMap, error) {
			return s.Get(k)
		},
		Update: func(_ context.Context, o *corev1.ConfigMap) (*corev1.ConfigMap, error) { return s.Update(o) },
		// Like the status subresource, UpdateStatus writes only the status.
		UpdateStatus: func(_ context.Context, o *corev1.ConfigMap) (*corev1.ConfigMap, error) {
			cur, err := s.Get(cache.MetaObjectName(o))
			if err != nil {
				return nil, err
			}
			cur.ResourceVersion = o.ResourceVersion
			copyStatus(cur, o)
			return s.Update(cur)
		},
		StatusEqual: func(a, b *corev1.ConfigMap) bool {
			return a.Data["status"] == b.Data["status"] && a.Data["observedGeneration"] == b.Data["observedGeneration"]
		},
		CopyStatus:            copyStatus,
		SetObservedGeneration: func(o *corev1.ConfigMap, g int64) { o.Data["observedGeneration"] = fmt.Sprint(g) },
	}
}

func copyStatus(dst, src *corev1.ConfigMap) {
	if dst.Data == nil {
		dst.Data = map[string]string{}
	}
	dst.Data["status"] = src.Data["status"]
	dst.Data["observedGeneration"] = src.Data["observedGeneration"]
}

func start(t *testing.T, s *server, mutate func(*controller.Options[*corev1.ConfigMap]), reconcile func(context.Context, *corev1.ConfigMap) (controller.Result, error)) *harness {
	t.Helper()
	return startWorkers(t, s, 2, mutate, reconcile)
}

// startWorkers is start with the given number of workers.
func startWorkers(t *testing.T, s *server, workers int, mutate func(*controller.Options[*corev1.ConfigMap]), reconcile func(context.Context, *corev1.ConfigMap) (controller.Result, error)) *harness {
	t.Helper()
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](s.ListerWatcher(), cache.SharedIndexInformerOptions{})
	opts := options(s, inf, t.Name(), reconcile)
	if mutate != nil {
		mutate(&opts)
	}
	c, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, s: s, inf: inf, c: c, cancel: cancel, done: make(chan error, 1)}
	go inf.RunWithContext(ctx)
	go func() { h.done <- c.Run(ctx, workers) }()
	t.Cleanup(h.stop)
	return h
}

func (h *harness) stop() {
	h.cancel()
	if err := <-h.done; err != nil {
		h.t.Error(err)
	}
	h.done <- nil // let a second stop return
}

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

func stored(s *server, name string) *corev1.ConfigMap {
	o, err := s.Get(key(name))
	if err != nil {
		return nil
	}
	return o
}

func TestReconcileGetsADeepCopyAndStatusIsWrittenBackOnlyWhenChanged(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("a"))
	var calls atomic.Int32
	h := start(t, s, nil, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		calls.Add(1)
		o.Data["status"] = "ready"
		o.Labels = map[string]string{"scribbled": "on the copy"}
		return controller.Result{}, nil
	})
	eventually(t, "status written", func() bool { return stored(s, "a").Data["status"] == "ready" })
	if got := stored(s, "a").Data["observedGeneration"]; got != "1" {
		t.Fatalf("observedGeneration = %q, want 1", got)
	}
	// The status write comes back as an update and is reconciled once more,
	// with nothing left to write.
	eventually(t, "second reconcile", func() bool { return calls.Load() >= 2 })
	rv := stored(s, "a").ResourceVersion
	cached, _ := h.inf.FastIndexer().GetByName(key("a"))
	if cached.Labels != nil {
		t.Fatal("Reconcile's changes leaked into the cache")
	}
	s.Create(cm("b")) // a later event, to be sure the controller is idle after it
	eventually(t, "b reconciled", func() bool { return stored(s, "b").Data["status"] == "ready" })
	if stored(s, "a").ResourceVersion != rv {
		t.Fatal("unchanged status was written again")
	}
}

func TestFailingReconcileIsRetriedWithBackoffAndPermanentErrorsAreNot(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("flaky"))
	s.Create(cm("broken"))
	var mu sync.Mutex
	attempts := map[string][]time.Time{}
	start(t, s, nil, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		attempts[o.Name] = append(attempts[o.Name], time.Now())
		switch {
		case o.Name == "broken":
			return controller.Result{}, controller.Permanent(errors.New("spec cannot work"))
		case len(attempts[o.Name]) < 4:
			return controller.Result{}, errors.New("transient")
		}
		o.Data["status"] = "ready"
		return controller.Result{}, nil
	})
	eventually(t, "flaky converges", func() bool { return stored(s, "flaky").Data["status"] == "ready" })
	mu.Lock()
	defer mu.Unlock()
	a := attempts["flaky"]
	// Rate limiter: 1ms, 2ms, 4ms between the failing attempts.
	if gap := a[3].Sub(a[2]); gap < 4*time.Millisecond {
		t.Fatalf("third retry after %v, want backoff of at least 4ms", gap)
	}
	if n := len(attempts["broken"]); n != 1 {
		t.Fatalf("permanent error retried: %d attempts", n)
	}
}

func TestStatusConflictIsRetriedOnAFreshCopy(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("a"))
	var once sync.Once
	start(t, s, nil, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		once.Do(func() {
			// Another writer changes the object after our read.
			s.Mutate(key("a"), func(o *corev1.ConfigMap) { o.Data["other"] = "writer" })
		})
		o.Data["status"] = "ready"
		return controller.Result{}, nil
	})
	eventually(t, "status written", func() bool { return stored(s, "a").Data["status"] == "ready" })
	if stored(s, "a").Data["other"] != "writer" {
		t.Fatal("the other writer's change was overwritten")
	}
}

func TestPanicInReconcileIsRecoveredCountedAndRetried(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("a"))
	var calls atomic.Int32
	metrics := &counting{counts: map[string]*atomic.Int64{}}
	controller.SetDefaultMetricsProvider(metrics)
	defer controller.SetDefaultMetricsProvider(nil)
	h := start(t, s, nil, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		o.Data["status"] = "ready"
		return controller.Result{}, nil
	})
	eventually(t, "recovered", func() bool { return stored(s, "a").Data["status"] == "ready" })
	if got := metrics.value("panics", h.c.Name()); got != 1 {
		t.Fatalf("panics counted: %v", got)
	}
	if got := metrics.value("total_success", h.c.Name()); got < 1 {
		t.Fatalf("successful reconciles counted: %v", got)
	}
}

func TestFinalizerIsAddedThenRunBeforeDeletion(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("live"))
	doomed := cm("doomed")
	now := metav1.Now()
	doomed.DeletionTimestamp = &now
	doomed.Finalizers = []string{"someone.else/keep"}
	s.Create(doomed)
	var finalized atomic.Int32
	start(t, s, func(o *controller.Options[*corev1.ConfigMap]) {
		o.Finalizer = "test.ctrlgen.dev/cleanup"
		o.Finalize = func(_ context.Context, o *corev1.ConfigMap) error {
			finalized.Add(1)
			return nil
		}
	}, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		o.Data["status"] = "ready"
		return controller.Result{}, nil
	})
	eventually(t, "finalizer added", func() bool {
		o := stored(s, "live")
		return len(o.Finalizers) == 1 && o.Data["status"] == "ready"
	})
	if f := stored(s, "doomed").Finalizers; len(f) != 1 || f[0] != "someone.else/keep" {
		t.Fatalf("finalizers of an object being deleted became %v", f)
	}
	s.Mutate(key("live"), func(o *corev1.ConfigMap) { t := metav1.Now(); o.DeletionTimestamp = &t })
	eventually(t, "finalizer removed", func() bool { return len(stored(s, "live").Finalizers) == 0 })
	if finalized.Load() != 1 {
		t.Fatalf("Finalize ran %d times", finalized.Load())
	}
}

func TestRequeueAfterAndDeletedHook(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("a"))
	var calls atomic.Int32
	gone := make(chan cache.ObjectName, 1)
	start(t, s, func(o *controller.Options[*corev1.ConfigMap]) {
		o.Deleted = func(_ context.Context, k cache.ObjectName) error { gone <- k; return nil }
	}, func(context.Context, *corev1.ConfigMap) (controller.Result, error) {
		calls.Add(1)
		return controller.Result{RequeueAfter: 5 * time.Millisecond}, nil
	})
	eventually(t, "requeued", func() bool { return calls.Load() >= 3 })
	s.Delete(key("a"))
	if k := <-gone; k != key("a") {
		t.Fatalf("Deleted hook got %v", k)
	}
}

func TestRunDrainsInFlightReconcilesOnCancel(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("a"))
	entered, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	h := start(t, s, nil, func(context.Context, *corev1.ConfigMap) (controller.Result, error) {
		close(entered)
		<-release
		finished.Store(true)
		return controller.Result{}, nil
	})
	<-entered
	h.cancel()
	select {
	case <-h.done:
		t.Fatal("Run returned while a reconcile was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	h.done <- nil
	if !finished.Load() {
		t.Fatal("in-flight reconcile did not finish")
	}
}

func TestWatchOwnedEnqueuesTheControllingOwner(t *testing.T) {
	owners := cachetest.NewServer[*corev1.ConfigMap](gr)
	owned := cachetest.NewServer[*corev1.Secret](schema.GroupResource{Resource: "secrets"})
	owners.Create(cm("first"))
	owners.Create(cm("second"))
	ownerInf := cache.NewSharedIndexInformer[*corev1.ConfigMap](owners.ListerWatcher(), 0, nil)
	ownedInf := cache.NewSharedIndexInformer[*corev1.Secret](owned.ListerWatcher(), 0, nil)

	var mu sync.Mutex
	counts := map[string]int{}
	count := func(name string) int { mu.Lock(); defer mu.Unlock(); return counts[name] }
	opts := options(owners, ownerInf, t.Name(), func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		mu.Lock()
		counts[o.Name]++
		mu.Unlock()
		return controller.Result{}, nil
	})
	// No status writes: every reconcile below is caused by an owned object.
	opts.UpdateStatus, opts.SetObservedGeneration = nil, nil
	c, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	owner := controller.Owner{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespaced: true}
	if err := controller.WatchOwned(c, ownedInf, owner); err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, c, 1, nil, ownerInf, ownedInf)
	eventually(t, "initial reconciles", func() bool { return count("first") >= 1 && count("second") >= 1 })
	// Reconciles of each owner happen only through the steps below now.
	first, second := count("first"), count("second")

	ref := func(name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: "u", Controller: ptr(true)}}
	}
	owned.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", OwnerReferences: ref("first")}})
	eventually(t, "owner of a new object", func() bool { return count("first") == first+1 })
	owned.Mutate(key("s"), func(o *corev1.Secret) { o.OwnerReferences = ref("second") })
	eventually(t, "old and new owner after adoption", func() bool {
		return count("first") == first+2 && count("second") == second+1
	})
	owned.Delete(key("s"))
	eventually(t, "owner of a deleted object", func() bool { return count("second") == second+2 })

	// An object controlled by another kind is not ours; the marker after
	// it shows the controller has seen it.
	owned.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "f", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "ConfigMap", Name: "first", UID: "u", Controller: ptr(true)}}}})
	owned.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "marker", OwnerReferences: ref("second")}})
	eventually(t, "marker", func() bool { return count("second") == second+3 })
	if count("first") != first+2 {
		t.Fatalf("object owned by apps/ConfigMap enqueued the core owner (%d reconciles)", count("first")-first)
	}
}

func ptr[T any](v T) *T { return &v }

// counting is a controller.MetricsProvider whose metrics count calls,
// by metric and controller.
type counting struct {
	mu     sync.Mutex
	counts map[string]*atomic.Int64
}

func (c *counting) metric(name, ctrl string) countingMetric {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := name + "/" + ctrl
	if c.counts[key] == nil {
		c.counts[key] = &atomic.Int64{}
	}
	return countingMetric{c.counts[key]}
}

func (c *counting) value(name, ctrl string) int64 { return c.metric(name, ctrl).n.Load() }

type countingMetric struct{ n *atomic.Int64 }

func (m countingMetric) Inc()            { m.n.Add(1) }
func (m countingMetric) Dec()            { m.n.Add(-1) }
func (m countingMetric) Set(float64)     {}
func (m countingMetric) Observe(float64) {}

func (c *counting) NewReconcileTotal(ctrl, result string) workqueue.CounterMetric {
	return c.metric("total_"+result, ctrl)
}
func (c *counting) NewReconcileErrors(ctrl string) workqueue.CounterMetric {
	return c.metric("errors", ctrl)
}
func (c *counting) NewTerminalReconcileErrors(ctrl string) workqueue.CounterMetric {
	return c.metric("terminal", ctrl)
}
func (c *counting) NewReconcilePanics(ctrl string) workqueue.CounterMetric {
	return c.metric("panics", ctrl)
}
func (c *counting) NewReconcileTime(ctrl string) workqueue.HistogramMetric {
	return c.metric("time", ctrl)
}
func (c *counting) NewMaxConcurrentReconciles(ctrl string) workqueue.SettableGaugeMetric {
	return c.metric("max", ctrl)
}
func (c *counting) NewActiveWorkers(ctrl string) workqueue.GaugeMetric {
	return c.metric("active", ctrl)
}

// runUntilCleanup runs the informers and c, with workers, until the test
// ends; ctxFn, if set, gives Run its context.
func runUntilCleanup[T cache.Object](t *testing.T, c *controller.Controller[T], workers int, ctxFn func(context.Context) context.Context, informers ...interface{ RunWithContext(context.Context) }) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	for _, inf := range informers {
		go inf.RunWithContext(ctx)
	}
	runCtx := ctx
	if ctxFn != nil {
		runCtx = ctxFn(ctx)
	}
	go func() { defer close(done); c.Run(runCtx, workers) }()
	t.Cleanup(func() { cancel(); <-done })
}

// Package controller runs a reconcile loop over one kind, in the shape of
// kube-controller-manager's controllers: informer events become keys in a
// rate-limited workqueue, and workers hand each key's object to the user's
// Reconcile. Generated wiring fills Options with typed functions, so nothing
// here needs reflection.
package controller

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clientcache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// Options describe a controller. Informer, DeepCopy and Reconcile are
// required; the rest turn features on.
type Options[T cache.Object] struct {
	// Name labels the queue, metrics, logs and events.
	Name string
	// Informer is client-go's typed informer; with ctrlgen's, events and
	// cache reads take its typed path.
	Informer clientcache.TypedSharedIndexInformer[T]
	DeepCopy func(T) T

	// Reconcile is given a deep copy of the cached object; it may change
	// the copy's status, which is written back when it changed.
	Reconcile func(ctx context.Context, obj T) (Result, error)
	// Deleted, if set, is called for a key whose object is gone.
	Deleted func(ctx context.Context, key cache.ObjectName) error

	// Get reads the object from the apiserver, for a fresh copy after a
	// conflict.
	Get func(ctx context.Context, key cache.ObjectName) (T, error)
	// Update writes the whole object; needed with Finalizer.
	Update func(ctx context.Context, obj T) (T, error)
	// UpdateStatus writes the status subresource; with StatusEqual and
	// CopyStatus it turns on status write-back.
	UpdateStatus func(ctx context.Context, obj T) (T, error)
	StatusEqual  func(a, b T) bool
	CopyStatus   func(dst, src T)
	// SetObservedGeneration, when the type has status.observedGeneration,
	// records the generation a successful Reconcile saw.
	SetObservedGeneration func(obj T, generation int64)
	// StatusApply, with StatusEqual, turns on status write-back by
	// server-side apply instead of UpdateStatus; see StatusApply.
	StatusApply *StatusApply[T]

	// Finalizer, with Finalize, is added to live objects and removed after
	// Finalize succeeds on an object being deleted.
	Finalizer string
	Finalize  func(ctx context.Context, obj T) error

	// RateLimiter spaces the retries of failing keys; default
	// workqueue.DefaultControllerRateLimiter.
	RateLimiter workqueue.RateLimiter[cache.ObjectName]
	// Recorder, if set, receives a Warning event for permanent errors and
	// panics.
	Recorder record.EventRecorder
	// StatusConflictRetries bounds the fresh-Get retries of a conflicting
	// status write; default 5.
	StatusConflictRetries int

	// Expectations, if set, make the controller skip Reconcile for an
	// owner until the creations and deletions it expects have been
	// observed, or have expired; then the owner is reconciled again.
	// WatchOwned lowers them as the owned informers observe adds and
	// deletes, and they are dropped when the owner is deleted.
	Expectations *Expectations[T]

	// UpdateFilter, if set, decides which updates of the primary object
	// queue it, e.g. Or(GenerationChanged[T], LabelsChanged[T]) (see
	// UpdateFilter). Adds, deletes and owned objects' events always queue.
	UpdateFilter UpdateFilter[T]
	// SkipOwnStatusWrites drops the update event of the controller's own
	// status write (by UpdateStatus or StatusApply): an update from the
	// resourceVersion the write was made on to the one it returned, with
	// nothing outside status changed. Reconcile has just seen that object;
	// someone else's status write still queues it. An update from the
	// write's resourceVersion that arrives before the write returns is
	// held until it does. Unlike GenerationChanged, it keeps reconciling
	// status that others change.
	SkipOwnStatusWrites bool
}

// Controller reconciles the objects of one informer.
type Controller[T cache.Object] struct {
	opts    Options[T]
	cached  cache.FastIndexer[T]
	synced  []cache.InformerSynced
	queue   atomic.Pointer[queueBox]
	metrics *controllerMetrics
	// statusApplier is set with Options.StatusApply.
	statusApplier *statusApplier[T]
	// ownWrites is set with Options.SkipOwnStatusWrites.
	ownWrites *ownWrites
}

// queueBox holds the queue of the current Run; events that arrive while no
// Run is active (for example while another process leads) are dropped,
// because each Run starts by queueing every cached key.
type queueBox struct {
	q workqueue.RateLimiting[cache.ObjectName]
}

// New returns a controller and registers its event handler on the
// informer.
func New[T cache.Object](opts Options[T]) (*Controller[T], error) {
	switch {
	case opts.Name == "":
		return nil, fmt.Errorf("controller: Name is required")
	case opts.Informer == nil || opts.DeepCopy == nil || opts.Reconcile == nil:
		return nil, fmt.Errorf("controller %s: Informer, DeepCopy and Reconcile are required", opts.Name)
	case opts.Finalizer != "" && (opts.Finalize == nil || opts.Update == nil):
		return nil, fmt.Errorf("controller %s: Finalizer needs Finalize and Update", opts.Name)
	case opts.UpdateStatus != nil && (opts.StatusEqual == nil || opts.CopyStatus == nil || opts.Get == nil):
		return nil, fmt.Errorf("controller %s: UpdateStatus needs StatusEqual, CopyStatus and Get", opts.Name)
	case opts.StatusApply != nil && opts.UpdateStatus != nil:
		return nil, fmt.Errorf("controller %s: StatusApply and UpdateStatus both write status; set one", opts.Name)
	case opts.StatusApply != nil && (opts.StatusEqual == nil || opts.StatusApply.ToTyped == nil || opts.StatusApply.Apply == nil):
		return nil, fmt.Errorf("controller %s: StatusApply needs StatusEqual, ToTyped and Apply", opts.Name)
	case opts.SkipOwnStatusWrites && opts.UpdateStatus == nil && opts.StatusApply == nil:
		return nil, fmt.Errorf("controller %s: SkipOwnStatusWrites needs UpdateStatus or StatusApply: the controller writes no status", opts.Name)
	}
	if opts.RateLimiter == nil {
		opts.RateLimiter = workqueue.DefaultControllerRateLimiter[cache.ObjectName]()
	}
	if opts.StatusConflictRetries == 0 {
		opts.StatusConflictRetries = 5
	}
	c := &Controller[T]{opts: opts, cached: cache.FastIndexerOf[T](opts.Informer.GetIndexer()), metrics: metricsFor(opts.Name)}
	if opts.StatusApply != nil {
		var err error
		if c.statusApplier, err = newStatusApplier(opts.Name, *opts.StatusApply); err != nil {
			return nil, fmt.Errorf("controller %s: %w", opts.Name, err)
		}
	}
	if opts.SkipOwnStatusWrites {
		c.ownWrites = newOwnWrites()
	}
	reg, err := opts.Informer.AddTypedEventHandler(named[T]{opts.Name, clientcache.TypedResourceEventHandlerFuncs[T]{
		AddFunc: func(obj T) { c.Enqueue(cache.MetaObjectName(obj)) },
		UpdateFunc: func(old, obj T) {
			key := cache.MetaObjectName(obj)
			pass := c.opts.UpdateFilter == nil || c.opts.UpdateFilter(old, obj)
			if c.ownWrites != nil && c.ownWrites.claim(key, old, obj, pass) {
				return
			}
			if pass {
				c.Enqueue(key)
			}
		},
		DeleteFunc: func(d clientcache.DeletedObject[T]) {
			if c.ownWrites != nil {
				c.ownWrites.forget(d.GetObjectName())
			}
			c.Enqueue(d.GetObjectName())
		},
	}})
	if err != nil {
		return nil, fmt.Errorf("controller %s: %w", opts.Name, err)
	}
	c.synced = append(c.synced, reg.HasSynced)
	return c, nil
}

// Name is the controller's name.
func (c *Controller[T]) Name() string { return c.opts.Name }

// Enqueue queues key for reconciling, if the controller is running.
func (c *Controller[T]) Enqueue(key cache.ObjectName) {
	if b := c.queue.Load(); b != nil {
		b.q.Add(key)
	}
}

// EnqueueAfter queues key after d, if the controller is running.
func (c *Controller[T]) EnqueueAfter(key cache.ObjectName, d time.Duration) {
	if b := c.queue.Load(); b != nil {
		b.q.AddAfter(key, d)
	}
}

// HasSynced reports whether every informer the controller watches has
// delivered its initial list to it.
func (c *Controller[T]) HasSynced() bool {
	for _, s := range c.synced {
		if !s() {
			return false
		}
	}
	return true
}

// Run waits for the caches, queues every cached object, and reconciles
// with the given number of workers until ctx is done. It then stops taking
// keys and returns once in-flight reconciles have finished. Run may be
// called again after it returns, e.g. on each leader-election term.
func (c *Controller[T]) Run(ctx context.Context, workers int) error {
	logger := klog.FromContext(ctx).WithValues("controller", c.opts.Name)
	ctx = klog.NewContext(ctx, logger)
	if !cache.WaitForCacheSync(ctx, c.HasSynced) {
		return fmt.Errorf("controller %s: caches did not sync: %w", c.opts.Name, ctx.Err())
	}
	q := workqueue.NewRateLimitingQueue(c.opts.RateLimiter, workqueue.Config{Name: c.opts.Name})
	if !c.queue.CompareAndSwap(nil, &queueBox{q}) {
		q.ShutDown()
		return fmt.Errorf("controller %s: already running", c.opts.Name)
	}
	shards := shardsFrom(ctx)
	if shards != nil {
		defer shards.OnGain(func(owns func(cache.ObjectName) bool) {
			for _, key := range c.cached.ListNames() {
				if owns(key) {
					q.Add(key)
				}
			}
		})()
	}
	for _, key := range c.cached.ListNames() {
		q.Add(key)
	}
	logger.Info("Starting workers", "count", workers)
	c.metrics.maxWorkers.Set(float64(workers))

	w := worker[T]{c: c, q: q, shards: shards, observe: observerFrom(ctx)}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for w.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	logger.Info("Stopping workers; waiting for in-flight reconciles")
	q.ShutDownWithDrain()
	wg.Wait()
	c.queue.Store(nil)
	return nil
}

// worker is what Run's workers share.
type worker[T cache.Object] struct {
	c       *Controller[T]
	q       workqueue.RateLimiting[cache.ObjectName]
	shards  Shards
	observe func(Reconciled)
}

func (w worker[T]) processNextWorkItem(ctx context.Context) bool {
	c, q := w.c, w.q
	key, shutdown := q.Get()
	if shutdown {
		return false
	}
	defer q.Done(key)
	if w.shards != nil {
		end, ok := w.shards.Begin(key)
		if !ok {
			// Another process holds the key's bucket; this one queues it
			// again if it gains the bucket.
			q.Forget(key)
			return true
		}
		defer end()
	}
	c.metrics.activeWorkers.Inc()
	start := time.Now()
	res, err := c.reconcile(ctx, key)
	end := time.Now()
	c.metrics.reconcileTime.Observe(end.Sub(start).Seconds())
	c.metrics.activeWorkers.Dec()
	if w.observe != nil {
		w.observe(Reconciled{Controller: c.opts.Name, Key: key, Start: start, End: end, Err: err})
	}

	logger := klog.FromContext(ctx).WithValues("key", key.String())
	var applyConflict *StatusApplyConflictError
	switch {
	case err == nil && res.RequeueAfter > 0:
		q.Forget(key)
		q.AddAfter(key, res.RequeueAfter)
		c.metrics.result(resultRequeueAfter)
	case err == nil && res.Requeue:
		q.AddRateLimited(key)
		c.metrics.result(resultRequeue)
	case err == nil:
		q.Forget(key)
		c.metrics.result(resultSuccess)
	case IsPermanent(err):
		q.Forget(key)
		c.metrics.result(resultError)
		c.metrics.terminalErrors.Inc()
		logger.Error(err, "Reconcile failed permanently; not retrying")
		c.event(key, "ReconcileFailed", err)
	case errors.As(err, &applyConflict):
		// Other field managers own fields the status sets: never forced,
		// so say so where the user looks, and back off.
		q.AddRateLimited(key)
		c.metrics.result(resultError)
		logger.Error(err, "Status apply conflicts; retrying", "requeues", q.NumRequeues(key))
		c.event(key, "StatusApplyConflict", err)
	case apierrors.IsConflict(err):
		// Someone else wrote first; the next attempt reads their version.
		q.AddRateLimited(key)
		c.metrics.result(resultRequeue)
		logger.V(4).Info("Conflict; retrying", "err", err.Error())
	default:
		q.AddRateLimited(key)
		c.metrics.result(resultError)
		logger.Error(err, "Reconcile failed; retrying", "requeues", q.NumRequeues(key))
	}
	return true
}

func (c *Controller[T]) reconcile(ctx context.Context, key cache.ObjectName) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.metrics.panics.Inc()
			err = fmt.Errorf("panic in reconcile of %s: %v [recovered]\n%s", key, r, debug.Stack())
			c.event(key, "ReconcilePanic", fmt.Errorf("%v", r))
		}
	}()
	cached, exists := c.cached.GetByName(key)
	if !exists {
		if c.opts.Expectations != nil {
			c.opts.Expectations.forget(key)
		}
		if c.opts.Deleted != nil {
			return Result{}, c.opts.Deleted(ctx, key)
		}
		return Result{}, nil
	}
	obj := c.opts.DeepCopy(cached)
	if c.opts.Finalizer != "" {
		var stop bool
		if obj, stop, err = c.handleFinalizer(ctx, obj); stop || err != nil {
			return Result{}, err
		}
	}
	if c.opts.Expectations != nil {
		// The owned cache does not yet show this owner's last writes.
		// Observing them enqueues it again; the delay covers their expiry.
		if wait, ok := c.opts.Expectations.satisfied(key); !ok {
			return Result{RequeueAfter: wait}, nil
		}
	}
	res, err = c.opts.Reconcile(ctx, obj)
	observed := err == nil && c.opts.SetObservedGeneration != nil
	if observed {
		c.opts.SetObservedGeneration(obj, obj.GetGeneration())
	}
	// Status is written even when Reconcile failed: a condition that says
	// why is what the user looks at.
	if serr := c.writeStatus(ctx, key, cached, obj, observed); serr != nil {
		if err != nil {
			klog.FromContext(ctx).Error(serr, "Writing the status failed too", "key", key.String())
		} else {
			err = serr
		}
	}
	return res, err
}

// handleFinalizer adds the finalizer to live objects, and runs Finalize
// then removes the finalizer on objects being deleted. stop says the
// object needs no Reconcile.
func (c *Controller[T]) handleFinalizer(ctx context.Context, obj T) (_ T, stop bool, _ error) {
	has := slices.Contains(obj.GetFinalizers(), c.opts.Finalizer)
	if obj.GetDeletionTimestamp() != nil {
		if !has {
			return obj, true, nil
		}
		if err := c.opts.Finalize(ctx, obj); err != nil {
			return obj, true, err
		}
		obj.SetFinalizers(slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return f == c.opts.Finalizer }))
		_, err := c.opts.Update(ctx, obj)
		if apierrors.IsNotFound(err) {
			err = nil
		}
		return obj, true, err
	}
	if has {
		return obj, false, nil
	}
	obj.SetFinalizers(append(slices.Clone(obj.GetFinalizers()), c.opts.Finalizer))
	updated, err := c.opts.Update(ctx, obj)
	if err != nil {
		return obj, true, err
	}
	return updated, false, nil
}

// writeStatus writes obj's status if it differs from the cached object's:
// by server-side apply with StatusApply, else by UpdateStatus, where a
// conflict is retried on a fresh copy carrying the new status.
// observedGeneration says whether SetObservedGeneration set it.
func (c *Controller[T]) writeStatus(ctx context.Context, key cache.ObjectName, cached, obj T, observedGeneration bool) error {
	switch {
	case c.opts.UpdateStatus == nil && c.statusApplier == nil, c.opts.StatusEqual(cached, obj):
		return nil
	case c.statusApplier != nil:
		// An apply has no resourceVersion precondition: it is made on the
		// cached object, unless someone wrote since (see ownWrites.claim).
		c.beginOwnWrite(key, cached)
		applied, err := c.statusApplier.apply(ctx, cached, obj, observedGeneration)
		c.endOwnWrite(key, applied, err)
		return err
	}
	c.beginOwnWrite(key, obj)
	written, err := c.opts.UpdateStatus(ctx, obj)
	for i := 0; apierrors.IsConflict(err) && i < c.opts.StatusConflictRetries; i++ {
		fresh, gerr := c.opts.Get(ctx, key)
		if gerr != nil {
			err = gerr
			break
		}
		c.opts.CopyStatus(fresh, obj)
		c.beginOwnWrite(key, fresh)
		written, err = c.opts.UpdateStatus(ctx, fresh)
	}
	c.endOwnWrite(key, written, err)
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile; nothing left to report on
	}
	return err
}

// beginOwnWrite notes, with SkipOwnStatusWrites, that a status write of
// key is about to be made on on's resourceVersion.
func (c *Controller[T]) beginOwnWrite(key cache.ObjectName, on T) {
	if c.ownWrites != nil && c.ownWrites.begin(key, on.GetResourceVersion()) {
		c.Enqueue(key)
	}
}

// endOwnWrite notes, with SkipOwnStatusWrites, what the status write
// begun last returned.
func (c *Controller[T]) endOwnWrite(key cache.ObjectName, written T, err error) {
	if c.ownWrites == nil {
		return
	}
	var zero T
	to := ""
	if err == nil && written != zero {
		to = written.GetResourceVersion()
	}
	if c.ownWrites.end(key, to) {
		c.Enqueue(key)
	}
}

func (c *Controller[T]) event(key cache.ObjectName, reason string, err error) {
	if c.opts.Recorder == nil {
		return
	}
	if obj, ok := c.cached.GetByName(key); ok {
		c.opts.Recorder.Event(obj, corev1.EventTypeWarning, reason, err.Error())
	}
}

// named gives a handler a name, which ctrlgen's informer reports it under
// in metrics.
type named[T cache.Object] struct {
	name string
	clientcache.TypedResourceEventHandler[T]
}

func (n named[T]) Name() string { return n.name }

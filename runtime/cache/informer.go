package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	clientcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// SharedIndexInformerOptions configure NewSharedIndexInformerWithOptions.
type SharedIndexInformerOptions struct {
	// ResyncPeriod is the default resync period of handlers and how often
	// the informer checks for due resyncs, as in client-go: zero means no
	// resyncs at all, whatever handlers ask for.
	ResyncPeriod time.Duration
	Indexers     clientcache.Indexers
	// ObjectDescription names the informer in logs, errors and metrics;
	// default is the object's Go type.
	ObjectDescription string
	// Reflector tunes list and watch; the zero value takes the defaults.
	Reflector ReflectorOptions
	// Identifier names the informer for metrics, as client-go's option of
	// the same name: when it is reserved, its name prefixes the
	// description, so that the informers of two named factories are told
	// apart.
	Identifier clientcache.InformerNameAndResource
}

// NewSharedIndexInformer returns an informer over lw, as client-go's
// function of the same name.
func NewSharedIndexInformer[T Object](lw ListerWatcher[T], defaultEventHandlerResyncPeriod time.Duration, indexers clientcache.Indexers) SharedIndexInformer[T] {
	return NewSharedIndexInformerWithOptions(lw, SharedIndexInformerOptions{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewSharedIndexInformerWithOptions returns an informer over lw.
func NewSharedIndexInformerWithOptions[T Object](lw ListerWatcher[T], opts SharedIndexInformerOptions) SharedIndexInformer[T] {
	if opts.ObjectDescription == "" {
		var zero T
		opts.ObjectDescription = reflect.TypeOf(zero).String()
	}
	if opts.Identifier.Reserved() {
		opts.ObjectDescription = opts.Identifier.Name() + "/" + opts.ObjectDescription
	}
	if opts.Reflector.Name == "" {
		opts.Reflector.Name = opts.ObjectDescription
	}
	if opts.Reflector.Clock == nil {
		opts.Reflector.Clock = clock.RealClock{}
	}
	s := &sharedIndexInformer[T]{
		indexer:           newThreadSafeMap[T](),
		processor:         &sharedProcessor[T]{},
		defaultResync:     opts.ResyncPeriod,
		resyncCheckPeriod: opts.ResyncPeriod,
		reflectorOpts:     opts.Reflector,
		clock:             opts.Reflector.Clock,
		done:              make(chan struct{}),
	}
	s.lw = scopedLW[T]{ListerWatcher: lw, selector: s.shardSelector}
	_ = s.indexer.AddIndexers(opts.Indexers) // a map names each index once
	if internable[T]() {
		s.interner = NewInterner()
	}
	s.fifo = NewDeltaFIFOWithOptions(DeltaFIFOOptions[T]{
		KnownObjects: s.indexer,
		Transformer:  s.withInterning(nil),
		Replaced:     s.replaced,
		Inline:       s.handleDeltas,
	})
	return s
}

type sharedIndexInformer[T Object] struct {
	lw        ListerWatcher[T]
	indexer   *threadSafeMap[T]
	fifo      *DeltaFIFO[T]
	processor *sharedProcessor[T]
	// interner shares repeated metadata strings among the cached objects;
	// nil for object types whose accessors return copies.
	interner *Interner
	// scope, when set, is the part of the resource the informer holds
	// (Rescope); rescopes are the Rescopes whose first list has not yet
	// been handled entirely, each closed once it has: the fifo's Replace
	// count it waits for. Guarded by the fifo's lock.
	scope    atomic.Pointer[Scope[T]]
	rescopes []rescope

	// lock guards the configuration below, which is fixed once started,
	// and stopped, after which no handler is added.
	lock              sync.Mutex
	started           bool
	stopped           bool
	defaultResync     time.Duration
	resyncCheckPeriod time.Duration
	reflectorOpts     ReflectorOptions
	reflector         *Reflector[T]
	handlers          int
	// clock times resyncs: the Reflector's.
	clock clock.Clock

	done chan struct{}
}

var errStarted = errors.New("informer has already started")

// minimumResyncPeriod is the shortest resync period a handler gets, as in
// client-go.
const minimumResyncPeriod = time.Second

func (s *sharedIndexInformer[T]) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext lists and watches until ctx is done. It returns once the
// informer has stopped; calling it again has no effect.
func (s *sharedIndexInformer[T]) RunWithContext(ctx context.Context) {
	s.lock.Lock()
	if s.started || s.stopped {
		s.lock.Unlock()
		return
	}
	s.started = true
	s.reflector = NewReflector[T](s.lw, s.fifo, s.reflectorOpts)
	resync := s.resyncCheckPeriod
	s.lock.Unlock()
	defer close(s.done)

	s.processor.run()
	var wg sync.WaitGroup
	wg.Go(func() { s.reflector.Run(ctx) })
	if resync > 0 {
		wg.Go(func() { s.resyncLoop(ctx, resync) })
	}
	wg.Go(func() {
		<-ctx.Done()
		s.fifo.Close()
	})
	for {
		if err := s.fifo.Pop(s.handleDeltas); errors.Is(err, ErrFIFOClosed) {
			break
		}
	}
	// Refuse new handlers before stopping the listeners, so that none is
	// added that nothing would stop.
	s.lock.Lock()
	s.stopped = true
	s.lock.Unlock()
	s.processor.stop()
	wg.Wait()
}

// resyncLoop checks every period which handlers are due for a resync,
// arming one timer at a time as client-go's reflector does.
func (s *sharedIndexInformer[T]) resyncLoop(ctx context.Context, period time.Duration) {
	for {
		t := s.clock.NewTimer(period)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if s.processor.shouldResync(s.clock.Now()) {
			_ = s.fifo.Resync()
		}
	}
}

// handleDeltas applies one key's deltas to the Indexer and tells the
// handlers. It runs with the DeltaFIFO locked.
func (s *sharedIndexInformer[T]) handleDeltas(key ObjectName, deltas Deltas[T], isInInitialList bool) {
	if sc := s.scope.Load(); sc != nil && sc.Contains != nil {
		if newest, ok := deltas.Newest(); ok && !sc.Contains(newest.Object) {
			// Outside the scope: from a server that ignores the shard
			// selector, or queued before a Rescope. Not the informer's to
			// hold, nor the handlers' to hear of.
			s.indexer.remove(key)
			return
		}
	}
	for _, d := range deltas {
		switch d.Type {
		case Deleted:
			if d.FinalStateUnknown {
				s.indexer.remove(key)
			} else {
				s.indexer.removeSeen(key, d.Object.GetResourceVersion())
			}
			s.processor.distribute(notification[T]{kind: deleteNotification, new: d.Object, flag: d.FinalStateUnknown}, false)
		default:
			old, existed := s.indexer.swap(d.Object)
			if !existed {
				s.processor.distribute(notification[T]{kind: addNotification, new: d.Object, flag: isInInitialList}, false)
				continue
			}
			// As client-go: an update that keeps the resourceVersion is a
			// resync, for the handlers that asked for one.
			isSync := old.GetResourceVersion() == d.Object.GetResourceVersion()
			s.processor.distribute(notification[T]{kind: updateNotification, old: old, new: d.Object}, isSync)
		}
	}
}

// Rescope changes the part of the resource the informer holds: see
// Rescoper. Before Run it sets the scope of the first list.
func (s *sharedIndexInformer[T]) Rescope(scope Scope[T]) <-chan struct{} {
	synced := make(chan struct{})
	between := func() {
		s.scope.Store(&scope)
		s.fifo.withLock(func() {
			if scope.Contains != nil {
				for _, obj := range s.indexer.ListAll() {
					if !scope.Contains(obj) {
						s.indexer.remove(MetaObjectName(obj))
					}
				}
			}
			// No list is under way: the next Replace is the new scope's.
			s.rescopes = append(s.rescopes, rescope{after: s.fifo.replaces + 1, synced: synced})
		})
	}
	s.lock.Lock()
	r := s.reflector
	if r == nil {
		between() // before Run: the first list is the scope's
	}
	s.lock.Unlock()
	if r != nil {
		r.Relist(between)
	}
	return synced
}

type rescope struct {
	after  int64
	synced chan struct{}
}

// replaced is told, with the fifo locked, that a list's keys have all
// been handled: the indexer is at its version, and the Rescopes it
// answers have synced.
func (s *sharedIndexInformer[T]) replaced(resourceVersion string) {
	s.indexer.Bookmark(resourceVersion)
	s.rescopes = slices.DeleteFunc(s.rescopes, func(r rescope) bool {
		if r.after <= s.fifo.replacedUpTo {
			close(r.synced)
			return true
		}
		return false
	})
}

func (s *sharedIndexInformer[T]) shardSelector() string {
	if sc := s.scope.Load(); sc != nil {
		return sc.ShardSelector
	}
	return ""
}

func (s *sharedIndexInformer[T]) HasSynced() bool { return s.fifo.HasSynced() }

func (s *sharedIndexInformer[T]) HasSyncedChecker() clientcache.DoneChecker {
	return doneChecker{name: s.reflectorOpts.Name, done: s.fifo.Synced()}
}

func (s *sharedIndexInformer[T]) LastSyncResourceVersion() string {
	s.lock.Lock()
	r := s.reflector
	s.lock.Unlock()
	if r == nil {
		return ""
	}
	return r.LastSyncResourceVersion()
}

func (s *sharedIndexInformer[T]) IsStopped() bool {
	s.lock.Lock()
	defer s.lock.Unlock()
	return s.stopped
}

func (s *sharedIndexInformer[T]) AddEventHandler(h clientcache.ResourceEventHandler) (clientcache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(h, clientcache.HandlerOptions{})
}

func (s *sharedIndexInformer[T]) AddEventHandlerWithResyncPeriod(h clientcache.ResourceEventHandler, resyncPeriod time.Duration) (clientcache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(h, clientcache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

func (s *sharedIndexInformer[T]) AddEventHandlerWithOptions(h clientcache.ResourceEventHandler, opts clientcache.HandlerOptions) (clientcache.ResourceEventHandlerRegistration, error) {
	return s.addHandler(untypedHandler[T]{h}, h, opts)
}

// AddTypedEventHandler is the typed path: no type assertions, and a
// delete's last known object comes typed.
func (s *sharedIndexInformer[T]) AddTypedEventHandler(h clientcache.TypedResourceEventHandler[T], opts ...clientcache.HandlerOptions) (clientcache.ResourceEventHandlerRegistration, error) {
	var o clientcache.HandlerOptions
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		return nil, fmt.Errorf("at most one HandlerOptions may be passed, got %d", len(opts))
	}
	return s.addHandler(typedHandler[T]{h}, h, o)
}

func (s *sharedIndexInformer[T]) addHandler(h handler[T], named any, o clientcache.HandlerOptions) (clientcache.ResourceEventHandlerRegistration, error) {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("%s: handler %v was not added to shared informer because it has stopped already", s.reflectorOpts.Name, named)
	}
	resync := s.defaultResync
	if o.ResyncPeriod != nil {
		resync = *o.ResyncPeriod
	}
	// As client-go: a period under a second is a second; one under the
	// check period lowers it before Run, and is raised to it after; and an
	// informer created without a resync period never resyncs.
	if resync > 0 {
		resync = max(resync, minimumResyncPeriod)
		if resync < s.resyncCheckPeriod {
			if s.started {
				resync = s.resyncCheckPeriod
			} else {
				s.resyncCheckPeriod = resync
			}
		}
		if s.resyncCheckPeriod == 0 {
			resync = 0
		}
	}
	name := fmt.Sprint(s.handlers)
	if n, ok := named.(interface{ Name() string }); ok && n.Name() != "" {
		name = n.Name()
	}
	s.handlers++
	logger := klog.Background()
	if o.Logger != nil {
		logger = *o.Logger
	}
	l := newProcessorListener(h, name, logger, resync, s.clock.Now(), s.fifo.Synced())
	if !s.started {
		s.processor.addListener(l)
		return l, nil
	}
	// Replay the cache with deltas held back, so the new handler misses
	// nothing and sees nothing twice.
	s.fifo.withLock(func() {
		for _, obj := range s.indexer.ListAll() {
			l.add(notification[T]{kind: addNotification, new: obj, flag: true})
		}
		s.processor.addListener(l)
	})
	return l, nil
}

// RemoveEventHandler stops delivering to the handler; removing it again is
// not an error.
func (s *sharedIndexInformer[T]) RemoveEventHandler(reg clientcache.ResourceEventHandlerRegistration) error {
	l, ok := reg.(*processorListener[T])
	if !ok {
		return fmt.Errorf("%s: invalid registration type %T", s.reflectorOpts.Name, reg)
	}
	s.processor.removeListener(l)
	return nil
}

// HandlerRegistrations returns the current registrations, for metrics.
func (s *sharedIndexInformer[T]) HandlerRegistrations() []Registration {
	return s.processor.registrations()
}

func (s *sharedIndexInformer[T]) Len() int            { return s.indexer.Len() }
func (s *sharedIndexInformer[T]) Description() string { return s.reflectorOpts.Name }

func (s *sharedIndexInformer[T]) GetIndexer() clientcache.Indexer              { return s.indexer }
func (s *sharedIndexInformer[T]) GetStore() clientcache.Store                  { return s.indexer }
func (s *sharedIndexInformer[T]) GetTypedIndexer() clientcache.TypedIndexer[T] { return s.indexer }
func (s *sharedIndexInformer[T]) FastIndexer() FastIndexer[T]                  { return s.indexer }

// GetController is deprecated in client-go; what it returns reports on
// this informer.
func (s *sharedIndexInformer[T]) GetController() clientcache.Controller {
	return informerController[T]{s}
}

type informerController[T Object] struct{ s *sharedIndexInformer[T] }

func (c informerController[T]) Run(stopCh <-chan struct{})     {}
func (c informerController[T]) RunWithContext(context.Context) {}
func (c informerController[T]) HasSynced() bool                { return c.s.HasSynced() }
func (c informerController[T]) HasSyncedChecker() clientcache.DoneChecker {
	return c.s.HasSyncedChecker()
}
func (c informerController[T]) LastSyncResourceVersion() string {
	return c.s.LastSyncResourceVersion()
}

// AddIndexers adds indexes, as client-go's, before Run or while it runs:
// the cached objects are indexed at once. Only a stopped informer refuses.
func (s *sharedIndexInformer[T]) AddIndexers(indexers clientcache.Indexers) error {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.stopped {
		return errors.New("indexer was not added because it has stopped already")
	}
	return s.indexer.AddIndexers(indexers)
}

func (s *sharedIndexInformer[T]) AddTypedIndexers(indexers clientcache.TypedIndexers[T]) error {
	return s.AddIndexers(clientcache.TypedIndexersToIndexers(indexers))
}

// SetTransform sets client-go's untyped transform; it must return an
// object of the type it was given.
func (s *sharedIndexInformer[T]) SetTransform(f clientcache.TransformFunc) error {
	var typedF TransformFunc[T]
	if f != nil {
		typedF = untypedTransform[T](f, s.reflectorOpts.Name)
	}
	return s.SetTypedTransform(typedF)
}

// SetTypedTransform sets a typed transform; only before Run.
func (s *sharedIndexInformer[T]) SetTypedTransform(f TransformFunc[T]) error {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.started {
		return errStarted
	}
	s.fifo.transform = s.withInterning(f)
	return nil
}

// withInterning returns f followed by interning the result's metadata, so
// that what is cached shares its repeated strings.
func (s *sharedIndexInformer[T]) withInterning(f TransformFunc[T]) TransformFunc[T] {
	in := s.interner
	switch {
	case in == nil:
		return f
	case f == nil:
		return func(obj T) T { in.Intern(obj); return obj }
	default:
		return func(obj T) T {
			obj = f(obj)
			in.Intern(obj)
			return obj
		}
	}
}

// internable reports whether T's metadata accessors give access to the
// object's own maps and slices, as those of metav1.ObjectMeta do, rather
// than copies, as unstructured.Unstructured's do: interning copies would
// cost without saving anything.
func internable[T Object]() bool {
	var zero T
	_, unstructured := any(zero).(*unstructured.Unstructured)
	return !unstructured
}

// untypedTransform adapts an untyped transform to T. An error, or a
// result of another type, is reported and the object is cached
// untransformed: a typed cache cannot hold anything else.
func untypedTransform[T Object](f clientcache.TransformFunc, name string) TransformFunc[T] {
	return func(obj T) T {
		out, err := f(obj)
		if err != nil {
			klog.Background().Error(err, "Transform failed; caching the object untransformed", "informer", name)
			return obj
		}
		typedOut, ok := out.(T)
		if !ok {
			klog.Background().Error(fmt.Errorf("transform returned %T, want %T", out, obj), "Caching the object untransformed", "informer", name)
			return obj
		}
		return typedOut
	}
}

func (s *sharedIndexInformer[T]) SetWatchErrorHandler(h clientcache.WatchErrorHandler) error {
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *clientcache.Reflector, err error) { h(r, err) })
}

// SetWatchErrorHandlerWithContext sets the handler; only before Run. The
// *Reflector it is given is client-go's, named after this informer, and is
// never run: only its name and type description mean anything.
func (s *sharedIndexInformer[T]) SetWatchErrorHandlerWithContext(h clientcache.WatchErrorHandlerWithContext) error {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.started {
		return errStarted
	}
	var example T
	stand := clientcache.NewReflectorWithOptions(nil, example, nil, clientcache.ReflectorOptions{Name: s.reflectorOpts.Name})
	s.reflectorOpts.WatchErrorHandler = func(ctx context.Context, err error) { h(ctx, stand, err) }
	return nil
}

func waitFor(ctx context.Context, synced []InformerSynced) bool {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		all := true
		for _, f := range synced {
			if !f() {
				all = false
				break
			}
		}
		if all {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}

package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// SharedIndexInformerOptions configure NewSharedIndexInformerWithOptions.
type SharedIndexInformerOptions[T Object] struct {
	// ResyncPeriod is the default resync period of handlers; zero means none.
	ResyncPeriod time.Duration
	Indexers     Indexers[T]
	// ObjectDescription names the informer in logs and errors; default is
	// the object's Go type.
	ObjectDescription string
	// Reflector tunes list and watch; the zero value takes the defaults.
	Reflector ReflectorOptions
}

// NewSharedIndexInformer returns an informer over lw, as client-go's
// function of the same name.
func NewSharedIndexInformer[T Object](lw ListerWatcher[T], defaultEventHandlerResyncPeriod time.Duration, indexers Indexers[T]) SharedIndexInformer[T] {
	return NewSharedIndexInformerWithOptions(lw, SharedIndexInformerOptions[T]{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewSharedIndexInformerWithOptions returns an informer over lw.
func NewSharedIndexInformerWithOptions[T Object](lw ListerWatcher[T], opts SharedIndexInformerOptions[T]) SharedIndexInformer[T] {
	if opts.ObjectDescription == "" {
		var zero T
		opts.ObjectDescription = reflect.TypeOf(zero).String()
	}
	if opts.Reflector.Name == "" {
		opts.Reflector.Name = opts.ObjectDescription
	}
	s := &sharedIndexInformer[T]{
		lw:                lw,
		indexer:           NewIndexer(opts.Indexers).(*threadSafeMap[T]),
		processor:         &sharedProcessor[T]{},
		defaultResync:     opts.ResyncPeriod,
		resyncCheckPeriod: opts.ResyncPeriod,
		reflectorOpts:     opts.Reflector,
		done:              make(chan struct{}),
	}
	s.fifo = NewDeltaFIFO[T](s.indexer, nil)
	return s
}

type sharedIndexInformer[T Object] struct {
	lw        ListerWatcher[T]
	indexer   *threadSafeMap[T]
	fifo      *DeltaFIFO[T]
	processor *sharedProcessor[T]

	// lock guards the configuration below, which is fixed once started.
	lock              sync.Mutex
	started           bool
	defaultResync     time.Duration
	resyncCheckPeriod time.Duration
	reflectorOpts     ReflectorOptions
	reflector         *Reflector[T]
	handlers          int

	done chan struct{}
}

var errStarted = errors.New("informer has already started")

func (s *sharedIndexInformer[T]) Run(ctx context.Context) {
	s.lock.Lock()
	if s.started {
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
	s.processor.stop()
	wg.Wait()
}

func (s *sharedIndexInformer[T]) resyncLoop(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if s.processor.shouldResync(now) {
				_ = s.fifo.Resync()
			}
		}
	}
}

// handleDeltas applies one key's deltas to the Indexer and tells the
// handlers. It runs with the DeltaFIFO locked.
func (s *sharedIndexInformer[T]) handleDeltas(key ObjectName, deltas Deltas[T], isInInitialList bool) {
	for _, d := range deltas {
		switch d.Type {
		case Deleted:
			s.indexer.remove(key)
			s.processor.distribute(notification[T]{kind: deleteNotification, new: d.Object, flag: d.FinalStateUnknown}, false)
		default:
			old, existed := s.indexer.swap(d.Object)
			if !existed {
				s.processor.distribute(notification[T]{kind: addNotification, new: d.Object, flag: isInInitialList}, false)
				continue
			}
			isSync := d.Type == Sync ||
				(d.Type == Replaced && old.GetResourceVersion() == d.Object.GetResourceVersion())
			s.processor.distribute(notification[T]{kind: updateNotification, old: old, new: d.Object}, isSync)
		}
	}
}

func (s *sharedIndexInformer[T]) HasSynced() bool { return s.fifo.HasSynced() }

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
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *sharedIndexInformer[T]) ExampleObject() runtime.Object {
	var zero T
	return reflect.New(reflect.TypeOf(zero).Elem()).Interface().(runtime.Object)
}

func (s *sharedIndexInformer[T]) ListObjects() []runtime.Object {
	items := s.indexer.List()
	out := make([]runtime.Object, len(items))
	for i, obj := range items {
		out[i] = obj
	}
	return out
}

func (s *sharedIndexInformer[T]) GetObject(key ObjectName) (runtime.Object, bool) {
	obj, ok, _ := s.indexer.GetByKey(key)
	if !ok {
		return nil, false
	}
	return obj, true
}

func (s *sharedIndexInformer[T]) AddEventHandler(handler ResourceEventHandler[T], opts ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	var o HandlerOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.IsStopped() {
		return nil, fmt.Errorf("%s: handler not added: the informer has stopped", s.reflectorOpts.Name)
	}
	resync := s.defaultResync
	if o.ResyncPeriod != nil {
		resync = *o.ResyncPeriod
	}
	if resync > 0 {
		switch {
		case s.started && resync < s.resyncCheckPeriod:
			resync = s.resyncCheckPeriod
		case !s.started && (s.resyncCheckPeriod == 0 || resync < s.resyncCheckPeriod):
			s.resyncCheckPeriod = resync
		}
	}
	if o.Name == "" {
		o.Name = fmt.Sprint(s.handlers)
	}
	s.handlers++
	l := newProcessorListener(handler, o.Name, resync, s.HasSynced)
	if !s.started {
		s.processor.addListener(l)
		return l, nil
	}
	// Replay the cache with deltas held back, so the new handler misses
	// nothing and sees nothing twice.
	s.fifo.withLock(func() {
		for _, obj := range s.indexer.List() {
			l.add(notification[T]{kind: addNotification, new: obj, flag: true})
		}
		s.processor.addListener(l)
	})
	return l, nil
}

func (s *sharedIndexInformer[T]) RemoveEventHandler(reg ResourceEventHandlerRegistration) error {
	l, ok := reg.(*processorListener[T])
	if !ok || !s.processor.removeListener(l) {
		return fmt.Errorf("%s: handler registration not found", s.reflectorOpts.Name)
	}
	return nil
}

// HandlerRegistrations returns the current registrations, for metrics.
func (s *sharedIndexInformer[T]) HandlerRegistrations() []ResourceEventHandlerRegistration {
	return s.processor.registrations()
}

func (s *sharedIndexInformer[T]) Len() int            { return s.indexer.Len() }
func (s *sharedIndexInformer[T]) Description() string { return s.reflectorOpts.Name }

func (s *sharedIndexInformer[T]) GetIndexer() Indexer[T] { return s.indexer }
func (s *sharedIndexInformer[T]) GetStore() Store[T]     { return s.indexer }

func (s *sharedIndexInformer[T]) AddIndexers(indexers Indexers[T]) error {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.started {
		return errStarted
	}
	return s.indexer.AddIndexers(indexers)
}

func (s *sharedIndexInformer[T]) SetTransform(f TransformFunc[T]) error {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.started {
		return errStarted
	}
	s.fifo.transform = f
	return nil
}

func (s *sharedIndexInformer[T]) SetWatchErrorHandler(h WatchErrorHandler) error {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.started {
		return errStarted
	}
	s.reflectorOpts.WatchErrorHandler = h
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

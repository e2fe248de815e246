package cache

import (
	"sync"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

type notificationKind uint8

const (
	addNotification notificationKind = iota + 1
	updateNotification
	deleteNotification
)

// notification is stored by value in a listener's buffer, so distributing
// an event allocates nothing per handler.
type notification[T any] struct {
	kind     notificationKind
	old, new T
	// flag is isInInitialList for adds and finalStateUnknown for deletes.
	flag bool
}

// sharedProcessor fans notifications out to the listeners.
type sharedProcessor[T any] struct {
	lock      sync.RWMutex
	listeners []*processorListener[T]
	// syncing are the listeners due for a resync, chosen by shouldResync.
	syncing []*processorListener[T]
	started bool
	stopped bool
	wg      sync.WaitGroup
}

func (p *sharedProcessor[T]) distribute(n notification[T], isSync bool) {
	p.lock.RLock()
	targets := p.listeners
	if isSync {
		targets = p.syncing
	}
	for _, l := range targets {
		l.add(n)
	}
	p.lock.RUnlock()
}

// addListener adds l, unless the processor has stopped.
func (p *sharedProcessor[T]) addListener(l *processorListener[T]) bool {
	p.lock.Lock()
	defer p.lock.Unlock()
	if p.stopped {
		return false
	}
	p.listeners = append(p.listeners, l)
	p.syncing = append(p.syncing, l)
	if p.started {
		p.startLocked(l)
	}
	return true
}

func (p *sharedProcessor[T]) startLocked(l *processorListener[T]) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		l.run()
	}()
}

func (p *sharedProcessor[T]) removeListener(l *processorListener[T]) bool {
	p.lock.Lock()
	defer p.lock.Unlock()
	found := false
	p.listeners, found = without(p.listeners, l)
	p.syncing, _ = without(p.syncing, l)
	if found {
		l.stop()
		if !p.started {
			close(l.finished) // it never ran, and now never will
		}
	}
	return found
}

// without returns s without l; it copies, because distribute may still be
// iterating the old slice under a read lock taken earlier.
func without[T any](s []*processorListener[T], l *processorListener[T]) ([]*processorListener[T], bool) {
	out := make([]*processorListener[T], 0, len(s))
	found := false
	for _, x := range s {
		if x == l {
			found = true
			continue
		}
		out = append(out, x)
	}
	return out, found
}

func (p *sharedProcessor[T]) run() {
	p.lock.Lock()
	p.started = true
	for _, l := range p.listeners {
		p.startLocked(l)
	}
	p.lock.Unlock()
}

func (p *sharedProcessor[T]) stop() {
	p.lock.Lock()
	p.stopped = true
	for _, l := range p.listeners {
		l.stop()
	}
	p.lock.Unlock()
	p.wg.Wait()
}

// shouldResync picks the listeners whose resync is due and reports whether
// there are any.
func (p *sharedProcessor[T]) shouldResync(now time.Time) bool {
	p.lock.Lock()
	defer p.lock.Unlock()
	p.syncing = nil
	for _, l := range p.listeners {
		if l.resyncDue(now) {
			p.syncing = append(p.syncing, l)
		}
	}
	return len(p.syncing) > 0
}

func (p *sharedProcessor[T]) registrations() []Registration {
	p.lock.RLock()
	defer p.lock.RUnlock()
	out := make([]Registration, len(p.listeners))
	for i, l := range p.listeners {
		out[i] = l
	}
	return out
}

// handler is what a listener delivers to: a typed handler, or client-go's
// untyped one adapted.
type handler[T any] interface {
	onAdd(obj T, isInInitialList bool)
	onUpdate(oldObj, newObj T)
	// onDelete gets the last known state; finalStateUnknown means it may be
	// older than the object's state when it was deleted.
	onDelete(obj T, finalStateUnknown bool)
}

// typedHandler delivers to client-go's TypedResourceEventHandler.
type typedHandler[T Object] struct {
	h clientcache.TypedResourceEventHandler[T]
}

func (t typedHandler[T]) onAdd(obj T, initial bool) { t.h.OnAdd(obj, initial) }
func (t typedHandler[T]) onUpdate(oldObj, newObj T) { t.h.OnUpdate(oldObj, newObj) }
func (t typedHandler[T]) onDelete(obj T, unknown bool) {
	d := clientcache.DeletedObject[T]{OptionalObj: obj}
	if unknown {
		d.FinalStateUnknown = &clientcache.DeletedFinalStateUnknown{Key: MetaObjectName(obj).String(), Obj: obj}
	}
	t.h.OnDelete(d)
}

// untypedHandler delivers to client-go's ResourceEventHandler what
// client-go's informer would: a DeletedFinalStateUnknown for a delete
// whose final state is unknown.
type untypedHandler[T Object] struct {
	h clientcache.ResourceEventHandler
}

func (u untypedHandler[T]) onAdd(obj T, initial bool) { u.h.OnAdd(obj, initial) }
func (u untypedHandler[T]) onUpdate(oldObj, newObj T) { u.h.OnUpdate(oldObj, newObj) }
func (u untypedHandler[T]) onDelete(obj T, unknown bool) {
	if unknown {
		u.h.OnDelete(clientcache.DeletedFinalStateUnknown{Key: MetaObjectName(obj).String(), Obj: obj})
		return
	}
	u.h.OnDelete(obj)
}

// maxSpare is the largest buffer a listener keeps for reuse.
const maxSpare = 1024

// processorListener delivers notifications to one handler from its own
// goroutine. Its buffer is unbounded, so a slow handler never blocks the
// informer or the other handlers. The goroutine takes the whole buffer at
// once and hands it back empty, so the producer appends under a short lock
// and the two sides never touch the same notification.
type processorListener[T any] struct {
	handler handler[T]
	name    string
	// logger logs the handler's panics: HandlerOptions.Logger, by default
	// klog's.
	logger klog.Logger
	// upstream is closed once the informer has synced; synced once that
	// has happened and every initial add has been delivered.
	upstream <-chan struct{}
	synced   chan struct{}

	lock sync.Mutex
	buf  []notification[T]
	// spare is the previous batch's storage, reused for the next buffer.
	spare []notification[T]
	// inBatch is the size of the batch being delivered; initialPending
	// counts initial-list adds not yet delivered.
	inBatch        int
	initialPending int
	waiting        bool
	stopped        bool
	wake           chan struct{}
	// quit is closed by the first stop.
	quit chan struct{}
	// finished is closed once the handler will not be called again: when
	// the goroutine ends, or at removal if it never started.
	finished chan struct{}

	resyncPeriod time.Duration
	nextResync   time.Time
}

func newProcessorListener[T any](h handler[T], name string, logger klog.Logger, resync time.Duration, now time.Time, upstream <-chan struct{}) *processorListener[T] {
	return &processorListener[T]{
		handler:      h,
		name:         name,
		logger:       logger,
		quit:         make(chan struct{}),
		upstream:     upstream,
		synced:       make(chan struct{}),
		wake:         make(chan struct{}, 1),
		finished:     make(chan struct{}),
		resyncPeriod: resync,
		nextResync:   now.Add(resync),
	}
}

func (l *processorListener[T]) add(n notification[T]) {
	l.lock.Lock()
	if l.stopped {
		l.lock.Unlock()
		return
	}
	l.buf = append(l.buf, n)
	if n.kind == addNotification && n.flag {
		l.initialPending++
	}
	signal := l.waiting
	l.waiting = false
	l.lock.Unlock()
	if signal {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

func (l *processorListener[T]) run() {
	defer close(l.finished)
	var batch []notification[T]
	upstream := l.upstream
	for {
		l.lock.Lock()
		for i := range batch {
			if batch[i].kind == addNotification && batch[i].flag {
				l.initialPending--
			}
			batch[i] = notification[T]{}
		}
		if cap(batch) > maxSpare {
			batch = nil // a burst's storage is not kept once it is delivered
		}
		l.spare, l.inBatch = batch[:0], 0
		for {
			if upstream != nil && isClosed(upstream) {
				upstream = nil
			}
			if upstream == nil && l.initialPending == 0 && !isClosed(l.synced) {
				close(l.synced)
			}
			if len(l.buf) > 0 || l.stopped {
				break
			}
			l.waiting = true
			l.lock.Unlock()
			select {
			case <-l.wake:
			case <-upstream: // nil once seen closed: never ready
			}
			l.lock.Lock()
		}
		if l.stopped {
			l.buf = nil
			l.lock.Unlock()
			return
		}
		batch, l.buf = l.buf, l.spare
		l.spare, l.inBatch = nil, len(batch)
		l.lock.Unlock()

		for next := 0; next < len(batch); {
			if next = l.deliver(batch, next); next < len(batch) {
				// The callback at next panicked, and the process was set
				// not to crash: as client-go, skip that notification and
				// pause before the next.
				next++
				l.pauseAfterPanic()
			}
		}
	}
}

// deliver calls the handler for batch[from:] and returns len(batch), or
// the index of a callback that panicked when utilruntime.ReallyCrash is
// false; when it is true, the panic crashes the process, as in client-go.
func (l *processorListener[T]) deliver(batch []notification[T], from int) (i int) {
	defer utilruntime.HandleCrashWithLogger(l.logger)
	for i = from; i < len(batch); i++ {
		n := &batch[i]
		switch n.kind {
		case addNotification:
			l.handler.onAdd(n.new, n.flag)
		case updateNotification:
			l.handler.onUpdate(n.old, n.new)
		case deleteNotification:
			l.handler.onDelete(n.new, n.flag)
		}
	}
	return i
}

// pauseAfterPanic waits a second, as client-go does after a handler's
// panic, or until the listener stops.
func (l *processorListener[T]) pauseAfterPanic() {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.quit:
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (l *processorListener[T]) stop() {
	l.lock.Lock()
	if !l.stopped {
		close(l.quit)
	}
	l.stopped = true
	l.lock.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// resyncDue is called with the processor locked.
func (l *processorListener[T]) resyncDue(now time.Time) bool {
	if l.resyncPeriod == 0 || now.Before(l.nextResync) {
		return false
	}
	l.nextResync = now.Add(l.resyncPeriod)
	return true
}

// HasSynced is true once the informer has synced and every initial add has
// been delivered to this handler.
func (l *processorListener[T]) HasSynced() bool { return isClosed(l.synced) }

// HasSyncedChecker is HasSynced as a channel.
func (l *processorListener[T]) HasSyncedChecker() clientcache.DoneChecker {
	return doneChecker{name: l.name, done: l.synced}
}

// Backlog is the number of notifications not yet delivered, counted per
// batch: those waiting plus the whole batch being delivered.
func (l *processorListener[T]) Backlog() int {
	l.lock.Lock()
	defer l.lock.Unlock()
	return len(l.buf) + l.inBatch
}

// ShutdownChan is closed once the handler is no longer called, so that
// client-go's ShutDownEventHandler can wait for it after removing it.
func (l *processorListener[T]) ShutdownChan() <-chan struct{} { return l.finished }

// Name is the handler's name.
func (l *processorListener[T]) Name() string { return l.name }

// doneChecker is client-go's DoneChecker over a channel.
type doneChecker struct {
	name string
	done <-chan struct{}
}

func (d doneChecker) Name() string          { return d.name }
func (d doneChecker) Done() <-chan struct{} { return d.done }

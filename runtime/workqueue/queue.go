package workqueue

import (
	"runtime"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Queue is a work queue of distinct items. See the package documentation for
// the guarantees it makes.
type Queue[T comparable] interface {
	// Add marks item as needing processing. It is ignored once the queue is
	// shutting down. While hundreds of items are queued, Add now and then
	// yields the processor (runtime.Gosched) to let workers catch up.
	Add(item T)
	// Len returns the number of items waiting to be handed out by Get. It is
	// informational only.
	Len() int
	// Get blocks until an item can be processed and returns it, or returns
	// shutdown=true once the queue is shutting down and has nothing left to
	// hand out. Every item returned must be passed to Done.
	Get() (item T, shutdown bool)
	// Done marks item as processed. If it was added again while it was being
	// processed, it is queued again.
	Done(item T)
	// ShutDown makes the queue ignore new items; Get keeps handing out what
	// is queued and then reports shutdown. It does not wait for workers.
	ShutDown()
	// ShutDownWithDrain is ShutDown, then waits until no item is queued or
	// being processed. Calling ShutDown meanwhile stops the wait.
	ShutDownWithDrain()
	// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
	ShuttingDown() bool
}

// Config configures a queue. The zero value is valid.
type Config struct {
	// Name identifies the queue in metrics. Unnamed queues report no
	// metrics.
	Name string
	// MetricsProvider receives the queue's metrics. If nil, the provider set
	// with SetDefaultMetricsProvider is used; if there is none either, the
	// queue does no metric work at all.
	MetricsProvider MetricsProvider
	// Clock is the time source. If nil, the real clock is used.
	Clock clock.WithTicker
}

func (c Config) clock() clock.WithTicker {
	if c.Clock == nil {
		return clock.RealClock{}
	}
	return c.Clock
}

// NewQueue returns a new FIFO work queue.
func NewQueue[T comparable](cfg Config) Queue[T] {
	return newQueue[T](cfg)
}

// Per-item state bits stored in queue.items. An item is in the map exactly
// when at least one bit is set.
const (
	// stateDirty: the item needs processing. It is in the FIFO unless it is
	// also being processed, in which case Done puts it there.
	stateDirty uint8 = 1 << iota
	// stateProcessing: a worker holds the item (between Get and Done).
	stateProcessing
)

// While at least yieldBacklog items are queued, every yieldInterval-th Add
// yields the processor after queuing. A producer that outpaces the workers
// would otherwise keep the processor for its whole scheduler time slice and
// queue tens of thousands of items before a worker runs, pushing the queue's
// map and FIFO out of the CPU caches and making every operation slower.
// Yielding lets the (runnable) workers catch up while the backlog is still
// small, at the cost of a runtime.Gosched every yieldInterval Adds, and only
// while the backlog is large.
const (
	yieldBacklog  = 512
	yieldInterval = 64
)

// unfinishedWorkUpdatePeriod is how often the unfinished-work and
// longest-running-processor gauges are refreshed.
const unfinishedWorkUpdatePeriod = 500 * time.Millisecond

type queue[T comparable] struct {
	mu sync.Mutex
	// items holds the state bits of every dirty or processing item.
	// itemsPeak is the largest len(items) since the map was made: Go maps
	// never shrink, so once a large map is empty it is replaced.
	items     map[T]uint8
	itemsPeak int
	// fifo holds the dirty items that are not being processed, in order.
	fifo ring[T]

	// notEmpty wakes goroutines blocked in Get. sleeping counts those that
	// have not been signalled yet, so Add only signals when that wakes
	// someone up.
	notEmpty sync.Cond
	sleeping int

	// drained wakes ShutDownWithDrain once items is empty.
	drained  sync.Cond
	draining bool

	shuttingDown bool

	addsSinceYield int // see yieldInterval

	// metrics is nil when the queue reports no metrics; the hot path then
	// does no metric work.
	metrics *queueMetrics[T]

	// The unfinished-work updater, running only when metrics is not nil.
	clock       clock.WithTicker
	stopMetrics chan struct{}
	stopOnce    sync.Once
	metricsLoop sync.WaitGroup
}

// keptMapSize is the peak size up to which an emptied items map is kept
// rather than replaced by a new, small one.
const keptMapSize = 4096

func newQueue[T comparable](cfg Config) *queue[T] {
	q := &queue[T]{
		items: make(map[T]uint8),
		clock: cfg.clock(),
	}
	q.notEmpty.L = &q.mu
	q.drained.L = &q.mu
	if p := cfg.provider(); p != nil {
		q.metrics = newQueueMetrics[T](p, cfg.Name, q.clock)
		q.stopMetrics = make(chan struct{})
		// The ticker is created here rather than in the goroutine so that
		// its period starts when the queue is created.
		ticker := q.clock.NewTicker(unfinishedWorkUpdatePeriod)
		q.metricsLoop.Go(func() { q.updateUnfinishedWorkLoop(ticker) })
	}
	return q
}

func (q *queue[T]) Add(item T) {
	q.mu.Lock()
	q.addLocked(item)
	yield := false
	if q.fifo.len() >= yieldBacklog {
		q.addsSinceYield++
		if yield = q.addsSinceYield >= yieldInterval; yield {
			q.addsSinceYield = 0
		}
	}
	q.mu.Unlock()
	if yield {
		runtime.Gosched()
	}
}

// addBatch adds several items under one lock acquisition.
func (q *queue[T]) addBatch(items []T) {
	q.mu.Lock()
	for _, item := range items {
		q.addLocked(item)
	}
	q.mu.Unlock()
}

func (q *queue[T]) addLocked(item T) {
	if q.shuttingDown {
		return
	}
	if q.metrics != nil {
		q.addCountedLocked(item)
		return
	}
	// A single map operation marks the item dirty whatever its state, and
	// the map's length tells whether it was there. If it was, it is either
	// dirty already (queued, or to be queued by Done) or being processed,
	// in which case Done now queues it: nothing else to do.
	n := len(q.items)
	q.items[item] |= stateDirty
	if len(q.items) > n {
		q.itemsPeak = max(q.itemsPeak, n+1)
		q.pushLocked(item)
	}
}

// addCountedLocked is addLocked for a queue with metrics, which need to know
// whether the item was dirty already.
func (q *queue[T]) addCountedLocked(item T) {
	st := q.items[item]
	if st&stateDirty != 0 {
		return // already queued, or already due to be queued on Done
	}
	q.items[item] = st | stateDirty
	q.itemsPeak = max(q.itemsPeak, len(q.items))
	q.metrics.add(item)
	if st&stateProcessing == 0 {
		q.pushLocked(item)
	}
}

// pushLocked appends item to the FIFO and wakes one sleeping Get, if any.
func (q *queue[T]) pushLocked(item T) {
	q.fifo.push(item)
	if q.sleeping > 0 {
		q.sleeping--
		q.notEmpty.Signal()
	}
}

func (q *queue[T]) Len() int {
	q.mu.Lock()
	n := q.fifo.len()
	q.mu.Unlock()
	return n
}

func (q *queue[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	for q.fifo.len() == 0 {
		if q.shuttingDown {
			q.mu.Unlock()
			return item, true
		}
		q.sleeping++
		q.notEmpty.Wait()
	}
	item = q.fifo.pop()
	// Items in the FIFO are dirty and not processing; Get clears dirty so
	// that a new Add marks the item for another round.
	q.items[item] = stateProcessing
	if q.metrics != nil {
		q.metrics.get(item)
	}
	q.mu.Unlock()
	return item, false
}

func (q *queue[T]) Done(item T) {
	q.mu.Lock()
	st := q.items[item]
	if st&stateProcessing == 0 {
		q.mu.Unlock()
		return // not handed out by Get: nothing to finish
	}
	if q.metrics != nil {
		q.metrics.done(item)
	}
	if st&stateDirty != 0 {
		q.items[item] = stateDirty
		q.pushLocked(item)
	} else {
		delete(q.items, item)
		if len(q.items) == 0 {
			if q.itemsPeak > keptMapSize {
				q.items, q.itemsPeak = make(map[T]uint8), 0
			}
			if q.draining {
				q.drained.Broadcast()
			}
		}
	}
	q.mu.Unlock()
}

func (q *queue[T]) ShutDown() {
	q.mu.Lock()
	q.shutDownLocked()
	// Stop a ShutDownWithDrain that is still waiting.
	if q.draining {
		q.draining = false
		q.drained.Broadcast()
	}
	q.mu.Unlock()
	q.stopMetricsLoop()
}

func (q *queue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	q.shutDownLocked()
	q.draining = true
	for q.draining && len(q.items) > 0 {
		q.drained.Wait()
	}
	q.mu.Unlock()
	q.stopMetricsLoop()
}

// shutDownLocked stops accepting items and releases every sleeping Get.
func (q *queue[T]) shutDownLocked() {
	q.shuttingDown = true
	q.sleeping = 0
	q.notEmpty.Broadcast()
}

func (q *queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// stopMetricsLoop stops the unfinished-work updater, if one runs, and waits
// for it to exit.
func (q *queue[T]) stopMetricsLoop() {
	if q.stopMetrics == nil {
		return
	}
	q.stopOnce.Do(func() { close(q.stopMetrics) })
	q.metricsLoop.Wait()
}

func (q *queue[T]) updateUnfinishedWorkLoop(t clock.Ticker) {
	defer t.Stop()
	for {
		select {
		case <-q.stopMetrics:
			return
		case <-t.C():
			q.mu.Lock()
			q.metrics.updateUnfinishedWork()
			q.mu.Unlock()
		}
	}
}

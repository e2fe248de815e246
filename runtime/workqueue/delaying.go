package workqueue

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Delaying is a Queue that can also add items after a delay.
type Delaying[T comparable] interface {
	Queue[T]
	// AddAfter adds item once d has passed; d <= 0 adds it at once. If item
	// is already waiting, it keeps the earlier of the two ready times.
	// Waiting items are dropped when the queue shuts down.
	AddAfter(item T, d time.Duration)
}

// NewDelayingQueue returns a new work queue with AddAfter. It starts one
// timer goroutine, on the first AddAfter with a positive delay, which
// ShutDown and ShutDownWithDrain stop.
func NewDelayingQueue[T comparable](cfg Config) Delaying[T] {
	return newDelayingQueue[T](cfg)
}

// waiting is an item waiting in the delay heap.
type waiting[T any] struct {
	item    T
	readyAt time.Time
	index   int // position in delayingQueue.heap
}

type delayingQueue[T comparable] struct {
	*queue[T]

	retries CounterMetric // nil when the queue reports no metrics

	dmu    sync.Mutex    // guards the fields below; taken before queue.mu, never after
	heap   []*waiting[T] // min-heap on readyAt
	byItem map[T]*waiting[T]
	ready  []T // scratch space for addReady
	// timer fires when heap[0] is ready. Each re-arm replaces it with a new
	// timer rather than calling Reset: a fake clock's timer blocks the clock
	// if it fires again before its channel was read.
	timer   clock.Timer
	started bool // timerLoop is running
	stopped bool

	wake   chan struct{} // tells timerLoop the timer was replaced
	stopCh chan struct{}
	loop   sync.WaitGroup
}

func newDelayingQueue[T comparable](cfg Config) *delayingQueue[T] {
	q := &delayingQueue[T]{
		queue:  newQueue[T](cfg),
		byItem: make(map[T]*waiting[T]),
		wake:   make(chan struct{}, 1),
		stopCh: make(chan struct{}),
	}
	if p := cfg.provider(); p != nil {
		q.retries = p.NewRetriesMetric(cfg.Name)
	}
	return q
}

func (q *delayingQueue[T]) AddAfter(item T, d time.Duration) {
	if d <= 0 {
		q.dmu.Lock()
		if q.stopped {
			q.dmu.Unlock()
			return
		}
		// Ready now is earlier than any ready time the item may be waiting
		// for, so the waiting entry is superseded.
		if e, ok := q.byItem[item]; ok {
			wasHead := e.index == 0
			q.remove(e)
			if wasHead {
				q.rearm(q.clock.Now())
			}
		}
		q.dmu.Unlock()
		q.Add(item)
		return
	}

	now := q.clock.Now()
	readyAt := now.Add(d)
	q.dmu.Lock()
	defer q.dmu.Unlock()
	if q.stopped {
		return
	}
	if q.retries != nil {
		q.retries.Inc()
	}
	e, ok := q.byItem[item]
	switch {
	case !ok:
		e = &waiting[T]{item: item, readyAt: readyAt, index: len(q.heap)}
		q.heap = append(q.heap, e)
		q.byItem[item] = e
		q.up(e.index)
	case readyAt.Before(e.readyAt):
		e.readyAt = readyAt
		q.up(e.index)
	default:
		return // already waiting for an earlier time
	}
	if e.index == 0 {
		q.rearm(now)
	}
}

// rearm points the timer at the head of the heap, or stops it if the heap is
// empty, and starts the timer goroutine the first time a timer is needed.
// q.dmu must be held.
func (q *delayingQueue[T]) rearm(now time.Time) {
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
	if len(q.heap) == 0 {
		return
	}
	q.timer = q.clock.NewTimer(q.heap[0].readyAt.Sub(now))
	if !q.started {
		q.started = true
		q.loop.Go(q.timerLoop)
		return
	}
	select {
	case q.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// timerLoop is the single goroutine that moves ready items into the queue.
func (q *delayingQueue[T]) timerLoop() {
	for {
		var fired <-chan time.Time // nil (never fires) while nothing waits
		q.dmu.Lock()
		if q.timer != nil {
			fired = q.timer.C()
		}
		q.dmu.Unlock()
		select {
		case <-q.stopCh:
			return
		case <-q.wake:
		case <-fired:
			q.addReady()
		}
	}
}

// addReady moves every item whose ready time has come into the queue, in
// ready-time order, and re-arms the timer for the next one. q.dmu is held
// throughout, so when addReady returns every due item is in the queue, even
// if the timer goroutine was releasing items at the same time. A spurious
// call is harmless.
func (q *delayingQueue[T]) addReady() {
	q.dmu.Lock()
	defer q.dmu.Unlock()
	now := q.clock.Now()
	ready := q.ready[:0]
	for len(q.heap) > 0 && !q.heap[0].readyAt.After(now) {
		e := q.heap[0]
		q.remove(e)
		ready = append(ready, e.item)
	}
	q.rearm(now)
	if len(ready) > 0 {
		q.addBatch(ready)
		clear(ready)
		if cap(ready) <= 1024 { // do not pin the memory of a huge batch
			q.ready = ready[:0]
		}
	}
}

func (q *delayingQueue[T]) ShutDown() {
	q.stopTimer()
	q.queue.ShutDown()
}

func (q *delayingQueue[T]) ShutDownWithDrain() {
	q.stopTimer()
	q.queue.ShutDownWithDrain()
}

// stopTimer drops the waiting items and stops the timer goroutine, waiting
// for it to exit.
func (q *delayingQueue[T]) stopTimer() {
	q.dmu.Lock()
	if !q.stopped {
		q.stopped = true
		q.heap = nil
		clear(q.byItem)
		q.rearm(time.Time{}) // stops the timer: the heap is empty
		close(q.stopCh)
	}
	q.dmu.Unlock()
	q.loop.Wait()
}

// remove takes e out of the heap and the index. q.dmu must be held.
func (q *delayingQueue[T]) remove(e *waiting[T]) {
	i, last := e.index, len(q.heap)-1
	if i != last {
		q.swap(i, last)
	}
	q.heap[last] = nil
	q.heap = q.heap[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
	delete(q.byItem, e.item)
	if last == 0 && cap(q.heap) > keptMapSize {
		// Empty after a burst: release the memory the burst grew, as
		// the heap slice and the map would otherwise keep it.
		q.heap, q.byItem = nil, make(map[T]*waiting[T])
	}
}

func (q *delayingQueue[T]) less(i, j int) bool {
	return q.heap[i].readyAt.Before(q.heap[j].readyAt)
}

func (q *delayingQueue[T]) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.heap[i].index = i
	q.heap[j].index = j
}

func (q *delayingQueue[T]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			return
		}
		q.swap(i, parent)
		i = parent
	}
}

func (q *delayingQueue[T]) down(i int) {
	n := len(q.heap)
	for {
		least := i
		if l := 2*i + 1; l < n && q.less(l, least) {
			least = l
		}
		if r := 2*i + 2; r < n && q.less(r, least) {
			least = r
		}
		if least == i {
			return
		}
		q.swap(i, least)
		i = least
	}
}

package runtimebench

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlgen/ctrlgen/bench/internal/widget"
)

// Timer is the part of *testing.B a workload drives. A workload is called
// with the timer stopped, starts it around the part it measures and stops it
// again before it returns. Tests pass NoTimer.
type Timer interface {
	StartTimer()
	StopTimer()
}

// NoTimer is a Timer that does nothing.
type NoTimer struct{}

func (NoTimer) StartTimer() {}
func (NoTimer) StopTimer()  {}

// EventBuffer is the capacity of the fake watch's result channel in
// WatchUpdates. With 1024, events queue ahead, as a burst arriving from the
// apiserver, so what is measured is the informer rather than the hand-off
// of each event from the producer's goroutine; 0 makes every event such a
// hand-off, as client-go's StreamWatcher does with its unbuffered channel.
// The benchmarks take it from BENCH_EVENT_BUFFER.
var EventBuffer = 1024

// waitTimeout bounds every wait, so a broken implementation fails the run
// instead of hanging it.
const waitTimeout = 5 * time.Minute

var errTimeout = errors.New("timed out")

// CollectGarbage runs two full collections, so that the garbage of whatever
// ran before (earlier iterations, the other implementation, fixture
// building) is not collected inside the next timed region.
func CollectGarbage() {
	goruntime.GC()
	goruntime.GC()
}

func heapAlloc() uint64 {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func waitClosed(ch <-chan struct{}, what string) error {
	t := time.NewTimer(waitTimeout)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-t.C:
		return fmt.Errorf("%s: %w", what, errTimeout)
	}
}

// waitSynced waits until every wanted add has been delivered, then until the
// informer and the handler registration say they have synced: the handler
// signals from inside its last call, a moment before the registration
// counts it.
func waitSynced(inf Informer, c *Counter) error {
	if err := waitClosed(c.AddsDone(), "initial adds"); err != nil {
		return err
	}
	deadline := time.Now().Add(waitTimeout)
	for !inf.Synced() {
		if time.Now().After(deadline) {
			return fmt.Errorf("HasSynced: %w", errTimeout)
		}
		goruntime.Gosched()
	}
	return nil
}

// InformerResult is what an informer workload observed.
type InformerResult struct {
	Counts
	// Cached is the number of objects in the informer's store at the end.
	Cached int
	// Lists and Watches count the calls to the fake ListerWatcher.
	Lists, Watches int64
}

func result(inf Informer, c *Counter, src *WatchSource) InformerResult {
	r := InformerResult{Counts: c.Counts(), Cached: inf.Len()}
	r.Lists, r.Watches = src.Calls()
	return r
}

// InitialList builds a fresh informer whose List returns list and whose
// watch stays idle, and times it from Run until it has synced and the
// handler has received every add. It returns once the informer has stopped.
func InitialList(t Timer, impl InformerImpl, list *widget.WidgetList) (InformerResult, error) {
	c := NewCounter(len(list.Items), 0)
	src := &WatchSource{}
	inf := impl.New(list, src, c)
	CollectGarbage()

	t.StartTimer()
	inf.Start()
	err := waitSynced(inf, c)
	t.StopTimer()

	inf.Stop()
	return result(inf, c, src), err
}

// ModifiedEvents returns a Modified event for each object.
func ModifiedEvents(objs []*widget.Widget) []watch.Event {
	out := make([]watch.Event, len(objs))
	for i, obj := range objs {
		out[i] = watch.Event{Type: watch.Modified, Object: obj}
	}
	return out
}

// WatchUpdates builds a fresh informer over base and waits, untimed, until
// it has synced and delivered the initial adds. Then it times pushing
// events through the watch until the handler has received an update for
// every one of them. inspect, if not nil, is called with the informer after
// that, before it stops.
func WatchUpdates(t Timer, impl InformerImpl, base *widget.WidgetList, events []watch.Event, inspect func(Informer)) (InformerResult, error) {
	return watchUpdates(t, impl, base, events, inspect, false)
}

// WatchUpdatesPaced is WatchUpdates with one event in flight at a time:
// each is pushed once the previous one's update has been delivered, as a
// watch on a real apiserver mostly sees them, so that every event finds
// the informer idle.
func WatchUpdatesPaced(t Timer, impl InformerImpl, base *widget.WidgetList, events []watch.Event) (InformerResult, error) {
	return watchUpdates(t, impl, base, events, nil, true)
}

func watchUpdates(t Timer, impl InformerImpl, base *widget.WidgetList, events []watch.Event, inspect func(Informer), paced bool) (InformerResult, error) {
	c := NewCounter(len(base.Items), len(events))
	if paced {
		c.each = make(chan struct{}, 1)
	}
	src := &WatchSource{Events: NewFakeWatch(EventBuffer)}
	inf := impl.New(base, src, c)
	inf.Start()
	defer inf.Stop()
	if err := waitSynced(inf, c); err != nil {
		return result(inf, c, src), err
	}
	CollectGarbage()

	var deadline <-chan time.Time // the paced events' wait, all of them together
	if paced {
		timer := time.NewTimer(waitTimeout)
		defer timer.Stop()
		deadline = timer.C
	}
	t.StartTimer()
	var err error
	for _, ev := range events {
		if !src.Events.Send(ev) {
			err = errors.New("the informer stopped its watch")
			break
		}
		if paced {
			select {
			case <-c.each:
			case <-deadline:
				err = fmt.Errorf("paced updates: %w", errTimeout)
			}
			if err != nil {
				break
			}
		}
	}
	if err == nil {
		err = waitClosed(c.UpdatesDone(), "updates")
	}
	t.StopTimer()

	if inspect != nil {
		inspect(inf)
	}
	inf.Stop()
	return result(inf, c, src), err
}

// Workers is the number of goroutines that Get and Done in WorkQueue.
const Workers = 4

// WorkQueue builds a queue and starts Workers workers, each looping Get,
// then Done; then it times one producer adding every key until the workers
// have finished them all. seen, if not nil, is told of each item a worker
// gets, from that worker's goroutine. It returns the number of items
// processed, once the workers have exited.
func WorkQueue(t Timer, impl QueueImpl, keys []string, seen func(worker int, key string)) (int64, error) {
	q := impl.New()
	var processed atomic.Int64
	want := int64(len(keys))
	finished := make(chan struct{})
	if want == 0 {
		close(finished)
	}
	var wg sync.WaitGroup
	for w := range Workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if seen != nil {
					seen(w, key)
				}
				q.Done(key)
				if processed.Add(1) == want {
					close(finished)
				}
			}
		})
	}
	CollectGarbage()

	t.StartTimer()
	for _, key := range keys {
		q.Add(key)
	}
	err := waitClosed(finished, "work queue")
	t.StopTimer()

	q.ShutDown()
	wg.Wait()
	return processed.Load(), err
}

// MemoryResult is what Memory measured: live heap after full collections.
type MemoryResult struct {
	// Objects is the number of objects the informer cached.
	Objects int
	// Before is the heap with the input list alive; After adds a synced
	// informer holding the objects; Held is the heap once the informer has
	// stopped and is gone, with the objects it cached still alive.
	Before, After, Held uint64
}

// Overhead is the heap the informer retained per cached object, beyond the
// objects themselves: (After − Held) / Objects.
func (m MemoryResult) Overhead() float64 {
	return (float64(m.After) - float64(m.Held)) / float64(m.Objects)
}

// Memory measures the heap a synced informer over list retains. The objects
// the informer cached are kept alive through the last measurement, so what
// is left is its own bookkeeping: store, indexes, queues, buffers. (client-
// go's Reflector stores a shallow copy of each list item, ctrlgen's points
// into the list's array; either way, the objects are not counted.)
func Memory(impl InformerImpl, list *widget.WidgetList) (MemoryResult, error) {
	n := len(list.Items)
	held := make([]*widget.Widget, n)
	CollectGarbage()
	res := MemoryResult{Before: heapAlloc()}

	c := NewCounter(n, 0)
	inf := impl.New(list, &WatchSource{}, c)
	inf.Start()
	if err := waitSynced(inf, c); err != nil {
		inf.Stop()
		return res, err
	}
	res.Objects = inf.Fill(held)
	CollectGarbage()
	res.After = heapAlloc()

	inf.Stop()
	inf, c = nil, nil // nothing may keep the informer reachable now
	CollectGarbage()
	res.Held = heapAlloc()

	goruntime.KeepAlive(held)
	goruntime.KeepAlive(list)
	if res.Objects != n {
		return res, fmt.Errorf("the informer cached %d objects, want %d", res.Objects, n)
	}
	return res, nil
}

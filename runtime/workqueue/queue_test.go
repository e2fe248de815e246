package workqueue

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestMain fails the package if any test leaves a goroutine behind, e.g. a
// timer or metrics goroutine that ShutDown did not stop.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// mustGet returns the next item and fails the test if the queue reports
// shutdown.
func mustGet[T comparable](t *testing.T, q Queue[T]) T {
	t.Helper()
	item, shutdown := q.Get()
	if shutdown {
		t.Fatalf("Get reported shutdown, want an item")
	}
	return item
}

// process gets the next items, checks they are want, in order, and marks
// each done.
func process[T comparable](t *testing.T, q Queue[T], want ...T) {
	t.Helper()
	for _, w := range want {
		if got := mustGet(t, q); got != w {
			t.Fatalf("Get = %v, want %v", got, w)
		}
		q.Done(w)
	}
}

func assertLen[T comparable](t *testing.T, q Queue[T], want int) {
	t.Helper()
	if got := q.Len(); got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
}

// getAsync calls Get in a goroutine and delivers the result.
type getResult[T any] struct {
	item     T
	shutdown bool
}

func getAsync[T comparable](q Queue[T]) <-chan getResult[T] {
	ch := make(chan getResult[T], 1)
	go func() {
		item, shutdown := q.Get()
		ch <- getResult[T]{item, shutdown}
	}()
	return ch
}

// waitFor yields until cond holds. It is for waiting until another goroutine
// has reached a state the test can observe; it never sleeps.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 10_000_000 {
			t.Fatalf("gave up waiting for %s", what)
		}
		runtime.Gosched()
	}
}

func TestQueueIsFIFO(t *testing.T) {
	q := NewQueue[int](Config{})
	defer q.ShutDown()
	var want []int
	for i := range 100 {
		q.Add(i)
		want = append(want, i)
	}
	assertLen(t, q, 100)
	process(t, q, want...)
	assertLen(t, q, 0)
}

func TestAddOfQueuedItemCollapses(t *testing.T) {
	q := NewQueue[string](Config{})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.Add("a")
	q.Add("a")
	assertLen(t, q, 2)
	process(t, q, "a", "b")
	assertLen(t, q, 0) // no duplicates were queued
}

func TestAddWhileProcessingRequeuesOnceAfterDone(t *testing.T) {
	q := NewQueue[string](Config{})
	defer q.ShutDown()
	q.Add("a")
	item := mustGet(t, q)

	// Re-adding while "a" is processed must not make it available yet, and
	// several re-adds collapse into one.
	q.Add("a")
	q.Add("a")
	assertLen(t, q, 0)
	q.Add("b")
	process(t, q, "b")

	q.Done(item)
	assertLen(t, q, 1) // re-queued once
	process(t, q, "a")
	assertLen(t, q, 0)
}

func TestGetDoesNotHandOutItemUntilHolderCallsDone(t *testing.T) {
	q := newQueue[string](Config{})
	defer q.ShutDown()
	q.Add("a")
	mustGet(t, q)
	q.Add("a")

	// A second worker blocks: the only queued work is "a", which is held.
	second := getAsync[string](q)
	waitFor(t, "the second Get to block or return", func() bool {
		return sleepers(q) > 0 || len(second) > 0
	})
	if len(second) > 0 {
		t.Fatalf("second Get returned %+v while the first worker held a", <-second)
	}
	q.Done("a")
	r := <-second
	if r.shutdown || r.item != "a" {
		t.Fatalf("second Get = %+v, want a", r)
	}
	q.Done("a")
}

func TestDoneOfUnknownItemIsIgnored(t *testing.T) {
	q := NewQueue[string](Config{})
	defer q.ShutDown()
	q.Done("never-added")
	q.Add("a")
	q.Done("a") // queued, not processing: must stay queued
	assertLen(t, q, 1)
	process(t, q, "a")
}

func TestShutDownDrainsQueueThenReportsShutdown(t *testing.T) {
	q := NewQueue[string](Config{})
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false after ShutDown")
	}
	q.Add("c") // ignored
	process(t, q, "a", "b")
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get after draining: shutdown = false, want true")
	}
	q.ShutDown() // idempotent
}

func TestShutDownIgnoresAddOfProcessingItem(t *testing.T) {
	q := NewQueue[string](Config{})
	q.Add("a")
	mustGet(t, q)
	q.ShutDown()
	q.Add("a")
	q.Done("a")
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("an Add after ShutDown re-queued an item")
	}
}

func TestShutDownReleasesBlockedGet(t *testing.T) {
	q := NewQueue[int](Config{})
	results := make([]<-chan getResult[int], 3)
	for i := range results {
		results[i] = getAsync[int](q)
	}
	q.ShutDown()
	for _, ch := range results {
		if r := <-ch; !r.shutdown {
			t.Fatalf("blocked Get returned %+v after ShutDown, want shutdown", r)
		}
	}
}

// sleepers returns the number of goroutines blocked in Get.
func sleepers[T comparable](q *queue[T]) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.sleeping
}

// isDraining reports whether ShutDownWithDrain has started waiting.
func isDraining[T comparable](q *queue[T]) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.draining
}

// startDrain runs ShutDownWithDrain in a goroutine, waits until it is
// waiting, and returns a channel closed when it returns.
func startDrain[T comparable](t *testing.T, q *queue[T]) <-chan struct{} {
	t.Helper()
	returned := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(returned)
	}()
	waitFor(t, "ShutDownWithDrain to start", func() bool { return isDraining(q) })
	// Let a ShutDownWithDrain that wrongly decided not to wait return.
	for range 100 {
		runtime.Gosched()
	}
	return returned
}

func assertBlocked(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("ShutDownWithDrain returned while %s", what)
	default:
	}
}

// drainWhileProcessing starts ShutDownWithDrain while "a" is being
// processed and nothing is queued.
func drainWhileProcessing(t *testing.T) (*queue[string], <-chan struct{}) {
	t.Helper()
	q := newQueue[string](Config{})
	q.Add("a")
	mustGet(t, q)
	returned := startDrain(t, q)
	assertBlocked(t, returned, "an item was being processed")
	return q, returned
}

func TestShutDownWithDrainWaitsForItemBeingProcessed(t *testing.T) {
	q, returned := drainWhileProcessing(t)
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false during ShutDownWithDrain")
	}
	q.Done("a")
	<-returned
}

func TestShutDownWithDrainWaitsForQueuedAndRequeuedItems(t *testing.T) {
	q := newQueue[string](Config{})
	q.Add("a")
	q.Add("b")
	mustGet(t, q) // a
	q.Add("a")    // re-queued when Done
	returned := startDrain(t, q)

	q.Add("c") // ignored: shutting down
	assertBlocked(t, returned, "b was queued")
	process(t, q, "b")
	assertBlocked(t, returned, "a was being processed")
	q.Done("a")
	assertBlocked(t, returned, "a was re-queued")
	process(t, q, "a")
	<-returned
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get after drain: shutdown = false, want true")
	}
}

func TestShutDownWithDrainOnIdleQueueReturns(t *testing.T) {
	q := NewQueue[string](Config{})
	q.ShutDownWithDrain()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false")
	}
}

func TestShutDownStopsShutDownWithDrain(t *testing.T) {
	q, returned := drainWhileProcessing(t)
	q.ShutDown()
	<-returned
}

func TestEmptiedLargeMapIsReplaced(t *testing.T) {
	q := newQueue[int](Config{})
	defer q.ShutDown()
	for i := range keptMapSize + 1 {
		q.Add(i)
	}
	for range keptMapSize + 1 {
		q.Done(mustGet(t, q))
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.itemsPeak != 0 || len(q.items) != 0 {
		t.Fatalf("peak %d, %d items: the emptied map was not replaced", q.itemsPeak, len(q.items))
	}
}

// stress runs many producers, which call add, against several workers and
// checks that no item is ever processed by two workers at once and that every
// item is processed after its last add. Once the producers are done, settle
// is called (it must leave every added item queued or processed) and the
// queue is drained.
func stress(t *testing.T, q Queue[int], add func(r *rand.Rand, item int), settle func()) {
	const (
		producers = 8
		workers   = 6
		items     = 200
		addsEach  = 5_000
	)
	var (
		seq       atomic.Int64
		inFlight  [items]atomic.Int32
		lastAdd   [items]atomic.Int64 // seq taken just before the last add
		lastStart [items]atomic.Int64 // seq taken when processing last started
		processed atomic.Int64
		failures  atomic.Int64
	)
	storeMax := func(v *atomic.Int64, x int64) {
		for {
			old := v.Load()
			if x <= old || v.CompareAndSwap(old, x) {
				return
			}
		}
	}

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				storeMax(&lastStart[item], seq.Add(1))
				if n := inFlight[item].Add(1); n != 1 {
					failures.Add(1)
				}
				if rand.IntN(4) == 0 {
					runtime.Gosched() // widen the window for overlaps
				}
				inFlight[item].Add(-1)
				processed.Add(1)
				q.Done(item)
			}
		})
	}

	var producing sync.WaitGroup
	for p := range producers {
		producing.Go(func() {
			r := rand.New(rand.NewPCG(uint64(p), 42))
			for range addsEach {
				item := r.IntN(items)
				storeMax(&lastAdd[item], seq.Add(1))
				add(r, item)
			}
		})
	}
	producing.Wait()
	settle()
	q.ShutDownWithDrain()
	wg.Wait()

	if n := failures.Load(); n > 0 {
		t.Fatalf("an item was processed by two workers at once %d times", n)
	}
	for i := range items {
		if lastAdd[i].Load() != 0 && lastStart[i].Load() < lastAdd[i].Load() {
			t.Errorf("item %d: last add at %d, processing last started at %d: lost", i, lastAdd[i].Load(), lastStart[i].Load())
		}
	}
	t.Logf("%d adds, %d processed", producers*addsEach, processed.Load())
}

func TestStress(t *testing.T) {
	q := NewQueue[int](Config{})
	stress(t, q, func(_ *rand.Rand, item int) { q.Add(item) }, func() {})
}

// TestStressDelaying mixes Add and AddAfter while the clock moves, then
// releases everything still waiting.
func TestStressDelaying(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := newDelayingQueue[int](Config{Clock: c})
	stepping, steps := make(chan struct{}), sync.WaitGroup{}
	steps.Go(func() {
		for {
			select {
			case <-stepping:
				return
			default:
				c.Step(time.Millisecond)
				runtime.Gosched()
			}
		}
	})
	stress(t, q, func(r *rand.Rand, item int) {
		if r.IntN(2) == 0 {
			q.Add(item)
		} else {
			q.AddAfter(item, time.Duration(r.IntN(5))*time.Millisecond)
		}
	}, func() {
		close(stepping)
		steps.Wait()
		c.Step(time.Second)
		q.addReady()
	})
}

// TestStressDistinctKeys pushes many distinct keys through the queue, so the
// FIFO grows and shrinks, and checks each is processed exactly once.
func TestStressDistinctKeys(t *testing.T) {
	const n = 100_000
	q := NewQueue[string](Config{})
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns/obj-%d", i)
	}
	var mu sync.Mutex
	seen := make(map[string]int, n)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				seen[k]++
				mu.Unlock()
				q.Done(k)
			}
		})
	}
	for _, k := range keys {
		q.Add(k)
	}
	q.ShutDownWithDrain()
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("processed %d distinct keys, want %d", len(seen), n)
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("%s processed %d times, want 1", k, c)
		}
	}
}

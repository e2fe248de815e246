package workqueue

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
	clocktesting "k8s.io/utils/clock/testing"
)

func newFakeDelaying[T comparable](t *testing.T) (*delayingQueue[T], *clocktesting.FakeClock) {
	t.Helper()
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := newDelayingQueue[T](Config{Clock: c})
	t.Cleanup(q.ShutDown)
	return q, c
}

func TestAddAfterNonPositiveDelayAddsAtOnce(t *testing.T) {
	q, _ := newFakeDelaying[string](t)
	q.AddAfter("zero", 0)
	q.AddAfter("negative", -time.Second)
	assertLen[string](t, q, 2)
	if q.timer != nil {
		t.Fatal("a timer was started for items that needed no delay")
	}
}

func TestAddAfterAddsWhenTheClockReachesReadyTime(t *testing.T) {
	q, c := newFakeDelaying[string](t)
	q.AddAfter("a", time.Second)
	assertLen[string](t, q, 0)

	c.Step(999 * time.Millisecond)
	q.addReady() // whatever the timer goroutine has done, nothing is due
	assertLen[string](t, q, 0)

	// The timer goroutine, not the test, adds the item once it is due.
	c.Step(time.Millisecond)
	process[string](t, q, "a")
}

func TestAddAfterKeepsEarlierReadyTime(t *testing.T) {
	q, c := newFakeDelaying[string](t)
	q.AddAfter("a", time.Second)
	q.AddAfter("a", 5*time.Second) // later: ignored
	q.AddAfter("b", 5*time.Second)
	q.AddAfter("b", time.Second) // earlier: moves b forward
	if n := len(q.heap); n != 2 {
		t.Fatalf("%d waiting entries, want 2", n)
	}

	c.Step(time.Second)
	q.addReady()
	assertLen[string](t, q, 2)
	for range 2 {
		q.Done(mustGet[string](t, q))
	}

	// Neither item comes back at the later time.
	c.Step(10 * time.Second)
	q.addReady()
	assertLen[string](t, q, 0)
}

func TestAddAfterNonPositiveDelaySupersedesWaitingEntry(t *testing.T) {
	q, c := newFakeDelaying[string](t)
	q.AddAfter("a", 5*time.Second)
	q.AddAfter("b", 10*time.Second)
	q.AddAfter("a", 0)
	assertLen[string](t, q, 1)
	q.Done(mustGet[string](t, q))

	c.Step(5 * time.Second)
	q.addReady()
	assertLen[string](t, q, 0)
	c.Step(5 * time.Second)
	process[string](t, q, "b")
}

func TestAddAfterReleasesItemsInReadyTimeOrder(t *testing.T) {
	q, c := newFakeDelaying[int](t)
	delays := []int{5, 1, 4, 2, 3}
	for _, d := range delays {
		q.AddAfter(d, time.Duration(d)*time.Second)
	}
	c.Step(10 * time.Second)
	q.addReady()
	process[int](t, q, 1, 2, 3, 4, 5)
}

// TestAddAfterMatchesModel checks the heap against a map of ready times over
// random AddAfter calls and clock steps.
func TestAddAfterMatchesModel(t *testing.T) {
	q, c := newFakeDelaying[int](t)
	r := rand.New(rand.NewPCG(3, 4))
	readyAt := map[int]time.Time{} // waiting items
	queued := map[int]bool{}       // items added with no delay
	for round := range 300 {
		for range r.IntN(20) {
			item, d := r.IntN(50), time.Duration(r.IntN(100))*time.Millisecond
			q.AddAfter(item, d)
			at := c.Now().Add(d)
			if old, ok := readyAt[item]; d > 0 && (!ok || at.Before(old)) {
				readyAt[item] = at
			} else if d <= 0 {
				delete(readyAt, item)
				queued[item] = true
			}
		}
		c.Step(time.Duration(r.IntN(60)) * time.Millisecond)
		q.addReady()

		// Everything queued was added with no delay or is due; an item that
		// is both was queued once.
		for n := q.Len(); n > 0; n-- {
			item := mustGet[int](t, q)
			at, waiting := readyAt[item]
			due := waiting && !at.After(c.Now())
			if !queued[item] && !due {
				t.Fatalf("round %d: %d released before its ready time", round, item)
			}
			delete(queued, item)
			if due {
				delete(readyAt, item)
			}
			q.Done(item)
		}
		if len(queued) > 0 {
			t.Fatalf("round %d: items added with no delay were not queued: %v", round, queued)
		}
		for item, at := range readyAt {
			if !at.After(c.Now()) {
				t.Fatalf("round %d: %d is due but was not released", round, item)
			}
		}
		q.dmu.Lock()
		waiting := len(q.byItem)
		q.dmu.Unlock()
		if waiting != len(readyAt) {
			t.Fatalf("round %d: %d items waiting, model has %d", round, waiting, len(readyAt))
		}
	}
}

func TestAddAfterIgnoredAfterShutDown(t *testing.T) {
	q, c := newFakeDelaying[string](t)
	q.AddAfter("waiting", time.Second)
	q.ShutDown()
	q.AddAfter("late", 0)
	q.AddAfter("late", time.Second)
	c.Step(time.Hour)
	q.addReady()
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("an item was added after ShutDown")
	}
}

// goroutinesIn counts the goroutines whose stack contains fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte(fn)) {
			n++
		}
	}
	return n
}

func TestShutDownStopsTimerGoroutine(t *testing.T) {
	for name, shutDown := range map[string]func(Delaying[string]){
		"ShutDown":          Delaying[string].ShutDown,
		"ShutDownWithDrain": Delaying[string].ShutDownWithDrain,
	} {
		t.Run(name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			q := NewDelayingQueue[string](Config{}) // real clock
			defer q.ShutDown()
			q.AddAfter("a", time.Hour)
			q.AddAfter("b", time.Minute)
			waitFor(t, "the timer goroutine to start", func() bool { return goroutinesIn(".timerLoop") > 0 })
			if n := goroutinesIn(".timerLoop"); n != 1 {
				t.Fatalf("%d timer goroutines running, want 1", n)
			}
			shutDown(q)
			if n := goroutinesIn(".timerLoop"); n != 0 {
				t.Fatalf("%d timer goroutines still running after %s", n, name)
			}
			goleak.VerifyNone(t, before)
		})
	}
}

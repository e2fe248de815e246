package runtimebench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlgen/ctrlgen/bench/internal/widget"
)

// The benchmark sizes.
const (
	// listObjects is the size of the initial list (InitialList, Memory).
	listObjects = 100_000
	// watchBase is the number of objects the informer has synced on before
	// the updates of WatchUpdates.
	watchBase = 1_000
	// watchEvents is the number of Modified events in WatchUpdates.
	watchEvents = 100_000
	// pacedEvents is the number of events of WatchUpdatesPaced.
	pacedEvents = 20_000
	// queueKeys is the number of distinct keys through WorkQueue.
	queueKeys = 1_000_000
)

// The fixtures are decoded once per process, outside any timed region, and
// shared by both implementations.
var (
	bigList      = sync.OnceValue(func() *widget.WidgetList { return widget.List(listObjects) })
	watchFixture = sync.OnceValues(func() (*widget.WidgetList, []watch.Event) {
		return widget.List(watchBase), ModifiedEvents(widget.Updates(watchBase, watchEvents))
	})
	queueFixture = sync.OnceValue(func() []string { return widget.Keys(queueKeys) })
)

func init() {
	if v := os.Getenv("BENCH_EVENT_BUFFER"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			panic(fmt.Sprintf("BENCH_EVENT_BUFFER=%q: want a count of events", v))
		}
		EventBuffer = n
	}
}

// ordered returns impls, reversed when BENCH_REVERSE is set: run.sh runs
// the benchmark binary several times and reverses every other run, so that
// neither implementation always runs first.
func ordered[T any](impls []T) []T {
	if os.Getenv("BENCH_REVERSE") != "" {
		impls = slices.Clone(impls)
		slices.Reverse(impls)
	}
	return impls
}

// cpuTimer is b's timer that also adds up the CPU time the process uses
// while it runs, all goroutines (the GC's included) together.
type cpuTimer struct {
	b          *testing.B
	start, cpu time.Duration
}

func (t *cpuTimer) StartTimer() {
	t.b.StartTimer()
	t.start = CPUTime()
}

func (t *cpuTimer) StopTimer() {
	t.cpu += CPUTime() - t.start
	t.b.StopTimer()
}

// report reports the timed wall-clock nanoseconds per processed unit
// (object, event, item) as "ns/<unit>", and the CPU nanoseconds as
// "cpu-ns/<unit>". b.Elapsed counts only while the timer runs. The CPU time
// is the steadier of the two on a shared machine: other processes stretch
// the wall clock, much less the CPU time.
func (t *cpuTimer) report(units int, unit string) {
	per := float64(t.b.N) * float64(units)
	t.b.ReportMetric(float64(t.b.Elapsed().Nanoseconds())/per, "ns/"+unit)
	t.b.ReportMetric(float64(t.cpu.Nanoseconds())/per, "cpu-ns/"+unit)
}

// measure runs op b.N times, b's timer running only while op runs it,
// fails b unless each run processed units (what names them in the
// failure), and reports the time and CPU time per unit.
func measure(b *testing.B, units int, unit, what string, op func(Timer) (int64, error)) {
	b.ReportAllocs()
	b.StopTimer()
	t := &cpuTimer{b: b}
	for range b.N {
		n, err := op(t)
		if err != nil {
			b.Fatal(err)
		}
		if n != int64(units) {
			b.Fatalf("%d %s, want %d", n, what, units)
		}
	}
	t.report(units, unit)
}

// BenchmarkInitialList: a fresh informer per iteration lists listObjects
// objects; timed from Run until it has synced and its handler has received
// every add.
func BenchmarkInitialList(b *testing.B) {
	list := bigList()
	for _, impl := range ordered(InformerImpls) {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			measure(b, listObjects, "object", "adds", func(t Timer) (int64, error) {
				res, err := InitialList(t, impl, list)
				return res.Adds, err
			})
		})
	}
}

// BenchmarkWatchUpdates: a fresh informer per iteration syncs on watchBase
// objects (untimed); timed from the first of watchEvents Modified events
// pushed through its watch until its handler has received the update of the
// last.
func BenchmarkWatchUpdates(b *testing.B) {
	base, events := watchFixture()
	for _, impl := range ordered(InformerImpls) {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			measure(b, watchEvents, "event", "updates", func(t Timer) (int64, error) {
				res, err := WatchUpdates(t, impl, base, events, nil)
				return res.Updates, err
			})
		})
	}
}

// BenchmarkWatchUpdatesPaced: as WatchUpdates, but each of the first
// pacedEvents events is pushed once the previous one's update has been
// delivered, so every event finds the informer idle, as the events of a
// watch on a real apiserver mostly do: what is measured is the per-event
// cost of waking the pipeline rather than its throughput.
func BenchmarkWatchUpdatesPaced(b *testing.B) {
	base, events := watchFixture()
	events = events[:pacedEvents]
	for _, impl := range ordered(InformerImpls) {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			measure(b, pacedEvents, "event", "updates", func(t Timer) (int64, error) {
				res, err := WatchUpdatesPaced(t, impl, base, events)
				return res.Updates, err
			})
		})
	}
}

// BenchmarkWorkQueue: a fresh queue per iteration; one producer adds
// queueKeys distinct keys, Workers workers Get and Done them; timed from the
// first Add until the last Done.
func BenchmarkWorkQueue(b *testing.B) {
	keys := queueFixture()
	for _, impl := range ordered(QueueImpls) {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			measure(b, queueKeys, "item", "items processed", func(t Timer) (int64, error) {
				return WorkQueue(t, impl, keys, nil)
			})
		})
	}
}

// BenchmarkMemory: the heap a synced informer holding listObjects objects
// retains per object beyond the objects themselves, after full collections
// (see Memory). Its time per op is only the cost of measuring.
func BenchmarkMemory(b *testing.B) {
	list := bigList()
	for _, impl := range ordered(InformerImpls) {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			var sum float64
			for range b.N {
				res, err := Memory(impl, list)
				if err != nil {
					b.Fatal(err)
				}
				sum += res.Overhead()
			}
			b.ReportMetric(sum/float64(b.N), "B/object")
		})
	}
}

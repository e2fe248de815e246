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

// BenchmarkInitialList: a fresh informer per iteration lists listObjects
// objects; timed from Run until it has synced and its handler has received
// every add.
func BenchmarkInitialList(b *testing.B) {
	list := bigList()
	for _, impl := range ordered(InformerImpls) {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			b.ReportAllocs()
			b.StopTimer()
			t := &cpuTimer{b: b}
			for range b.N {
				res, err := InitialList(t, impl, list)
				if err != nil {
					b.Fatal(err)
				}
				if res.Adds != listObjects {
					b.Fatalf("%d adds, want %d", res.Adds, listObjects)
				}
			}
			t.report(listObjects, "object")
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
			b.ReportAllocs()
			b.StopTimer()
			t := &cpuTimer{b: b}
			for range b.N {
				res, err := WatchUpdates(t, impl, base, events, nil)
				if err != nil {
					b.Fatal(err)
				}
				if res.Updates != watchEvents {
					b.Fatalf("%d updates, want %d", res.Updates, watchEvents)
				}
			}
			t.report(watchEvents, "event")
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
			b.ReportAllocs()
			b.StopTimer()
			t := &cpuTimer{b: b}
			for range b.N {
				res, err := WatchUpdatesPaced(t, impl, base, events)
				if err != nil {
					b.Fatal(err)
				}
				if res.Updates != pacedEvents {
					b.Fatalf("%d updates, want %d", res.Updates, pacedEvents)
				}
			}
			t.report(pacedEvents, "event")
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
			b.ReportAllocs()
			b.StopTimer()
			t := &cpuTimer{b: b}
			for range b.N {
				n, err := WorkQueue(t, impl, keys, nil)
				if err != nil {
					b.Fatal(err)
				}
				if n != queueKeys {
					b.Fatalf("%d items processed, want %d", n, queueKeys)
				}
			}
			t.report(queueKeys, "item")
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

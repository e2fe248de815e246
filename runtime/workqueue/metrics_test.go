package workqueue

import (
	"math"
	"sync"
	"testing"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeMetric records everything done to it.
type fakeMetric struct {
	mu           sync.Mutex
	value        float64
	observations []float64
	sets         chan float64 // receives every Set, if not nil
}

func (m *fakeMetric) Inc() { m.mu.Lock(); m.value++; m.mu.Unlock() }
func (m *fakeMetric) Dec() { m.mu.Lock(); m.value--; m.mu.Unlock() }

func (m *fakeMetric) Set(v float64) {
	m.mu.Lock()
	m.value = v
	m.mu.Unlock()
	if m.sets != nil {
		m.sets <- v
	}
}

func (m *fakeMetric) Observe(v float64) {
	m.mu.Lock()
	m.observations = append(m.observations, v)
	m.mu.Unlock()
}

func (m *fakeMetric) get() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.value
}

func (m *fakeMetric) observed() []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]float64(nil), m.observations...)
}

// fakeProvider hands out fakeMetrics and remembers the names asked for.
type fakeProvider struct {
	mu    sync.Mutex
	names []string

	depth, adds, latency, workDuration, unfinished, longest, retries fakeMetric
}

func newFakeProvider() *fakeProvider {
	return &fakeProvider{
		unfinished: fakeMetric{sets: make(chan float64, 100)},
		longest:    fakeMetric{sets: make(chan float64, 100)},
	}
}

// use records that a metric was created for the queue name and returns m.
func (p *fakeProvider) use(name string, m *fakeMetric) *fakeMetric {
	p.mu.Lock()
	p.names = append(p.names, name)
	p.mu.Unlock()
	return m
}

func (p *fakeProvider) NewDepthMetric(n string) GaugeMetric       { return p.use(n, &p.depth) }
func (p *fakeProvider) NewAddsMetric(n string) CounterMetric      { return p.use(n, &p.adds) }
func (p *fakeProvider) NewLatencyMetric(n string) HistogramMetric { return p.use(n, &p.latency) }
func (p *fakeProvider) NewRetriesMetric(n string) CounterMetric   { return p.use(n, &p.retries) }

func (p *fakeProvider) NewWorkDurationMetric(n string) HistogramMetric {
	return p.use(n, &p.workDuration)
}

func (p *fakeProvider) NewUnfinishedWorkSecondsMetric(n string) SettableGaugeMetric {
	return p.use(n, &p.unfinished)
}

func (p *fakeProvider) NewLongestRunningProcessorSecondsMetric(n string) SettableGaugeMetric {
	return p.use(n, &p.longest)
}

func (p *fakeProvider) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.names)
}

func assertMetric(t *testing.T, what string, got, want float64) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func assertObservations(t *testing.T, what string, got []float64, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s observations = %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s observations = %v, want %v", what, got, want)
		}
	}
}

func TestMetricsAreReported(t *testing.T) {
	p := newFakeProvider()
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := NewRateLimitingQueue(NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
		Config{Name: "test", MetricsProvider: p, Clock: c})
	defer q.ShutDown()
	for _, n := range p.names {
		if n != "test" {
			t.Fatalf("metric created for queue %q, want test", n)
		}
	}

	q.Add("a")
	q.Add("b")
	q.Add("a") // collapses: not counted
	assertMetric(t, "adds", p.adds.get(), 2)
	assertMetric(t, "depth", p.depth.get(), 2)

	c.Step(2 * time.Second)
	mustGet(t, q) // a: queued for 2s
	assertMetric(t, "depth", p.depth.get(), 1)
	assertObservations(t, "latency", p.latency.observed(), 2)

	c.Step(3 * time.Second)
	q.Done("a") // processed for 3s
	assertObservations(t, "work duration", p.workDuration.observed(), 3)

	q.AddAfter("c", 0) // no delay: not a retry
	q.AddRateLimited("d")
	q.AddAfter("e", time.Second)
	assertMetric(t, "retries", p.retries.get(), 2)
	assertMetric(t, "adds", p.adds.get(), 3) // c; d is still waiting
	assertMetric(t, "depth", p.depth.get(), 2)
}

func TestUnfinishedWorkIsUpdatedPeriodically(t *testing.T) {
	p := newFakeProvider()
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := NewQueue[string](Config{Name: "test", MetricsProvider: p, Clock: c})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	mustGet(t, q)
	c.Step(400 * time.Millisecond) // before the first 500ms tick
	mustGet(t, q)
	// One step over the tick: the updater runs once, seeing a running for
	// 2s and b for 1.6s.
	c.Step(1600 * time.Millisecond)
	if got := <-p.unfinished.sets; math.Abs(got-3.6) > 1e-9 {
		t.Fatalf("unfinished work = %v, want 3.6", got)
	}
	if got := <-p.longest.sets; got != 2 {
		t.Fatalf("longest running processor = %v, want 2", got)
	}
}

func TestUnnamedQueueReportsNoMetrics(t *testing.T) {
	p := newFakeProvider()
	q := NewRateLimitingQueue(DefaultControllerRateLimiter[string](), Config{MetricsProvider: p})
	defer q.ShutDown()
	q.Add("a")
	if n := p.calls(); n != 0 {
		t.Fatalf("provider was asked for %d metrics for an unnamed queue", n)
	}
}

func TestDefaultMetricsProvider(t *testing.T) {
	p := newFakeProvider()
	SetDefaultMetricsProvider(p)
	q := NewDelayingQueue[string](Config{Name: "uses-default"})
	SetDefaultMetricsProvider(nil)
	defer q.ShutDown()
	q.Add("a")
	assertMetric(t, "adds", p.adds.get(), 1)

	before := p.calls()
	q2 := NewDelayingQueue[string](Config{Name: "after-reset"})
	defer q2.ShutDown()
	if p.calls() != before {
		t.Fatal("queue created after SetDefaultMetricsProvider(nil) used the old provider")
	}
}

// countingClock counts calls to Now and Since.
type countingClock struct {
	clock.WithTicker
	mu    sync.Mutex
	calls int
}

func (c *countingClock) Now() time.Time {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.WithTicker.Now()
}

func (c *countingClock) Since(t time.Time) time.Duration {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.WithTicker.Since(t)
}

// TestNoMetricWorkWithoutProvider checks that without a provider the queue
// does no timekeeping and starts no metrics goroutine.
func TestNoMetricWorkWithoutProvider(t *testing.T) {
	c := &countingClock{WithTicker: clocktesting.NewFakeClock(time.Unix(1_000_000, 0))}
	q := NewRateLimitingQueue(DefaultControllerRateLimiter[string](), Config{Name: "no-provider", Clock: c})
	defer q.ShutDown()
	q.Add("a")
	q.AddAfter("b", 0)
	item := mustGet(t, q)
	q.Add(item)
	q.Done(item)
	q.Done(mustGet(t, q))
	if c.calls != 0 {
		t.Fatalf("the clock was read %d times without a metrics provider", c.calls)
	}
	if n := goroutinesIn(".updateUnfinishedWorkLoop"); n != 0 {
		t.Fatalf("%d metrics goroutines running without a provider", n)
	}
}

func TestShutDownStopsMetricsGoroutine(t *testing.T) {
	for name, shutDown := range map[string]func(Queue[string]){
		"ShutDown":          Queue[string].ShutDown,
		"ShutDownWithDrain": Queue[string].ShutDownWithDrain,
	} {
		t.Run(name, func(t *testing.T) {
			q := NewQueue[string](Config{Name: "test", MetricsProvider: newFakeProvider()})
			defer q.ShutDown()
			waitFor(t, "the metrics goroutine to start", func() bool { return goroutinesIn(".updateUnfinishedWorkLoop") > 0 })
			shutDown(q)
			if n := goroutinesIn(".updateUnfinishedWorkLoop"); n != 0 {
				t.Fatalf("%d metrics goroutines still running after %s", n, name)
			}
		})
	}
}

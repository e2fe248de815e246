package workqueue

import (
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// GaugeMetric is a value that can go up and down.
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric is a value that is set outright.
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric is a value that only goes up.
type CounterMetric interface {
	Inc()
}

// HistogramMetric records observations.
type HistogramMetric interface {
	Observe(float64)
}

// MetricsProvider creates the metrics of a queue. Every method receives the
// queue's name and is called once per queue, when the queue is created.
type MetricsProvider interface {
	// NewDepthMetric counts items that are waiting to be processed.
	NewDepthMetric(name string) GaugeMetric
	// NewAddsMetric counts the Adds that queued an item.
	NewAddsMetric(name string) CounterMetric
	// NewLatencyMetric observes the seconds from Add to Get.
	NewLatencyMetric(name string) HistogramMetric
	// NewWorkDurationMetric observes the seconds from Get to Done.
	NewWorkDurationMetric(name string) HistogramMetric
	// NewUnfinishedWorkSecondsMetric is set periodically to the seconds
	// spent so far on the items being processed.
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	// NewLongestRunningProcessorSecondsMetric is set periodically to the
	// seconds spent so far on the oldest item being processed.
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	// NewRetriesMetric counts AddAfter and AddRateLimited calls with a
	// positive delay, as controller-runtime does. (client-go also counts
	// calls without delay.)
	NewRetriesMetric(name string) CounterMetric
}

var defaultProvider atomic.Pointer[MetricsProvider]

// SetDefaultMetricsProvider sets the provider used by queues created
// afterwards whose Config has no MetricsProvider. nil restores the default,
// which reports nothing. Queues that already exist are not affected.
func SetDefaultMetricsProvider(p MetricsProvider) {
	if p == nil {
		defaultProvider.Store(nil)
		return
	}
	defaultProvider.Store(&p)
}

// provider returns the provider the queue reports to, or nil if it reports
// nothing.
func (c Config) provider() MetricsProvider {
	if c.Name == "" {
		return nil
	}
	if c.MetricsProvider != nil {
		return c.MetricsProvider
	}
	if p := defaultProvider.Load(); p != nil {
		return *p
	}
	return nil
}

// queueMetrics tracks the metrics of one queue. Its methods are called with
// the queue's mutex held.
type queueMetrics[T comparable] struct {
	clock clock.PassiveClock

	depth        GaugeMetric
	adds         CounterMetric
	latency      HistogramMetric
	workDuration HistogramMetric
	unfinished   SettableGaugeMetric
	longest      SettableGaugeMetric

	addTimes   map[T]time.Time // when each dirty item was added
	startTimes map[T]time.Time // when each processing item was handed out
}

func newQueueMetrics[T comparable](p MetricsProvider, name string, c clock.PassiveClock) *queueMetrics[T] {
	return &queueMetrics[T]{
		clock:        c,
		depth:        p.NewDepthMetric(name),
		adds:         p.NewAddsMetric(name),
		latency:      p.NewLatencyMetric(name),
		workDuration: p.NewWorkDurationMetric(name),
		unfinished:   p.NewUnfinishedWorkSecondsMetric(name),
		longest:      p.NewLongestRunningProcessorSecondsMetric(name),
		addTimes:     make(map[T]time.Time),
		startTimes:   make(map[T]time.Time),
	}
}

// add is called when item becomes dirty.
func (m *queueMetrics[T]) add(item T) {
	m.adds.Inc()
	m.depth.Inc()
	m.addTimes[item] = m.clock.Now()
}

// get is called when item is handed to a worker.
func (m *queueMetrics[T]) get(item T) {
	now := m.clock.Now()
	m.depth.Dec()
	m.startTimes[item] = now
	if t, ok := m.addTimes[item]; ok {
		m.latency.Observe(now.Sub(t).Seconds())
		delete(m.addTimes, item)
	}
}

// done is called when the worker holding item calls Done.
func (m *queueMetrics[T]) done(item T) {
	if t, ok := m.startTimes[item]; ok {
		m.workDuration.Observe(m.clock.Since(t).Seconds())
		delete(m.startTimes, item)
	}
}

func (m *queueMetrics[T]) updateUnfinishedWork() {
	now := m.clock.Now()
	var total, longest float64
	for _, t := range m.startTimes {
		age := now.Sub(t).Seconds()
		total += age
		longest = max(longest, age)
	}
	m.unfinished.Set(total)
	m.longest.Set(longest)
}

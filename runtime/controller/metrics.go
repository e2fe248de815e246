package controller

import (
	"sync"
	"sync/atomic"

	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// MetricsProvider makes the metrics of a controller, each called once per
// controller name with that name. runtime/manager/metrics' provider serves them
// under controller-runtime's names, so dashboards built for it work
// unchanged; the manager sets it. Keeping Prometheus out of this package
// keeps it out of the module graph of code that only runs controllers.
type MetricsProvider interface {
	// NewReconcileTotal counts reconciles by result: success, error,
	// requeue or requeue_after.
	NewReconcileTotal(controller, result string) workqueue.CounterMetric
	NewReconcileErrors(controller string) workqueue.CounterMetric
	NewTerminalReconcileErrors(controller string) workqueue.CounterMetric
	NewReconcilePanics(controller string) workqueue.CounterMetric
	// NewReconcileTime observes the seconds of each reconcile.
	NewReconcileTime(controller string) workqueue.HistogramMetric
	NewMaxConcurrentReconciles(controller string) workqueue.SettableGaugeMetric
	NewActiveWorkers(controller string) workqueue.GaugeMetric
}

// defaultProvider points at a copy of the provider last set, a new one per
// SetDefaultMetricsProvider, so that madeBy tells a provider set again.
var defaultProvider atomic.Pointer[MetricsProvider]

// SetDefaultMetricsProvider sets the provider of the controllers created
// afterwards. nil restores the default, which reports nothing.
func SetDefaultMetricsProvider(p MetricsProvider) {
	if p == nil {
		defaultProvider.Store(nil)
		return
	}
	defaultProvider.Store(&p)
}

const (
	resultSuccess      = "success"
	resultError        = "error"
	resultRequeue      = "requeue"
	resultRequeueAfter = "requeue_after"
)

// controllerMetrics are one controller's metrics, made once so the
// per-reconcile path does no lookups.
type controllerMetrics struct {
	results        map[string]workqueue.CounterMetric
	errors         workqueue.CounterMetric
	terminalErrors workqueue.CounterMetric
	panics         workqueue.CounterMetric
	reconcileTime  workqueue.HistogramMetric
	maxWorkers     workqueue.SettableGaugeMetric
	activeWorkers  workqueue.GaugeMetric
}

// byName keeps the metrics of each controller name and the provider that
// made them, so that controllers of one name share them until the provider
// changes.
var (
	metricsLock sync.Mutex
	byName      = map[string]*controllerMetrics{}
	madeBy      = map[string]*MetricsProvider{}
)

func metricsFor(name string) *controllerMetrics {
	set := defaultProvider.Load()
	var p MetricsProvider = noMetrics{}
	if set != nil {
		p = *set
	}
	metricsLock.Lock()
	defer metricsLock.Unlock()
	if m, ok := byName[name]; ok && madeBy[name] == set {
		return m
	}
	m := &controllerMetrics{
		results:        map[string]workqueue.CounterMetric{},
		errors:         p.NewReconcileErrors(name),
		terminalErrors: p.NewTerminalReconcileErrors(name),
		panics:         p.NewReconcilePanics(name),
		reconcileTime:  p.NewReconcileTime(name),
		maxWorkers:     p.NewMaxConcurrentReconciles(name),
		activeWorkers:  p.NewActiveWorkers(name),
	}
	for _, r := range []string{resultSuccess, resultError, resultRequeue, resultRequeueAfter} {
		m.results[r] = p.NewReconcileTotal(name, r)
	}
	byName[name], madeBy[name] = m, set
	return m
}

func (m *controllerMetrics) result(r string) {
	m.results[r].Inc()
	if r == resultError {
		m.errors.Inc()
	}
}

type noMetrics struct{}

func (noMetrics) NewReconcileTotal(string, string) workqueue.CounterMetric        { return noop{} }
func (noMetrics) NewReconcileErrors(string) workqueue.CounterMetric               { return noop{} }
func (noMetrics) NewTerminalReconcileErrors(string) workqueue.CounterMetric       { return noop{} }
func (noMetrics) NewReconcilePanics(string) workqueue.CounterMetric               { return noop{} }
func (noMetrics) NewReconcileTime(string) workqueue.HistogramMetric               { return noop{} }
func (noMetrics) NewMaxConcurrentReconciles(string) workqueue.SettableGaugeMetric { return noop{} }
func (noMetrics) NewActiveWorkers(string) workqueue.GaugeMetric                   { return noop{} }

type noop struct{}

func (noop) Inc()            {}
func (noop) Dec()            {}
func (noop) Set(float64)     {}
func (noop) Observe(float64) {}

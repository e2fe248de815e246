package controller

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// The metrics carry controller-runtime's names and labels, so dashboards
// built for it work unchanged.
var (
	reconcileTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "controller_runtime_reconcile_total",
		Help: "Total number of reconciliations per controller",
	}, []string{"controller", "result"})
	reconcileErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "controller_runtime_reconcile_errors_total",
		Help: "Total number of reconciliation errors per controller",
	}, []string{"controller"})
	terminalReconcileErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "controller_runtime_terminal_reconcile_errors_total",
		Help: "Total number of terminal reconciliation errors per controller",
	}, []string{"controller"})
	reconcilePanics = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "controller_runtime_reconcile_panics_total",
		Help: "Total number of reconciliation panics per controller",
	}, []string{"controller"})
	reconcileTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "controller_runtime_reconcile_time_seconds",
		Help: "Length of time per reconciliation per controller",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
			1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60},
	}, []string{"controller"})
	maxConcurrentReconciles = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "controller_runtime_max_concurrent_reconciles",
		Help: "Maximum number of concurrent reconciles per controller",
	}, []string{"controller"})
	activeWorkers = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "controller_runtime_active_workers",
		Help: "Number of currently used workers per controller",
	}, []string{"controller"})
)

// Collectors are the controller metrics, for a registry to serve.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{reconcileTotal, reconcileErrors, terminalReconcileErrors, reconcilePanics,
		reconcileTime, maxConcurrentReconciles, activeWorkers}
}

const (
	resultSuccess      = "success"
	resultError        = "error"
	resultRequeue      = "requeue"
	resultRequeueAfter = "requeue_after"
)

// controllerMetrics are one controller's children of the vectors, looked
// up once so the per-reconcile path does no label hashing.
type controllerMetrics struct {
	results        map[string]prometheus.Counter
	errors         prometheus.Counter
	terminalErrors prometheus.Counter
	panics         prometheus.Counter
	reconcileTime  prometheus.Observer
	maxWorkers     prometheus.Gauge
	activeWorkers  prometheus.Gauge
}

var (
	metricsLock sync.Mutex
	byName      = map[string]*controllerMetrics{}
)

func metricsFor(name string) *controllerMetrics {
	metricsLock.Lock()
	defer metricsLock.Unlock()
	if m, ok := byName[name]; ok {
		return m
	}
	m := &controllerMetrics{
		results:        map[string]prometheus.Counter{},
		errors:         reconcileErrors.WithLabelValues(name),
		terminalErrors: terminalReconcileErrors.WithLabelValues(name),
		panics:         reconcilePanics.WithLabelValues(name),
		reconcileTime:  reconcileTime.WithLabelValues(name),
		maxWorkers:     maxConcurrentReconciles.WithLabelValues(name),
		activeWorkers:  activeWorkers.WithLabelValues(name),
	}
	for _, r := range []string{resultSuccess, resultError, resultRequeue, resultRequeueAfter} {
		m.results[r] = reconcileTotal.WithLabelValues(name, r)
	}
	byName[name] = m
	return m
}

func (m *controllerMetrics) result(r string) {
	m.results[r].Inc()
	if r == resultError {
		m.errors.Inc()
	}
}

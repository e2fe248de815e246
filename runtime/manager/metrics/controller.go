package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlgen/ctrlgen/runtime/controller"
	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// NewControllerMetricsProvider returns a controller.MetricsProvider that
// registers the reconcile metrics with reg (prometheus.DefaultRegisterer if
// nil), under controller-runtime's names and labels, so dashboards built
// for it work unchanged. Calling it again with the same registry reuses the
// registered collectors.
func NewControllerMetricsProvider(reg prometheus.Registerer) controller.MetricsProvider {
	if reg == nil {
		reg = prometheus.DefaultRegisterer
	}
	return &controllerProvider{
		total: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_total",
			Help: "Total number of reconciliations per controller",
		}, []string{"controller", "result"})),
		errors: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_errors_total",
			Help: "Total number of reconciliation errors per controller",
		}, []string{"controller"})),
		terminalErrors: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_terminal_reconcile_errors_total",
			Help: "Total number of terminal reconciliation errors per controller",
		}, []string{"controller"})),
		panics: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_panics_total",
			Help: "Total number of reconciliation panics per controller",
		}, []string{"controller"})),
		time: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "controller_runtime_reconcile_time_seconds",
			Help: "Length of time per reconciliation per controller",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
				1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60},
		}, []string{"controller"})),
		maxConcurrent: register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_max_concurrent_reconciles",
			Help: "Maximum number of concurrent reconciles per controller",
		}, []string{"controller"})),
		active: register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_active_workers",
			Help: "Number of currently used workers per controller",
		}, []string{"controller"})),
	}
}

type controllerProvider struct {
	total, errors, terminalErrors, panics *prometheus.CounterVec
	time                                  *prometheus.HistogramVec
	maxConcurrent, active                 *prometheus.GaugeVec
}

func (p *controllerProvider) NewReconcileTotal(name, result string) workqueue.CounterMetric {
	return p.total.WithLabelValues(name, result)
}

func (p *controllerProvider) NewReconcileErrors(name string) workqueue.CounterMetric {
	return p.errors.WithLabelValues(name)
}

func (p *controllerProvider) NewTerminalReconcileErrors(name string) workqueue.CounterMetric {
	return p.terminalErrors.WithLabelValues(name)
}

func (p *controllerProvider) NewReconcilePanics(name string) workqueue.CounterMetric {
	return p.panics.WithLabelValues(name)
}

func (p *controllerProvider) NewReconcileTime(name string) workqueue.HistogramMetric {
	return p.time.WithLabelValues(name)
}

func (p *controllerProvider) NewMaxConcurrentReconciles(name string) workqueue.SettableGaugeMetric {
	return p.maxConcurrent.WithLabelValues(name)
}

func (p *controllerProvider) NewActiveWorkers(name string) workqueue.GaugeMetric {
	return p.active.WithLabelValues(name)
}

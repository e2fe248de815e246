// Package metrics exports ctrlgen's runtime metrics to Prometheus.
package metrics

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// Workqueue metric names. Names, labels, help texts and buckets match
// controller-runtime's (sigs.k8s.io/controller-runtime/pkg/metrics, v0.25),
// so dashboards and alerts written for controller-runtime work unchanged and
// both can register into the same registry.
const (
	WorkQueueSubsystem         = "workqueue"
	DepthKey                   = "depth"
	AddsKey                    = "adds_total"
	QueueLatencyKey            = "queue_duration_seconds"
	WorkDurationKey            = "work_duration_seconds"
	UnfinishedWorkKey          = "unfinished_work_seconds"
	LongestRunningProcessorKey = "longest_running_processor_seconds"
	RetriesKey                 = "retries_total"
)

// Every series carries the queue's name as both "name" and "controller";
// depth also carries "priority", which is always empty since ctrlgen's queues
// have no priorities.
var (
	queueLabels = []string{"name", "controller"}
	depthLabels = []string{"name", "controller", "priority"}
)

// NewWorkqueueMetricsProvider returns a workqueue.MetricsProvider that
// registers the workqueue metrics with reg (prometheus.DefaultRegisterer if
// nil). If reg already has them, for instance from an earlier call, the
// registered collectors are reused, so calling it again is safe. It panics if
// reg holds different metrics under the same names.
func NewWorkqueueMetricsProvider(reg prometheus.Registerer) workqueue.MetricsProvider {
	if reg == nil {
		reg = prometheus.DefaultRegisterer
	}
	durationOpts := func(name, help string) prometheus.HistogramOpts {
		return prometheus.HistogramOpts{
			Subsystem:                       WorkQueueSubsystem,
			Name:                            name,
			Help:                            help,
			Buckets:                         prometheus.ExponentialBuckets(10e-9, 10, 12),
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  100,
			NativeHistogramMinResetDuration: time.Hour,
		}
	}
	return &provider{
		depth: register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      DepthKey,
			Help:      "Current depth of workqueue by workqueue and priority",
		}, depthLabels)),
		adds: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      AddsKey,
			Help:      "Total number of adds handled by workqueue",
		}, queueLabels)),
		latency: register(reg, prometheus.NewHistogramVec(durationOpts(QueueLatencyKey,
			"How long in seconds an item stays in workqueue before being requested"), queueLabels)),
		workDuration: register(reg, prometheus.NewHistogramVec(durationOpts(WorkDurationKey,
			"How long in seconds processing an item from workqueue takes."), queueLabels)),
		unfinished: register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      UnfinishedWorkKey,
			Help: "How many seconds of work has been done that " +
				"is in progress and hasn't been observed by work_duration. Large " +
				"values indicate stuck threads. One can deduce the number of stuck " +
				"threads by observing the rate at which this increases.",
		}, queueLabels)),
		longestRunning: register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      LongestRunningProcessorKey,
			Help:      "How many seconds has the longest running processor for workqueue been running.",
		}, queueLabels)),
		retries: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      RetriesKey,
			Help:      "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)",
		}, queueLabels)),
	}
}

// register registers c with reg and returns it, or returns the collector
// already registered in its place.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	panic(err)
}

type provider struct {
	depth          *prometheus.GaugeVec
	adds           *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	workDuration   *prometheus.HistogramVec
	unfinished     *prometheus.GaugeVec
	longestRunning *prometheus.GaugeVec
	retries        *prometheus.CounterVec
}

func (p *provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.depth.WithLabelValues(name, name, "")
}

func (p *provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.adds.WithLabelValues(name, name)
}

func (p *provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.latency.WithLabelValues(name, name)
}

func (p *provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.workDuration.WithLabelValues(name, name)
}

func (p *provider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name, name)
}

func (p *provider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.longestRunning.WithLabelValues(name, name)
}

func (p *provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.retries.WithLabelValues(name, name)
}

package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// InformerCollector reports, at scrape time, each informer's cached
// objects and sync state and each handler's backlog: the notifications
// waiting in its buffer, which grow when a handler falls behind. It costs
// nothing between scrapes.
type InformerCollector struct {
	informers func() []cache.Informer
	objects   *prometheus.Desc
	synced    *prometheus.Desc
	backlog   *prometheus.Desc
}

// NewInformerCollector reports on the informers that informers returns at
// each scrape.
func NewInformerCollector(informers func() []cache.Informer) *InformerCollector {
	return &InformerCollector{
		informers: informers,
		objects:   prometheus.NewDesc("informer_cached_objects", "Objects in the informer's cache.", []string{"informer"}, nil),
		synced:    prometheus.NewDesc("informer_synced", "1 once the informer's initial list is in its cache.", []string{"informer"}, nil),
		backlog:   prometheus.NewDesc("informer_handler_backlog", "Notifications waiting in an event handler's buffer.", []string{"informer", "handler"}, nil),
	}
}

func (c *InformerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.objects
	ch <- c.synced
	ch <- c.backlog
}

func (c *InformerCollector) Collect(ch chan<- prometheus.Metric) {
	for _, inf := range c.informers() {
		name := inf.Description()
		ch <- prometheus.MustNewConstMetric(c.objects, prometheus.GaugeValue, float64(inf.Len()), name)
		ch <- prometheus.MustNewConstMetric(c.synced, prometheus.GaugeValue, boolValue(inf.HasSynced()), name)
		for _, reg := range inf.HandlerRegistrations() {
			ch <- prometheus.MustNewConstMetric(c.backlog, prometheus.GaugeValue, float64(reg.Backlog()), name, reg.Name())
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

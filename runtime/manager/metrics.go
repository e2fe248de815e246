package manager

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientmetrics "k8s.io/client-go/tools/metrics"
)

// Client metrics: time spent waiting on the client-side rate limiter shows
// when QPS and Burst, not the apiserver, hold a controller back.
var (
	rateLimiterDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "rest_client_rate_limiter_duration_seconds",
		Help:    "Client side rate limiter latency in seconds, by verb.",
		Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"verb"})
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rest_client_requests_total",
		Help: "Number of HTTP requests, partitioned by status code, method, and host.",
	}, []string{"code", "method", "host"})

	clientMetricsOnce sync.Once
)

type rateLimiterAdapter struct{}

func (rateLimiterAdapter) Observe(_ context.Context, verb string, _ url.URL, latency time.Duration) {
	rateLimiterDuration.WithLabelValues(verb).Observe(latency.Seconds())
}

type requestResultAdapter struct{}

func (requestResultAdapter) Increment(_ context.Context, code, method, host string) {
	requestsTotal.WithLabelValues(code, method, host).Inc()
}

func registerClientMetrics(reg prometheus.Registerer) {
	clientMetricsOnce.Do(func() {
		clientmetrics.Register(clientmetrics.RegisterOpts{
			RateLimiterLatency: rateLimiterAdapter{},
			RequestResult:      requestResultAdapter{},
		})
	})
	reg.Register(rateLimiterDuration)
	reg.Register(requestsTotal)
}

package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

func TestWorkqueueMetricsAreExported(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := workqueue.NewRateLimitingQueue(workqueue.DefaultControllerRateLimiter[string](), workqueue.Config{
		Name:            "widgets",
		MetricsProvider: NewWorkqueueMetricsProvider(reg),
		Clock:           c,
	})
	defer q.ShutDown()

	q.Add("a")
	q.Add("b")
	c.Step(time.Second)
	item, _ := q.Get()
	c.Step(2 * time.Second)
	q.Done(item)
	q.AddRateLimited("c")

	const want = `
# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{controller="widgets",name="widgets"} 2
# HELP workqueue_depth Current depth of workqueue by workqueue and priority
# TYPE workqueue_depth gauge
workqueue_depth{controller="widgets",name="widgets",priority=""} 1
# HELP workqueue_retries_total Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)
# TYPE workqueue_retries_total counter
workqueue_retries_total{controller="widgets",name="widgets"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"workqueue_adds_total", "workqueue_depth", "workqueue_retries_total"); err != nil {
		t.Fatal(err)
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range families {
		byName[f.GetName()] = f
	}
	for name, wantSum := range map[string]float64{
		"workqueue_queue_duration_seconds": 1,
		"workqueue_work_duration_seconds":  2,
	} {
		f := byName[name]
		if f == nil {
			t.Fatalf("%s not exported", name)
		}
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != 1 || h.GetSampleSum() != wantSum {
			t.Errorf("%s: %d samples summing to %v, want 1 summing to %v", name, h.GetSampleCount(), h.GetSampleSum(), wantSum)
		}
		// controller-runtime's buckets: 10ns to 1000s, by powers of 10.
		b := h.GetBucket()
		if len(b) != 12 || b[0].GetUpperBound() != 10e-9 || b[11].GetUpperBound() < 999 || b[11].GetUpperBound() > 1001 {
			t.Errorf("%s: unexpected buckets %v", name, b)
		}
	}
	for _, name := range []string{"workqueue_unfinished_work_seconds", "workqueue_longest_running_processor_seconds"} {
		if byName[name] == nil {
			t.Errorf("%s not exported", name)
		}
	}
}

func TestNewWorkqueueMetricsProviderTwiceReusesCollectors(t *testing.T) {
	reg := prometheus.NewRegistry()
	p1 := NewWorkqueueMetricsProvider(reg)
	p2 := NewWorkqueueMetricsProvider(reg) // must not panic
	p1.NewAddsMetric("q1").Inc()
	p2.NewAddsMetric("q2").Inc()
	p2.NewAddsMetric("q1").Inc()
	const want = `
# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{controller="q1",name="q1"} 2
workqueue_adds_total{controller="q2",name="q2"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "workqueue_adds_total"); err != nil {
		t.Fatal(err)
	}
}

func TestNewWorkqueueMetricsProviderPanicsOnConflictingMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "workqueue_depth", Help: "something else"}))
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a conflicting workqueue_depth")
		}
	}()
	NewWorkqueueMetricsProvider(reg)
}

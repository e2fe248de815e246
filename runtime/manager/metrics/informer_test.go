package metrics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/manager/metrics"
)

func TestInformerCollectorReportsObjectsSyncAndHandlerBacklog(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](schema.GroupResource{Resource: "configmaps"})
	for _, name := range []string{"a", "b", "c"} {
		s.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}})
	}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](s.ListerWatcher(),
		cache.SharedIndexInformerOptions{ObjectDescription: "configmaps"})
	gate := make(chan struct{})
	reg, _ := inf.AddTypedEventHandler(slowHandler{clientcache.TypedResourceEventHandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(*corev1.ConfigMap) { <-gate },
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { close(gate); cancel(); <-done }()
	cache.WaitForCacheSync(ctx, inf.HasSynced)
	// The first add is held in the handler; the backlog counts its batch.
	if !cache.WaitForCacheSync(ctx, func() bool { return reg.(cache.Registration).Backlog() == 3 }) {
		t.Fatal("backlog never reached 3")
	}

	c := metrics.NewInformerCollector(func() []cache.Informer { return []cache.Informer{inf} })
	want := `
# HELP informer_cached_objects Objects in the informer's cache.
# TYPE informer_cached_objects gauge
informer_cached_objects{informer="configmaps"} 3
# HELP informer_handler_backlog Notifications waiting in an event handler's buffer.
# TYPE informer_handler_backlog gauge
informer_handler_backlog{handler="slow",informer="configmaps"} 3
# HELP informer_synced 1 once the informer's initial list is in its cache.
# TYPE informer_synced gauge
informer_synced{informer="configmaps"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

// slowHandler names itself "slow" for the backlog metric.
type slowHandler struct {
	clientcache.TypedResourceEventHandler[*corev1.ConfigMap]
}

func (slowHandler) Name() string { return "slow" }

// The controller metrics carry controller-runtime's names and labels.
func TestControllerMetricsProviderServesControllerRuntimeNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	p := metrics.NewControllerMetricsProvider(reg)
	p.NewReconcileTotal("c", "success").Inc()
	p.NewReconcilePanics("c").Inc()
	// A second provider on the same registry reuses its collectors.
	metrics.NewControllerMetricsProvider(reg).NewReconcileTotal("c", "success").Inc()
	want := `
# HELP controller_runtime_reconcile_panics_total Total number of reconciliation panics per controller
# TYPE controller_runtime_reconcile_panics_total counter
controller_runtime_reconcile_panics_total{controller="c"} 1
# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="c",result="success"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "controller_runtime_reconcile_total", "controller_runtime_reconcile_panics_total"); err != nil {
		t.Fatal(err)
	}
}

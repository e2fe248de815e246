package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	crddemoinformers "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
	runtimemetrics "github.com/ctrlgen/ctrlgen/runtime/manager/metrics"
	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// TestBadInputSchemaRejected creates Mydemos that the CRD's schema
// forbids: the apiserver refuses each with 422 Invalid, naming the field.
func TestBadInputSchemaRejected(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md := mydemoClient(t, e)
	ns := namespace(t, kubernetes.NewForConfigOrDie(e.Config()))
	ctx := context.Background()

	for _, tc := range []struct {
		name        string
		spec        crddemov1.MydemoSpec
		field, text string // the cause's field, and text the message must hold
	}{
		{"port-too-high", crddemov1.MydemoSpec{IP: "10.0.0.1", Port: 70000}, "spec.port", "less than or equal to 65535"},
		{"port-zero", crddemov1.MydemoSpec{IP: "10.0.0.1", Port: 0}, "spec.port", "greater than or equal to 1"},
		{"ip-empty", crddemov1.MydemoSpec{IP: "", Port: 80}, "spec.ip", "spec.ip"},
		{"data-holds-ip", crddemov1.MydemoSpec{IP: "10.0.0.1", Port: 80, Data: map[string]string{"ip": "x"}},
			"spec.data", "data may not hold the keys ip and port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, tc.name, tc.spec.IP, tc.spec.Port, tc.spec.Data), metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("Create: %v, want an Invalid error", err)
			}
			if !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not name %s or say %q", err, tc.field, tc.text)
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Details == nil {
				t.Fatalf("error %v has no details", err)
			}
			var fieldsNamed []string
			for _, c := range status.Status().Details.Causes {
				fieldsNamed = append(fieldsNamed, c.Field)
			}
			found := false
			for _, f := range fieldsNamed {
				found = found || f == tc.field
			}
			if !found {
				t.Errorf("the error's causes name the fields %q, want %s", fieldsNamed, tc.field)
			}
			if _, err := md.CrddemoV1().Mydemos(ns).Get(ctx, tc.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("Get after the rejected create: %v, want NotFound", err)
			}
		})
	}
}

// attempt is one call of a test Reconcile.
type attempt struct {
	at time.Time
	ok bool
}

// attempts records the calls of a test Reconcile, per object.
type attempts struct {
	mu sync.Mutex
	m  map[string][]attempt
}

func (a *attempts) add(name string, ok bool) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string][]attempt{}
	}
	a.m[name] = append(a.m[name], attempt{time.Now(), ok})
	return len(a.m[name])
}

func (a *attempts) get(name string) []attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]attempt(nil), a.m[name]...)
}

// markReady sets obj's Ready condition, which the controller writes back.
func markReady(obj *crddemov1.Mydemo) {
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Reconciled", Message: "reconciled by the e2e test controller",
		ObservedGeneration: obj.Generation,
	})
}

// testControllerOptions are the options the generated mydemo wiring uses,
// with reconcile as the Reconcile: the status is written back after each
// call, and observedGeneration set after a successful one.
func testControllerOptions(name string, client versioned.Interface, informer crddemoinformers.MydemoIndexInformer,
	reconcile func(context.Context, *crddemov1.Mydemo) (controller.Result, error)) controller.Options[*crddemov1.Mydemo] {
	return controller.Options[*crddemov1.Mydemo]{
		Name:      name,
		Informer:  informer,
		DeepCopy:  (*crddemov1.Mydemo).DeepCopy,
		Reconcile: reconcile,
		Get: func(ctx context.Context, key cache.ObjectName) (*crddemov1.Mydemo, error) {
			return client.CrddemoV1().Mydemos(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
		},
		UpdateStatus: func(ctx context.Context, obj *crddemov1.Mydemo) (*crddemov1.Mydemo, error) {
			return client.CrddemoV1().Mydemos(obj.Namespace).UpdateStatus(ctx, obj, metav1.UpdateOptions{})
		},
		StatusEqual:           func(a, b *crddemov1.Mydemo) bool { return equality.Semantic.DeepEqual(a.Status, b.Status) },
		CopyStatus:            func(dst, src *crddemov1.Mydemo) { src.Status.DeepCopyInto(&dst.Status) },
		SetObservedGeneration: func(obj *crddemov1.Mydemo, generation int64) { obj.Status.ObservedGeneration = generation },
	}
}

// waitTestReady waits until the named Mydemos carry the Ready condition
// markReady sets, for their current generation.
func waitTestReady(t *testing.T, md versioned.Interface, ns string, names ...string) {
	t.Helper()
	poll(t, time.Minute, 50*time.Millisecond, fmt.Sprintf("%v to be Ready", names), func() (bool, string) {
		for _, name := range names {
			obj, err := md.CrddemoV1().Mydemos(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			if !meta.IsStatusConditionTrue(obj.Status.Conditions, "Ready") || obj.Status.ObservedGeneration != obj.Generation {
				return false, fmt.Sprintf("%s: status %+v", name, obj.Status)
			}
		}
		return true, ""
	})
}

// waitEvent waits for an event of reason about the Mydemo name in ns.
func waitEvent(t *testing.T, kc kubernetes.Interface, ns, name, reason string) *corev1.Event {
	t.Helper()
	var found *corev1.Event
	poll(t, time.Minute, 100*time.Millisecond, fmt.Sprintf("a %s event about %s", reason, name), func() (bool, string) {
		evs, err := kc.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("involvedObject.name", name).String()})
		if err != nil {
			return false, err.Error()
		}
		var reasons []string
		for i := range evs.Items {
			if evs.Items[i].Reason == reason {
				found = &evs.Items[i]
				return true, ""
			}
			reasons = append(reasons, evs.Items[i].Reason)
		}
		return false, fmt.Sprintf("events: %v", reasons)
	})
	return found
}

// TestBadInputReconcileErrorRetriedWithBackoff runs a controller on the
// generated Mydemo informers whose Reconcile fails a few times for one
// object: it is retried with exponentially growing delays until it
// succeeds, each failure counted in controller_runtime_reconcile_total
// {result="error"}; a permanent error is not retried, and is reported as
// an event.
func TestBadInputReconcileErrorRetriedWithBackoff(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md := mydemoClient(t, e)
	kc := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, kc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	const (
		name     = "e2e-retry"
		failures = 3
		base     = 200 * time.Millisecond
	)
	reg := prometheus.NewRegistry()
	controller.SetDefaultMetricsProvider(runtimemetrics.NewControllerMetricsProvider(reg))
	defer controller.SetDefaultMetricsProvider(nil)
	gather := func() metrics {
		rec := httptest.NewRecorder()
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		return metrics(rec.Body.String())
	}

	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kc.CoreV1().Events("")})
	defer broadcaster.Shutdown()

	factory := externalversions.NewSharedInformerFactoryWithOptions(md, 0, externalversions.WithNamespace(ns))
	defer factory.Shutdown()
	var calls attempts
	opts := testControllerOptions(name, md, factory.Crddemo().V1().Mydemos().TypedInformer(),
		func(_ context.Context, obj *crddemov1.Mydemo) (controller.Result, error) {
			switch n := len(calls.get(obj.Name)) + 1; {
			case obj.Name == "flaky" && n <= failures:
				calls.add(obj.Name, false)
				return controller.Result{}, fmt.Errorf("transient failure %d of %d", n, failures)
			case obj.Name == "doomed":
				calls.add(obj.Name, false)
				return controller.Result{}, controller.Permanent(errors.New("this Mydemo can never work"))
			}
			calls.add(obj.Name, true)
			markReady(obj)
			return controller.Result{}, nil
		})
	// Only the per-item exponential backoff, without the default limiter's
	// overall token bucket, so that the expected delays are exact.
	opts.RateLimiter = workqueue.NewItemExponentialFailureRateLimiter[cache.ObjectName](base, time.Minute)
	opts.Recorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: name})
	ctrl, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	before := gather()
	factory.StartWithContext(ctx)
	runDone := make(chan error, 1)
	go func() { runDone <- ctrl.Run(ctx, 2) }()
	defer func() {
		cancel()
		if err := <-runDone; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	for _, n := range []string{"flaky", "doomed", "steady"} {
		if _, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, n, "10.0.0.1", 80, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitTestReady(t, md, ns, "flaky", "steady")

	got := calls.get("flaky")
	if len(got) < failures+1 {
		t.Fatalf("flaky is Ready after %d attempts, want %d", len(got), failures+1)
	}
	var gaps []time.Duration
	for i, a := range got[:failures+1] {
		if a.ok != (i == failures) {
			t.Fatalf("attempt %d of flaky: ok=%v", i+1, a.ok)
		}
		if i > 0 {
			gaps = append(gaps, a.at.Sub(got[i-1].at))
		}
	}
	t.Logf("flaky: %d failed attempts then success; gaps between attempts %v (backoff base %v)", failures, gaps, base)
	for i, gap := range gaps {
		// The i-th retry is queued base·2^i after the failure (AddAfter
		// never fires early), so the gap is at least that.
		if want := base << i; gap < want {
			t.Errorf("retry %d came %v after the failure, before its backoff of %v", i+1, gap, want)
		}
		if i > 0 && gap <= gaps[i-1] {
			t.Errorf("retry %d came %v after the failure, not later than retry %d (%v): the backoff does not grow", i+1, gap, i, gaps[i-1])
		}
	}

	// By now (after at least base·(2^failures - 1)) a retry of the doomed
	// object, due base after its failure, would have happened.
	if n := len(calls.get("doomed")); n != 1 {
		t.Errorf("doomed was attempted %d times; a permanent error must not be retried", n)
	}
	if n := len(calls.get("steady")); n < 1 || !calls.get("steady")[0].ok {
		t.Errorf("steady: attempts %+v", calls.get("steady"))
	}
	ev := waitEvent(t, kc, ns, "doomed", "ReconcileFailed")
	if ev.Type != corev1.EventTypeWarning || !strings.Contains(ev.Message, "can never work") {
		t.Errorf("event %s %s: %q", ev.Type, ev.Reason, ev.Message)
	}

	after := gather()
	delta := func(name string, labels ...string) float64 {
		return after.get(t, name, labels...) - before.get(t, name, labels...)
	}
	if d := delta("controller_runtime_reconcile_total", "controller", name, "result", "error"); d != failures+1 {
		t.Errorf(`controller_runtime_reconcile_total{result="error"} grew by %v, want %d (the transient failures and the permanent one)`, d, failures+1)
	}
	if d := delta("controller_runtime_reconcile_errors_total", "controller", name); d != failures+1 {
		t.Errorf("controller_runtime_reconcile_errors_total grew by %v, want %d", d, failures+1)
	}
	if d := delta("controller_runtime_terminal_reconcile_errors_total", "controller", name); d != 1 {
		t.Errorf("controller_runtime_terminal_reconcile_errors_total grew by %v, want 1", d)
	}
	if d := delta("controller_runtime_reconcile_total", "controller", name, "result", "success"); d < 2 {
		t.Errorf(`controller_runtime_reconcile_total{result="success"} grew by %v, want at least 2`, d)
	}
}

// TestBadInputReconcilePanicRecovered runs, under runtime/manager, a
// controller whose Reconcile panics for a marked Mydemo: the panic is
// recovered, counted and reported as an event, the key is retried, the
// manager keeps running and healthy, and other Mydemos, created before and
// after the panics, are reconciled by the same single worker.
func TestBadInputReconcilePanicRecovered(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md := mydemoClient(t, e)
	kc := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, kc)
	ctx := context.Background()

	const name = "e2e-panic"
	const bombLabel = "e2e.ctrlgen.io/panic"
	var calls attempts
	mgr := startManager(t, e.KubeconfigPath(), 1, func(m *manager.Manager) {
		m.Register(name, func(_ context.Context, mc *manager.Context) (manager.Runnable, error) {
			client, err := versioned.NewForConfig(mc.Config)
			if err != nil {
				return nil, err
			}
			factory, err := manager.SharedFactory(mc, "e2e-panic/"+ns, func() (externalversions.SharedInformerFactory, error) {
				return externalversions.NewSharedInformerFactoryWithOptions(client, 0, externalversions.WithNamespace(ns)), nil
			})
			if err != nil {
				return nil, err
			}
			opts := testControllerOptions(name, client, factory.Crddemo().V1().Mydemos().TypedInformer(),
				func(_ context.Context, obj *crddemov1.Mydemo) (controller.Result, error) {
					if obj.Labels[bombLabel] == "true" {
						n := calls.add(obj.Name, false)
						panic(fmt.Sprintf("e2e: deliberate panic %d reconciling %s", n, obj.Name))
					}
					calls.add(obj.Name, true)
					markReady(obj)
					return controller.Result{}, nil
				})
			opts.Recorder = mc.EventRecorder(scheme.Scheme, name)
			return controller.New(opts)
		})
	})
	before, err := scrape(mgr.addr)
	if err != nil {
		t.Fatal(err)
	}
	panics := func(m metrics) float64 {
		return m.get(t, "controller_runtime_reconcile_panics_total", "controller", name)
	}

	create := func(n string, labels map[string]string) {
		t.Helper()
		obj := newMydemo(ns, n, "10.0.0.1", 80, nil)
		obj.Labels = labels
		if _, err := md.CrddemoV1().Mydemos(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("before", nil)
	waitTestReady(t, md, ns, "before")
	create("bomb", map[string]string{bombLabel: "true"})
	// The panic is retried with backoff: wait for a few, so that the
	// worker is known to have survived more than one.
	poll(t, time.Minute, 50*time.Millisecond, "repeated panics", func() (bool, string) {
		m, err := scrape(mgr.addr)
		if err != nil {
			return false, err.Error()
		}
		d := panics(m) - panics(before)
		return d >= 3, fmt.Sprintf("%v panics counted", d)
	})
	create("after", nil)
	waitTestReady(t, md, ns, "after")

	if exited, err := mgr.exited(); exited {
		t.Fatalf("the manager stopped: %v", err)
	}
	if code, body, err := httpGet("http://" + mgr.addr + "/healthz"); err != nil || code != http.StatusOK {
		t.Fatalf("/healthz: %d %s %v", code, body, err)
	}
	after, err := scrape(mgr.addr)
	if err != nil {
		t.Fatal(err)
	}
	// The bomb keeps panicking on its retries, so the counts read before
	// are at most the panics that have happened by now. With one worker,
	// the third panic was fully handled before "after" was reconciled.
	n := len(calls.get("bomb"))
	if d := panics(after) - panics(before); d < 3 || d > float64(n) {
		t.Errorf("%v panics counted, %d happened", d, n)
	}
	if d := after.get(t, "controller_runtime_reconcile_total", "controller", name, "result", "error") -
		before.get(t, "controller_runtime_reconcile_total", "controller", name, "result", "error"); d < 3 || d > float64(n) {
		t.Errorf(`controller_runtime_reconcile_total{result="error"} grew by %v for %d panics`, d, n)
	}
	bomb, err := md.CrddemoV1().Mydemos(ns).Get(ctx, "bomb", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if meta.FindStatusCondition(bomb.Status.Conditions, "Ready") != nil || bomb.Status.ObservedGeneration != 0 {
		t.Errorf("a panicking Reconcile changed the status: %+v", bomb.Status)
	}
	ev := waitEvent(t, kc, ns, "bomb", "ReconcilePanic")
	if ev.Type != corev1.EventTypeWarning || !strings.Contains(ev.Message, "deliberate panic") {
		t.Errorf("event %s %s: %q", ev.Type, ev.Reason, ev.Message)
	}
	t.Logf("%d panics recovered; before and after reconciled; manager still running", n)
}

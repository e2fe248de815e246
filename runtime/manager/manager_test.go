package manager

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

func TestEnabledFollowsControllerManagerRules(t *testing.T) {
	for _, tc := range []struct {
		list string
		want bool
	}{
		{"*", true},
		{"*,-foo", false},
		{"-foo,*", false},
		{"foo", true},
		{"bar", false},
		{"", false},
		{"foo,-foo", true},
	} {
		if got := enabled("foo", splitList(tc.list)); got != tc.want {
			t.Errorf("enabled(foo, %q) = %v, want %v", tc.list, got, tc.want)
		}
	}
}

func TestFlagsOverrideDefaults(t *testing.T) {
	o := DefaultOptions()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	o.AddFlags(fs)
	err := fs.Parse([]string{"--controllers", "*,-noisy", "--workers", "8", "--kube-api-qps", "50.5",
		"--leader-elect=false", "--resync", "30s", "--kubeconfig", "/k"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.Controllers, ",") != "*,-noisy" || o.Workers != 8 || o.QPS != 50.5 || o.LeaderElect || o.Resync != 30*time.Second || o.Kubeconfig != "/k" {
		t.Fatalf("options after flags: %+v", o)
	}
	if d := DefaultOptions(); !d.MetricsSecure || d.MetricsAddr != ":8443" || d.HealthAddr != ":8081" {
		t.Fatalf("default metrics: secure %v on %q, probes on %q; kubebuilder's are secure on :8443, probes on :8081", d.MetricsSecure, d.MetricsAddr, d.HealthAddr)
	}
	o = DefaultOptions()
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	o.AddFlags(fs)
	err = fs.Parse([]string{"--metrics-secure=false", "--metrics-cert-dir", "/certs", "--metrics-cert-name", "c.pem", "--metrics-cert-key", "k.pem"})
	if err != nil {
		t.Fatal(err)
	}
	if o.MetricsSecure || o.MetricsCertDir != "/certs" || o.MetricsCertName != "c.pem" || o.MetricsCertKey != "k.pem" {
		t.Fatalf("metrics options after flags: %+v", o)
	}
	if d := DefaultOptions(); d.QPS < 100 || d.Burst < 200 {
		t.Fatalf("default client limits %v/%d would throttle a controller", d.QPS, d.Burst)
	}
}

type fakeFactory struct {
	started, shut atomic.Int32
	informers     []clientcache.SharedIndexInformer
}

func (f *fakeFactory) StartWithContext(ctx context.Context) {
	f.started.Add(1)
	for _, inf := range f.informers {
		go inf.RunWithContext(ctx)
	}
}
func (f *fakeFactory) Shutdown()                                    { f.shut.Add(1) }
func (f *fakeFactory) Informers() []clientcache.SharedIndexInformer { return f.informers }

type otherFactory struct{ fakeFactory }

func TestSharedFactoryIsBuiltOncePerKey(t *testing.T) {
	mc := &Context{shared: map[string]Factory{}}
	built := 0
	newF := func() (*fakeFactory, error) { built++; return &fakeFactory{}, nil }
	a, _ := SharedFactory(mc, "clientset-a", newF)
	b, _ := SharedFactory(mc, "clientset-a", newF)
	if a != b || built != 1 || len(mc.factories) != 1 {
		t.Fatalf("same key built %d factories", built)
	}
	if _, err := SharedFactory(mc, "clientset-a", func() (*otherFactory, error) { return &otherFactory{}, nil }); err == nil {
		t.Fatal("a factory of another type under the same key gave no error")
	}
}

func TestClientConfigSharesOneRateLimiter(t *testing.T) {
	mc := &Context{Config: &rest.Config{Host: "https://127.0.0.1:1", QPS: 20, Burst: 30}}
	a, b := mc.ClientConfig(), mc.ClientConfig()
	if a.RateLimiter == nil || a.RateLimiter.QPS() != 20 || a.RateLimiter == b.RateLimiter || mc.Config.RateLimiter != nil {
		t.Errorf("ClientConfig: limiter %v (QPS 20 wanted), a second call's %v, Config's %v", a.RateLimiter, b.RateLimiter, mc.Config.RateLimiter)
	}
	// Every client built from the config waits on its limiter.
	cs, err := kubernetes.NewForConfig(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range []rest.Interface{cs.CoreV1().RESTClient(), cs.AppsV1().RESTClient()} {
		if got := rc.GetRateLimiter(); got != a.RateLimiter {
			t.Errorf("a client of the config has the rate limiter %v, not the config's", got)
		}
	}
	// Without a positive QPS and Burst, the clientsets decide, as before.
	mc.Config.QPS = 0
	if c := mc.ClientConfig(); c.RateLimiter != nil {
		t.Errorf("QPS 0: limiter %v", c.RateLimiter)
	}
}

// kubeconfig writes a kubeconfig for a server that is never called: with
// leader election off and no events, the manager needs no apiserver.
func kubeconfig(t *testing.T) string {
	t.Helper()
	return kubeconfigFor(t, "http://127.0.0.1:1", "")
}

// kubeconfigFor writes a kubeconfig for the server at url, with extra
// settings of the cluster ("key: value, ...").
func kubeconfigFor(t *testing.T, url, clusterExtra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "` + url + `", ` + clusterExtra + `}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunServesReadinessAndMetricsAndStopsOnCancel(t *testing.T) {
	server := cachetest.NewServer[*corev1.ConfigMap](schema.GroupResource{Resource: "configmaps"})
	server.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	server.SetDown(true) // the informer cannot sync until the test says so
	reconciled := make(chan string, 10)
	addr := freeAddr(t)
	o := DefaultOptions()
	o.Kubeconfig, o.LeaderElect, o.MetricsAddr, o.HealthAddr = kubeconfig(t), false, addr, addr
	o.MetricsSecure = false // one plain server for both
	o.Controllers = []string{"*", "-disabled"}
	m := New(o)
	factory := &fakeFactory{}
	m.Register("configmaps", func(ctx context.Context, mc *Context) (Runnable, error) {
		f, err := SharedFactory(mc, "core", func() (*fakeFactory, error) { return factory, nil })
		if err != nil {
			return nil, err
		}
		inf := cache.NewSharedIndexInformer[*corev1.ConfigMap](server.ListerWatcher(), 0, nil)
		f.informers = append(f.informers, inf)
		return controller.New(controller.Options[*corev1.ConfigMap]{
			Name: "configmaps", Informer: inf, DeepCopy: (*corev1.ConfigMap).DeepCopy,
			Reconcile: func(_ context.Context, obj *corev1.ConfigMap) (controller.Result, error) {
				reconciled <- obj.Name
				return controller.Result{}, nil
			},
		})
	})
	m.Register("disabled", func(context.Context, *Context) (Runnable, error) {
		return nil, fmt.Errorf("a disabled controller was built")
	})

	observed := make(chan controller.Reconciled, 10)
	ctx, cancel := context.WithCancel(controller.WithReconcileObserver(context.Background(), func(r controller.Reconciled) { observed <- r }))
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()

	eventually(t, "health server", func() bool { code, _ := get("http://" + addr + "/healthz"); return code == 200 })
	if code, _ := get("http://" + addr + "/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz = %d before the informers synced", code)
	}
	server.SetDown(false)
	if name := <-reconciled; name != "a" {
		t.Fatalf("reconciled %q", name)
	}
	if r := <-observed; r.Controller != "configmaps" || r.Key != cache.NewObjectName("ns", "a") {
		t.Fatalf("the observer of Run's context saw a reconcile of %s by %q", r.Key, r.Controller)
	}
	eventually(t, "ready", func() bool { code, _ := get("http://" + addr + "/readyz"); return code == 200 })
	var lastBody string
	defer func() {
		if t.Failed() {
			for _, l := range strings.Split(lastBody, "\n") {
				if strings.HasPrefix(l, "informer") || strings.HasPrefix(l, "controller_runtime_reconcile_total") {
					t.Log(l)
				}
			}
		}
	}()
	eventually(t, "reconcile metric", func() bool {
		_, body := get("http://" + addr + "/metrics")
		lastBody = body
		// The metrics are per process, so a repeated test sees earlier counts.
		return regexp.MustCompile(`controller_runtime_reconcile_total\{controller="configmaps",result="success"\} [1-9]`).MatchString(body) &&
			strings.Contains(body, `informer_handler_backlog{handler="configmaps",informer="*v1.ConfigMap"} 0`) &&
			strings.Contains(body, `workqueue_adds_total{controller="configmaps",name="configmaps"}`)
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if factory.started.Load() != 1 || factory.shut.Load() != 1 {
		t.Fatalf("factory started %d, shut down %d times", factory.started.Load(), factory.shut.Load())
	}
}

func TestScopeFlagsParseAndRefuseBadValues(t *testing.T) {
	o := DefaultOptions()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--namespaces", "team-a, team-b", "--label-selector", "app=foo,tier!=cache"}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.DefaultNamespaces, ",") != "team-a,team-b" || o.DefaultLabelSelector != "app=foo,tier!=cache" {
		t.Fatalf("after flags: namespaces %q, label selector %q", o.DefaultNamespaces, o.DefaultLabelSelector)
	}
	for _, args := range [][]string{
		{"--namespaces", "Team_A"},
		{"--label-selector", "=x"},
		{"--label-selector", "app in (a"},
	} {
		o := DefaultOptions()
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.AddFlags(fs)
		err := fs.Parse(args)
		if err == nil {
			t.Errorf("%q parsed", args)
			continue
		}
		t.Logf("%q: %v", args, err)
	}
	// Options set in code are checked when Run starts.
	o = DefaultOptions()
	o.DefaultNamespaces = []string{"not a namespace"}
	if err := New(o).Run(t.Context()); err == nil || !strings.Contains(err.Error(), "not a namespace") {
		t.Errorf("Run with a bad namespace: %v", err)
	}
}

// scopableFactory records what the manager sets.
type scopableFactory struct {
	fakeFactory
	namespace  string
	namespaces []string
	tweak      func(*metav1.ListOptions)
}

func (f *scopableFactory) Namespace() string                               { return f.namespace }
func (f *scopableFactory) SetNamespaces(ns []string)                       { f.namespaces = ns }
func (f *scopableFactory) TweakListOptions() func(*metav1.ListOptions)     { return f.tweak }
func (f *scopableFactory) SetTweakListOptions(t func(*metav1.ListOptions)) { f.tweak = t }

func TestSharedFactoryIsScopedToTheOptions(t *testing.T) {
	mc := &Context{shared: map[string]Factory{}, Options: Options{DefaultNamespaces: []string{"a", "b"}, DefaultLabelSelector: "app=foo"}}
	f, err := SharedFactory(mc, "scoped", func() (*scopableFactory, error) {
		return &scopableFactory{tweak: func(o *metav1.ListOptions) { o.LabelSelector = "mine=yes" }}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.namespaces, ",") != "a,b" {
		t.Errorf("namespaces %v, want a,b", f.namespaces)
	}
	var lo metav1.ListOptions
	f.tweak(&lo)
	if lo.LabelSelector != "mine=yes,app=foo" {
		t.Errorf("label selector %q, want the factory's own and the manager's", lo.LabelSelector)
	}
	if _, err := SharedFactory(mc, "other", func() (*fakeFactory, error) { return &fakeFactory{}, nil }); err == nil {
		t.Error("a factory that cannot be scoped was accepted with a scope set")
	}
	if _, err := SharedFactory(mc, "limited", func() (*scopableFactory, error) { return &scopableFactory{namespace: "c"}, nil }); err == nil {
		t.Error("a factory limited to another namespace was accepted")
	}
	unscoped := &Context{shared: map[string]Factory{}}
	if _, err := SharedFactory(unscoped, "other", func() (*fakeFactory, error) { return &fakeFactory{}, nil }); err != nil {
		t.Errorf("without a scope: %v", err)
	}
}

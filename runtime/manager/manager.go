// Package manager runs named controllers the way kube-controller-manager
// does: controllers register init functions, one shared informer factory
// per clientset is started once every controller has asked for its
// informers, and the controllers run while this process holds a leader
// Lease. It serves /healthz and /readyz over plain HTTP, /metrics over
// HTTPS to tokens the apiserver allows to get it (see Options), and stops
// gracefully.
package manager

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clientcache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	"github.com/ctrlgen/ctrlgen/runtime/manager/metrics"
	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// Runnable is a controller: runtime/controller.Controller is one.
type Runnable interface {
	Name() string
	// HasSynced reports whether the controller's informers have synced.
	HasSynced() bool
	// Run reconciles until ctx is done, then drains and returns. It is
	// called once per leadership term.
	Run(ctx context.Context, workers int) error
}

// InitFunc builds one controller. It asks mc for the shared informer
// factories it needs and registers its informers with them; the manager
// starts the factories once every InitFunc has run. A nil Runnable with a
// nil error means the controller chose not to run.
type InitFunc func(ctx context.Context, mc *Context) (Runnable, error)

type registration struct {
	name string
	init InitFunc
}

var (
	globalLock sync.Mutex
	global     []registration
)

// Register adds a controller to every Manager created afterwards, usually
// from an init function, as kube-controller-manager's
// NewControllerInitializers lists its controllers.
func Register(name string, init InitFunc) {
	globalLock.Lock()
	defer globalLock.Unlock()
	global = append(global, registration{name: name, init: init})
}

// Manager runs registered controllers.
type Manager struct {
	opts     Options
	regs     []registration
	webhooks []webhookRegistration
	registry *prometheus.Registry
	ready    atomic.Bool
	leading  prometheus.Gauge
}

// New returns a manager with the controllers registered so far. It makes
// its registry the process-wide default of runtime/controller's and
// runtime/workqueue's metrics (their SetDefaultMetricsProvider): the
// generated controllers are built without a provider, so controllers and
// queues created afterwards report to the manager created last.
func New(opts Options) *Manager {
	globalLock.Lock()
	regs := append([]registration(nil), global...)
	webhooks := append([]webhookRegistration(nil), globalWebhooks...)
	globalLock.Unlock()
	if opts.LeaderElectionID == "" {
		opts.LeaderElectionID = filepath.Base(os.Args[0])
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	m := &Manager{opts: opts, regs: regs, webhooks: webhooks, registry: prometheus.NewRegistry()}
	m.leading = prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "leader_election_master_status",
		Help:        "1 while this process holds the leader lease, 0 otherwise.",
		ConstLabels: prometheus.Labels{"name": opts.LeaderElectionID},
	})
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), m.leading)
	controller.SetDefaultMetricsProvider(metrics.NewControllerMetricsProvider(m.registry))
	workqueue.SetDefaultMetricsProvider(metrics.NewWorkqueueMetricsProvider(m.registry))
	return m
}

// Register adds a controller to this manager.
func (m *Manager) Register(name string, init InitFunc) {
	m.regs = append(m.regs, registration{name: name, init: init})
}

// Registry is where the manager's /metrics come from; controllers may
// register their own collectors on it.
func (m *Manager) Registry() *prometheus.Registry { return m.registry }

// Ready reports whether every controller's informers have synced.
func (m *Manager) Ready() bool { return m.ready.Load() }

// Context is what an InitFunc gets.
type Context struct {
	// Config is the client configuration, with the manager's rate limits.
	Config  *rest.Config
	Options Options

	lock        sync.Mutex
	shared      map[string]Factory
	factories   []Factory
	broadcaster record.EventBroadcaster
	registry    *prometheus.Registry
}

// Factory is a shared informer factory, as generated under
// informers/externalversions.
type Factory interface {
	StartWithContext(ctx context.Context)
	Shutdown()
}

// SharedFactory returns the factory stored under key, building it with
// newFactory the first time, so that controllers using the same clientset
// share one set of informers. The manager starts it after every controller
// has been built. A generated factory is limited, before it is returned, to
// the Options' DefaultNamespaces and DefaultLabelSelector.
func SharedFactory[F Factory](mc *Context, key string, newFactory func() (F, error)) (F, error) {
	mc.lock.Lock()
	defer mc.lock.Unlock()
	if f, ok := mc.shared[key]; ok {
		typed, ok := f.(F)
		if !ok {
			var zero F
			return zero, fmt.Errorf("shared factory %q is a %T, not a %T", key, f, zero)
		}
		return typed, nil
	}
	f, err := newFactory()
	if err != nil {
		return f, err
	}
	if err := mc.Options.scope(f); err != nil {
		return f, fmt.Errorf("shared factory %q: %w", key, err)
	}
	mc.shared[key] = f
	mc.factories = append(mc.factories, f)
	return f, nil
}

// ClientConfig returns a copy of Config with a client-side rate limiter
// of its own, from Config's QPS and Burst (when Config has no limiter and
// a positive QPS and Burst): every clientset built from the copy shares
// that one limit, as the typed clients of one clientset do. A controller
// that talks through two clientsets, its project's and client-go's for the
// built-in kinds, builds both from one ClientConfig and so keeps the one
// budget a controller with one clientset has.
func (mc *Context) ClientConfig() *rest.Config {
	cfg := rest.CopyConfig(mc.Config)
	if cfg.RateLimiter == nil && cfg.QPS > 0 && cfg.Burst > 0 {
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	return cfg
}

// EventRecorder returns a recorder for component; scheme must know the
// types of the objects events are recorded about.
func (mc *Context) EventRecorder(scheme *runtime.Scheme, component string) record.EventRecorder {
	return mc.broadcaster.NewRecorder(scheme, eventSource(component))
}

// Registry is the manager's metrics registry.
func (mc *Context) Registry() *prometheus.Registry { return mc.registry }

// informers lists the informers of every shared factory that can list them.
func (mc *Context) informers() []cache.Informer {
	mc.lock.Lock()
	factories := append([]Factory(nil), mc.factories...)
	mc.lock.Unlock()
	var out []cache.Informer
	for _, f := range factories {
		src, ok := f.(interface {
			Informers() []clientcache.SharedIndexInformer
		})
		if !ok {
			continue
		}
		for _, inf := range src.Informers() {
			if m, ok := inf.(cache.Informer); ok {
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(a, b cache.Informer) int { return strings.Compare(a.Description(), b.Description()) })
	return out
}

// RunWithSignals runs until SIGINT or SIGTERM, then shuts down gracefully;
// a second signal exits at once.
func (m *Manager) RunWithSignals(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal now kills the process
	}()
	return m.Run(ctx)
}

// Run builds the enabled controllers, starts the informers, and runs the
// controllers (while leading, with leader election) until ctx is done.
// The controllers run with contexts derived from ctx, so they see its
// values, such as a controller.WithReconcileObserver.
func (m *Manager) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	if err := m.opts.validateScope(); err != nil {
		return err
	}
	cfg, err := m.restConfig()
	if err != nil {
		return err
	}
	registerClientMetrics(m.registry)
	eventClient, err := newEventSink(cfg)
	if err != nil {
		return err
	}
	mc := &Context{Config: cfg, Options: m.opts, shared: map[string]Factory{}, registry: m.registry,
		broadcaster: record.NewBroadcaster(record.WithContext(ctx))}
	mc.broadcaster.StartRecordingToSink(eventClient)
	defer mc.broadcaster.Shutdown()

	var runs []Runnable
	for _, r := range m.regs {
		if !enabled(r.name, m.opts.Controllers) {
			logger.Info("Controller is disabled", "controller", r.name)
			continue
		}
		c, err := r.init(ctx, mc)
		if err != nil {
			return fmt.Errorf("controller %s: %w", r.name, err)
		}
		if c == nil {
			logger.Info("Controller chose not to run", "controller", r.name)
			continue
		}
		runs = append(runs, c)
	}
	m.registry.MustRegister(metrics.NewInformerCollector(mc.informers))
	webhooks, err := m.buildWebhooks(ctx, mc, cfg)
	if err != nil {
		return err
	}

	stopServers, err := m.serve(ctx, cfg, webhooks)
	if err != nil {
		return err
	}
	defer stopServers()

	// Informers run for the whole process, leader or not, so a new leader
	// starts with warm caches.
	informerCtx, cancelInformers := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		cancelInformers()
		for _, f := range mc.factories {
			f.Shutdown()
		}
	}()
	for _, f := range mc.factories {
		f.StartWithContext(informerCtx)
	}
	go m.watchReady(ctx, runs)

	switch {
	case m.opts.Shards > 0:
		err = m.runSharded(ctx, cfg, runs)
	case !m.opts.LeaderElect:
		err = m.runControllers(ctx, runs)
	default:
		err = m.lead(ctx, cfg, runs)
	}
	if err == nil && webhooks != nil {
		// A manager with no controllers to run still serves its webhooks.
		<-ctx.Done()
	}
	return err
}

func (m *Manager) watchReady(ctx context.Context, runs []Runnable) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		all := true
		for _, r := range runs {
			all = all && r.HasSynced()
		}
		if all {
			m.ready.Store(true)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runControllers runs every controller until ctx is done and they have
// drained.
func (m *Manager) runControllers(ctx context.Context, runs []Runnable) error {
	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for i, r := range runs {
		wg.Go(func() { errs[i] = r.Run(ctx, m.opts.Workers) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil // errors from being stopped while waiting for caches
	}
	return errors.Join(errs...)
}

func (m *Manager) restConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if m.opts.RESTConfig != nil {
		cfg = rest.CopyConfig(m.opts.RESTConfig)
	} else if m.opts.Kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", m.opts.Kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
		if err != nil {
			cfg, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
				clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("client config: %w", err)
	}
	cfg.QPS, cfg.Burst = m.opts.QPS, m.opts.Burst
	return cfg, nil
}

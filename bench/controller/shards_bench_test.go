package controllerbench

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

var (
	shardedMydemos = flag.Int("sharded-mydemos", 3000, "Mydemos per BenchmarkShardedReplicas run")
	externalCall   = flag.Duration("external-call", 20*time.Millisecond, "how long each reconcile waits on its stand-in for a cloud API in BenchmarkShardedReplicas")
	shardWorkers   = flag.Int("shard-workers", 4, "workers per replica in BenchmarkShardedReplicas")
)

const (
	benchShards         = 12
	shardRetryPeriod    = 2 * time.Second
	shardLeaseGroupName = "bench-shards"
)

// slowWrites stands in for a cloud API that each reconcile calls: every
// request of the client it wraps waits first, and its writes are counted.
type slowWrites struct {
	rt     http.RoundTripper
	delay  time.Duration
	writes *atomic.Int64
}

func (s slowWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(s.delay)
	if r.Method != http.MethodGet {
		s.writes.Add(1)
	}
	return s.rt.RoundTrip(r)
}

// shardedInit is mydemo.Init on clients whose every request is an
// external call of *externalCall: the ConfigMap create and the status
// update of each new Mydemo.
func shardedInit(writes *atomic.Int64) manager.InitFunc {
	return func(_ context.Context, mc *manager.Context) (manager.Runnable, error) {
		cfg := mc.ClientConfig()
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return slowWrites{rt: rt, delay: *externalCall, writes: writes}
		})
		client, err := versioned.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		kube, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		factory, err := manager.SharedFactory(mc, "bench/slow-mydemo", func() (externalversions.SharedInformerFactory, error) {
			return externalversions.NewSharedInformerFactory(client, 0), nil
		})
		if err != nil {
			return nil, err
		}
		kubeFactory, err := manager.SharedFactory(mc, "bench/slow-kube", func() (kubeinformers.SharedInformerFactory, error) {
			return kubeinformers.NewSharedInformerFactory(kube, 0), nil
		})
		if err != nil {
			return nil, err
		}
		return mydemo.New(client, factory, kube, kubeFactory, mc.EventRecorder(scheme.Scheme, mydemo.ControllerName))
	}
}

// BenchmarkShardedReplicas measures the time from the first Mydemo create
// to the last seen Ready, with 1, 2 and 3 replicas of the mydemo
// controller sharing the work by --shards (12 buckets), at
// -shard-workers workers each (4 by default), when every reconcile waits 20 ms on an external call per request
// (see slowWrites). The replicas run in this process, each a manager with
// its own clients and caches. Metrics: s, writes/object (the controllers'
// writes per Mydemo: sharding must add none), lease-req/s (the
// apiserver's Lease requests per second during the run, from its
// apiserver_request_total) and heap-MiB/replica (this process's heap
// after a GC once every Mydemo is Ready, less its heap before the
// replicas started, over the replicas: every replica caches every Mydemo
// and ConfigMap, so it does not fall as replicas are added).
func BenchmarkShardedReplicas(b *testing.B) {
	h := controlPlane(b)
	for _, replicas := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			b.StopTimer()
			var elapsed time.Duration
			var writes, leaseReqs, heap float64
			for range b.N {
				r := h.runSharded(b, replicas, *shardedMydemos)
				elapsed += r.elapsed
				writes += r.writesPerObject
				leaseReqs += r.leaseReqPerSec
				heap += r.heapPerReplica
			}
			runs := float64(b.N)
			b.ReportMetric(elapsed.Seconds()/runs, "s")
			b.ReportMetric(writes/runs, "writes/object")
			b.ReportMetric(leaseReqs/runs, "lease-req/s")
			b.ReportMetric(heap/runs/(1<<20), "heap-MiB/replica")
		})
	}
}

type shardedRun struct {
	elapsed                                         time.Duration
	writesPerObject, leaseReqPerSec, heapPerReplica float64
}

func (h *harness) runSharded(tb testing.TB, replicas, n int) shardedRun {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), *readyTimeout+5*time.Minute)
	defer cancel()
	h.settle(tb)
	ns, err := h.admin.Kube.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-shards-"}}, metav1.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer h.deleteNamespace(tb, ns.Name)

	heapBefore := heapAfterGC()
	var writes atomic.Int64
	var managers []*manager.Manager
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, replicas)
	for range replicas {
		o := manager.DefaultOptions()
		o.Kubeconfig = h.kubeconfig
		o.Workers = *shardWorkers
		o.Shards = benchShards
		o.LeaderElectionNamespace = ns.Name
		o.LeaderElectionID = shardLeaseGroupName
		o.RetryPeriod = shardRetryPeriod
		o.MetricsAddr, o.HealthAddr = "", ""
		m := manager.New(o)
		m.Register(mydemo.ControllerName, shardedInit(&writes))
		managers = append(managers, m)
		go func() { done <- m.Run(runCtx) }()
	}
	defer func() {
		stop()
		for range replicas {
			if err := <-done; err != nil {
				tb.Error(err)
			}
		}
	}()
	if err := benchenv.Poll(ctx, time.Minute, "each replica holding its share of the buckets", func() (bool, error) {
		for _, m := range managers {
			if held, err := gauge(m, "ctrlgen_shard_buckets_held"); err != nil || int(held) != benchShards/replicas {
				return false, err
			}
		}
		return true, nil
	}); err != nil {
		tb.Fatal(err)
	}

	watcher, err := watchReady(ctx, h.admin.Mydemo, ns.Name, n)
	if err != nil {
		tb.Fatal(err)
	}
	leasesBefore, err := apiserverLeaseRequests(ctx, h.env.Config())
	if err != nil {
		tb.Fatal(err)
	}
	writes.Store(0)
	start := time.Now()
	if _, err := createMydemos(ctx, h.admin.Mydemo, ns.Name, n, 32, nil); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-watcher.done:
	case <-ctx.Done():
		tb.Fatalf("%d of %d Mydemos Ready: %v", watcher.count(), n, ctx.Err())
	}
	elapsed := watcher.last.Sub(start)
	leasesAfter, err := apiserverLeaseRequests(ctx, h.env.Config())
	if err != nil {
		tb.Fatal(err)
	}
	leaseRate := (leasesAfter - leasesBefore) / time.Since(start).Seconds()
	h.check(tb, ctx, ns.Name, n)
	heap := float64(heapAfterGC()) - float64(heapBefore)
	return shardedRun{
		elapsed:         elapsed,
		writesPerObject: float64(writes.Load()) / float64(n),
		leaseReqPerSec:  leaseRate,
		heapPerReplica:  heap / float64(replicas),
	}
}

// heapAfterGC is the process's live heap: HeapAlloc right after a GC.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// gauge reads a gauge of m's registry.
func gauge(m *manager.Manager, name string) (float64, error) {
	families, err := m.Registry().Gather()
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) > 0 {
			return f.GetMetric()[0].GetGauge().GetValue(), nil
		}
	}
	return 0, fmt.Errorf("no metric %s", name)
}

// apiserverLeaseRequests sums the apiserver's apiserver_request_total for
// Leases, every verb and code.
func apiserverLeaseRequests(ctx context.Context, cfg *rest.Config) (float64, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, err
	}
	var total float64
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="leases"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, err
		}
		total += v
	}
	return total, sc.Err()
}

// Package metadata measures what a cached Secret costs a controller's
// heap when the informer holds the whole object (runtime/kube's Secret
// informer) and when it holds its metadata alone (runtime/metadatainformer,
// what +ctrlgen:controller:owns=…,metadataOnly wires), on the same Secrets
// of the real apiserver.
package metadata

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
	"github.com/ctrlgen/ctrlgen/runtime/metadatainformer"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// sides are the two caches, in the order a round starts with.
var sides = []string{"whole", "metadata"}

var shared benchenv.Shared[*harness]

func TestMain(m *testing.M) { shared.Main(m) }

type harness struct {
	env  *testenv.Env
	kube kubernetes.Interface
	meta metadata.Interface
	// ns holds the Secrets, n of them so far.
	ns string
	n  int
	mu sync.Mutex
}

func (h *harness) Stop() error { return h.env.Stop() }

func controlPlane(tb testing.TB) *harness {
	return shared.Get(tb, "needs a local control plane (testenv)", func() (_ *harness, err error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		env, err := testenv.Start(ctx, testenv.Options{DisableControllerManager: true})
		if err != nil {
			return nil, fmt.Errorf("starting the control plane: %w", err)
		}
		cfg := env.Config()
		cfg.QPS, cfg.Burst = -1, 0
		h := &harness{env: env, kube: kubernetes.NewForConfigOrDie(cfg), meta: metadata.NewForConfigOrDie(cfg)}
		ns, err := h.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "metadata-"}}, metav1.CreateOptions{})
		if err != nil {
			env.Stop()
			return nil, err
		}
		h.ns = ns.Name
		return h, nil
	})
}

// secrets makes sure the namespace holds n Secrets of 4 KiB of data
// each, labelled and owned as a controller's children are.
func (h *harness) secrets(tb testing.TB, n int) {
	tb.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	ctx := context.Background()
	next := atomic.Int64{}
	next.Store(int64(h.n))
	var wg sync.WaitGroup
	var failed atomic.Value
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				_, err := h.kube.CoreV1().Secrets(h.ns).Create(ctx, &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{
						Name:   fmt.Sprintf("s-%06d", i),
						Labels: map[string]string{"app.kubernetes.io/name": "bench", "set": fmt.Sprintf("set-%d", i%100)},
						OwnerReferences: []metav1.OwnerReference{{APIVersion: "sets.ctrlgen.io/v1", Kind: "SecretSet",
							Name: fmt.Sprintf("set-%d", i%100), UID: "00000000-0000-0000-0000-000000000001"}},
					},
					Data: map[string][]byte{"key": bytes.Repeat([]byte{byte('a' + i%26)}, 4096)},
				}, metav1.CreateOptions{})
				if err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		tb.Fatal(err)
	}
	h.n = max(h.n, n)
}

// cache starts side's informer of the namespace's Secrets, waits for it
// to sync, and returns the live heap it added and the number of objects
// it holds; the informer is stopped afterwards.
func (h *harness) cache(tb testing.TB, side string) (heap uint64, objects int) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := liveHeap()
	var informer clientcache.SharedIndexInformer
	var shutdown func()
	switch side {
	case "whole":
		f := kubeinformers.NewSharedInformerFactoryWithOptions(h.kube, 0, kubeinformers.WithNamespace(h.ns))
		informer = f.Core().V1().Secrets().Informer()
		f.Start(ctx.Done())
		shutdown = f.Shutdown
	case "metadata":
		f := metadatainformer.NewFilteredSharedInformerFactory(h.meta, 0, h.ns, nil)
		informer = f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Informer()
		f.Start(ctx.Done())
		shutdown = f.Shutdown
	}
	if !clientcache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		tb.Fatalf("%s: not synced", side)
	}
	after := liveHeap()
	objects = len(informer.GetStore().ListKeys())
	runtime.KeepAlive(informer)
	cancel()
	shutdown()
	return after - min(before, after), objects
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

var round atomic.Int32

// BenchmarkSecretCache: heap-B/object is the live heap an informer of
// BENCH_N (default 5000) Secrets of 4 KiB data holds per cached Secret,
// whole or as metadata alone. Rounds (-count) alternate which goes
// first.
func BenchmarkSecretCache(b *testing.B) {
	h := controlPlane(b)
	h.secrets(b, benchN)
	order := slices.Clone(sides)
	if round.Add(1)%2 == 0 {
		slices.Reverse(order)
	}
	for _, side := range order {
		b.Run("cache="+side, func(b *testing.B) {
			heap, objects := h.cache(b, side)
			if objects != benchN {
				b.Fatalf("%s cached %d Secrets, want %d", side, objects, benchN)
			}
			b.ReportMetric(float64(heap)/float64(objects), "heap-B/object")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestMetadataCacheIsSmaller checks the harness at a small size: both
// caches hold every Secret, and the metadata one less heap.
func TestMetadataCacheIsSmaller(t *testing.T) {
	h := controlPlane(t)
	h.secrets(t, 200)
	whole, n := h.cache(t, "whole")
	meta, m := h.cache(t, "metadata")
	if n != 200 || m != 200 {
		t.Fatalf("cached %d whole and %d as metadata, want 200 each", n, m)
	}
	if meta >= whole {
		t.Errorf("metadata cache %d B, not below the whole cache's %d B", meta, whole)
	}
	t.Logf("200 Secrets of 4 KiB: whole %d B/object, metadata %d B/object", whole/200, meta/200)
}

var benchN = benchenv.EnvInt("BENCH_N", 5000)

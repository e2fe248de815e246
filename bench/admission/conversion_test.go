package admission

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
)

// listSize is the Mydemos a conversion list holds.
const listSize = 1000

var crds = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// convertedNamespace holds listSize Mydemos, stored as v1 (the hub), made
// once per control plane; the admission webhooks do not look at it.
var convertedNamespace struct {
	once sync.Once
	name string
	err  error
}

// mydemosToConvert returns the namespace of the Mydemos lists convert.
func (h *harness) mydemosToConvert(tb testing.TB) string {
	tb.Helper()
	c := &convertedNamespace
	c.once.Do(func() {
		ctx := context.Background()
		ns, err := h.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "conversion-"}}, metav1.CreateOptions{})
		if err != nil {
			c.err = err
			return
		}
		c.name = ns.Name
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < listSize; i += 8 {
					m := mydemo(c.name, fmt.Sprintf("m-%04d", i), fmt.Sprintf("10.0.%d.%d", i/256, i%256))
					m.Spec.Port = int32(i + 1)
					if _, err := h.md.CrddemoV1().Mydemos(c.name).Create(ctx, m, metav1.CreateOptions{}); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		c.err = <-errs
	})
	if c.err != nil {
		tb.Fatal(c.err)
	}
	return c.name
}

// convertWith points the Mydemo CRD's conversion webhook at s, and back
// to None when the test ends.
func (h *harness) convertWith(tb testing.TB, s *server) {
	tb.Helper()
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(h.env.Config())
	patch := fmt.Sprintf(`{"spec":{"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://%s/convert","caBundle":%q}}}}}`,
		s.addr, base64.StdEncoding.EncodeToString(h.caPEM))
	if _, err := dyn.Resource(crds).Patch(ctx, "mydemos.crddemo.k8s.io", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		none := `{"spec":{"conversion":{"strategy":"None","webhook":null}}}`
		if _, err := dyn.Resource(crds).Patch(ctx, "mydemos.crddemo.k8s.io", types.MergePatchType, []byte(none), metav1.PatchOptions{}); err != nil {
			tb.Error(err)
		}
	})
	ns := h.mydemosToConvert(tb)
	err := benchenv.Poll(ctx, time.Minute, "the apiserver to convert with "+s.impl, func() (bool, error) {
		m, err := h.md.CrddemoV2().Mydemos(ns).Get(ctx, "m-0000", metav1.GetOptions{})
		return err == nil && m.Spec.Address != "", err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// convertObjects reads the listSize Mydemos as v2, one GET each, n
// times, from workers goroutines, and measures s. A GET reads etcd, so
// that every one is converted, in a ConversionReview of its own: the
// reviews the apiserver sends when it fills its cache of v2 objects for
// a list (which it then serves without converting again).
func (h *harness) convertObjects(tb testing.TB, s *server, n, workers int) result {
	tb.Helper()
	ctx := context.Background()
	v2 := h.md.CrddemoV2().Mydemos(h.mydemosToConvert(tb))
	return measure(tb, s, n*listSize, workers, func(i int) error {
		j := i % listSize
		m, err := v2.Get(ctx, fmt.Sprintf("m-%04d", j), metav1.GetOptions{})
		if err == nil && (m.Spec.Address != fmt.Sprintf("10.0.%d.%d", j/256, j%256) || m.Spec.Port != int32(j+1)) {
			err = fmt.Errorf("%s converted to %+v", m.Name, m.Spec)
		}
		return err
	})
}

// TestBothSidesConvert checks the harness: each side converts the
// listSize Mydemos, read as v2, through the real apiserver.
func TestBothSidesConvert(t *testing.T) {
	h := controlPlane(t)
	for _, impl := range impls {
		t.Run(impl, func(t *testing.T) {
			s := h.serve(t, impl)
			defer s.stop(t)
			h.convertWith(t, s)
			r := h.convertObjects(t, s, 1, 8)
			if r.cpu <= 0 {
				t.Errorf("%s used no CPU for %d conversions", impl, r.reviews)
			}
		})
	}
}

// BenchmarkConversion: b.N times the listSize Mydemos, stored as v1,
// read as v2, per side: cpu-ms/1000 is the webhook process's CPU time per
// listSize conversions (one review each, as the apiserver converts a
// list), and p50-ms and p99-ms the converted GETs' latency. Rounds
// (-count) alternate which side goes first.
func BenchmarkConversion(b *testing.B) {
	h := controlPlane(b)
	order := slices.Clone(impls)
	if conversionRound.Add(1)%2 == 0 {
		slices.Reverse(order)
	}
	for _, impl := range order {
		b.Run("impl="+impl, func(b *testing.B) {
			s := h.serve(b, impl)
			defer s.stop(b)
			h.convertWith(b, s)
			h.convertObjects(b, s, 1, benchWorkers) // warm up
			b.ResetTimer()
			r := h.convertObjects(b, s, max(b.N, 1)*listsPerOp, benchWorkers)
			b.ReportMetric(float64(r.cpu.Microseconds())/1000/float64(r.reviews/listSize), "cpu-ms/1000")
			b.ReportMetric(float64(r.p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// listsPerOp are the listSize conversions per b.N (BENCH_LISTS).
var listsPerOp = benchenv.EnvInt("BENCH_LISTS", 3)

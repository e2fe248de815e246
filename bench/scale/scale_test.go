package scale

import (
	"flag"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var (
	objects = flag.Int("objects", 100000, "objects of each kind in the benchmark")
	kinds   = flag.String("kinds", "configmaps,mydemos", "the kinds the benchmark runs, comma-separated")
	sides   = flag.String("impls", strings.Join(impls, ","), "the sides the benchmark runs, comma-separated, in the order of its even rounds: "+strings.Join(append(slices.Clone(impls), dropinImpls...), ", ")+", each also as NAME"+http1Suffix+" (its clientset speaking HTTP/1.1)")
)

// testObjects is the size TestSides checks each side at.
const testObjects = 300

// TestSides runs every side (ctrlgen, client-go, the floor, ctrlgen on
// HTTP/1.1, and the two drop-in sides) on both kinds at a small size through the benchmark's
// harness: each must list every object, deliver every add, then every
// update of both update phases.
func TestSides(t *testing.T) {
	h := controlPlane(t)
	for _, kind := range []string{kindConfigMaps, kindMydemos} {
		total := h.populate(t, kind, testObjects)
		if total < testObjects {
			t.Fatalf("%s: %d in the cluster after creating %d", kind, total, testObjects)
		}
		for _, impl := range append(append(slices.Clone(impls), implCtrlgen+http1Suffix), dropinImpls...) {
			t.Run(kind+"/"+impl, func(t *testing.T) {
				r := h.run(t, kind, impl, testObjects, total, 0)
				if r.First.N != testObjects/10 || r.Second.N != testObjects/2 {
					t.Errorf("update phases of %d and %d objects, want %d and %d", r.First.N, r.Second.N, testObjects/10, testObjects/2)
				}
				// The peak is read at sync, the steady RSS after a GC that can
				// itself grow a small process's RSS past it: they are not
				// compared.
				if r.Synced.Heap <= 0 || r.Synced.RSS <= 0 || r.Synced.PeakRSS <= 0 || r.Second.Report.Heap <= 0 {
					t.Errorf("implausible memory: synced %+v, after the updates %+v", r.Synced, r.Second.Report)
				}
				if r.Synced.SyncNanos <= 0 || r.First.Report.CPUNanos <= 0 || r.Second.Report.CPUNanos <= 0 {
					t.Errorf("implausible times: synced %+v, update phases %+v and %+v", r.Synced, r.First.Report, r.Second.Report)
				}
				// The drop-in sides' synced is the factory's WaitForCacheSync;
				// every add is delivered at or after it.
				dropin := slices.Contains(dropinImpls, impl)
				if d := r.Synced.DeliveredNanos; dropin && (d < r.Synced.SyncNanos || r.Synced.DeliveredCPUNanos < r.Synced.SyncCPUNanos) || !dropin && d != 0 {
					t.Errorf("delivered at %v (%v CPU), synced at %v (%v CPU)", time.Duration(d), time.Duration(r.Synced.DeliveredCPUNanos),
						time.Duration(r.Synced.SyncNanos), time.Duration(r.Synced.SyncCPUNanos))
				}
				if r.APIServerPeakRSS <= 0 {
					t.Error("no kube-apiserver RSS sampled during the sync")
				}
				if r.APIServerAlloc <= 0 {
					t.Errorf("kube-apiserver allocated %d bytes during the sync", r.APIServerAlloc)
				}
			})
		}
	}
}

// round counts the runs of BenchmarkInformer in this process (one per
// -count, see TestMain): odd rounds start with client-go.
var round atomic.Int64

// BenchmarkInformer runs, for each kind and each implementation, one
// informer process over -objects objects spread over 100 namespaces (four
// labels and an ownerReference each; ConfigMaps about 1 KB in protobuf,
// Mydemos as JSON), on the shared control plane. Run it with
// -benchtime=1x and -count for rounds (run.sh does). Metrics:
//
//	sync-s              start of the informer to synced, every add delivered
//	                    (the drop-in sides: to the factory's
//	                    WaitForCacheSync returning)
//	sync-cpu-s          the informer process's CPU time in that span
//	deliv-s, deliv-cpu-s the drop-in sides only: the same to every add
//	                    delivered, after WaitForCacheSync
//	peak-rss-MiB        its VmHWM at synced
//	steady-rss-MiB      its VmRSS after sync, after GC and FreeOSMemory
//	heap-MiB            its HeapAlloc then
//	upd-lag-ms          10 % of the objects patched by the harness: from
//	                    the last patch returning to its delivery
//	upd-cpu-µs/update   the process's CPU time from arming to the last
//	                    delivery, per update
//	heap-after-upd/sync then 50 % more patched: HeapAlloc after GC, over
//	                    heap-MiB
//	upd50-cpu-µs/update the process's CPU time per update in that second
//	                    phase: five times the updates of the first, so
//	                    fixed costs (a GC cycle more or less, the pages
//	                    the first phase faults back in) weigh less
//	api-cpu-s           kube-apiserver's CPU time from the process's start
//	                    to synced
//	api-alloc-MiB       what kube-apiserver allocated in that span
//	api-gc              the garbage collections it ran in that span (it
//	                    starts each side's span freshly collected)
//	api-peak-rss-MiB    kube-apiserver's largest VmRSS in that span,
//	                    sampled every 5 ms (VmHWM cannot be reset)
//	api-rss-growth-MiB  that peak minus its VmRSS before the start
func BenchmarkInformer(b *testing.B) {
	h := controlPlane(b)
	r := int(round.Add(1) - 1)
	order := splitImpls(b)
	if r%2 == 1 {
		slices.Reverse(order)
	}
	for _, kind := range splitKinds(b) {
		b.Run("kind="+kind, func(b *testing.B) {
			total := h.populate(b, kind, *objects)
			for _, impl := range order {
				b.Run("impl="+impl, func(b *testing.B) {
					var sum result
					for range b.N {
						res := h.run(b, kind, impl, *objects, total, r)
						b.Logf("%s %s round %d: synced %d in %v (%v CPU), peak RSS %d MiB, heap %d MiB → %d MiB after updates",
							kind, impl, r, res.Synced.Objects, time.Duration(res.Synced.SyncNanos).Round(time.Millisecond),
							time.Duration(res.Synced.SyncCPUNanos).Round(time.Millisecond), res.Synced.PeakRSS>>20,
							res.Synced.Heap>>20, res.Second.Report.Heap>>20)
						sum.add(res)
					}
					n := float64(b.N)
					const mib = 1 << 20
					b.ReportMetric(float64(sum.Synced.SyncNanos)/1e9/n, "sync-s")
					b.ReportMetric(float64(sum.Synced.SyncCPUNanos)/1e9/n, "sync-cpu-s")
					if sum.Synced.DeliveredNanos > 0 {
						// The drop-in sides: to every add delivered.
						b.ReportMetric(float64(sum.Synced.DeliveredNanos)/1e9/n, "deliv-s")
						b.ReportMetric(float64(sum.Synced.DeliveredCPUNanos)/1e9/n, "deliv-cpu-s")
					}
					b.ReportMetric(float64(sum.Synced.PeakRSS)/mib/n, "peak-rss-MiB")
					b.ReportMetric(float64(sum.Synced.RSS)/mib/n, "steady-rss-MiB")
					b.ReportMetric(float64(sum.Synced.Heap)/mib/n, "heap-MiB")
					b.ReportMetric(float64(sum.First.Lag)/1e6/n, "upd-lag-ms")
					b.ReportMetric(float64(sum.First.Report.CPUNanos)/1e3/float64(sum.First.N), "upd-cpu-µs/update")
					b.ReportMetric(float64(sum.Second.Report.Heap)/float64(sum.Synced.Heap), "heap-after-upd/sync")
					b.ReportMetric(float64(sum.Second.Report.CPUNanos)/1e3/float64(sum.Second.N), "upd50-cpu-µs/update")
					b.ReportMetric(sum.APIServerCPU.Seconds()/n, "api-cpu-s")
					b.ReportMetric(float64(sum.APIServerAlloc)/mib/n, "api-alloc-MiB")
					b.ReportMetric(float64(sum.APIServerGCs)/n, "api-gc")
					b.ReportMetric(float64(sum.APIServerPeakRSS)/mib/n, "api-peak-rss-MiB")
					b.ReportMetric(float64(sum.APIServerPeakRSS-sum.APIRSSBase)/mib/n, "api-rss-growth-MiB")
				})
			}
		})
	}
}

func (r *result) add(o result) {
	r.Synced.SyncNanos += o.Synced.SyncNanos
	r.Synced.SyncCPUNanos += o.Synced.SyncCPUNanos
	r.Synced.DeliveredNanos += o.Synced.DeliveredNanos
	r.Synced.DeliveredCPUNanos += o.Synced.DeliveredCPUNanos
	r.Synced.PeakRSS += o.Synced.PeakRSS
	r.Synced.RSS += o.Synced.RSS
	r.Synced.Heap += o.Synced.Heap
	r.First.Lag += o.First.Lag
	r.First.N += o.First.N
	r.First.Report.CPUNanos += o.First.Report.CPUNanos
	r.Second.Report.Heap += o.Second.Report.Heap
	r.Second.N += o.Second.N
	r.Second.Report.CPUNanos += o.Second.Report.CPUNanos
	r.APIServerCPU += o.APIServerCPU
	r.APIServerAlloc += o.APIServerAlloc
	r.APIServerGCs += o.APIServerGCs
	r.APIServerPeakRSS += o.APIServerPeakRSS
	r.APIRSSBase += o.APIRSSBase
}

func splitImpls(b *testing.B) []string {
	return splitFlag(b, "impls", *sides, func(impl string) bool {
		impl = strings.TrimSuffix(impl, http1Suffix)
		return slices.Contains(impls, impl) || slices.Contains(dropinImpls, impl)
	})
}

func splitKinds(b *testing.B) []string {
	return splitFlag(b, "kinds", *kinds, func(kind string) bool { return kind == kindConfigMaps || kind == kindMydemos })
}

// splitFlag splits the comma-separated value of flag name, refusing what
// known does not know.
func splitFlag(b *testing.B, name, value string, known func(string) bool) []string {
	var out []string
	for v := range strings.SplitSeq(value, ",") {
		switch {
		case v == "":
		case known(v):
			out = append(out, v)
		default:
			b.Fatalf("-%s: unknown %q", name, v)
		}
	}
	return out
}

package controllerbench

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

var mydemos = flag.Int("mydemos", 5000, "Mydemos created per benchmark run")

// round counts the runs of BenchmarkMydemoReady in this process (one per
// -count, see TestMain): each starts with the next implementation, so
// that none always runs first or last.
var round atomic.Int64

// BenchmarkMydemoReady times, for each implementation, the span from the
// first of N Mydemo creates to the last Mydemo observed Ready (the floor:
// to its last write), on the shared local control plane. Run it with
// -benchtime=1x and -count for repetitions (run.sh does); each iteration
// is a whole run in its own namespace.
//
// Metrics, each the mean over b.N runs:
//
//	s                  the span
//	objects/s          N / the span
//	creates-s          first create to last create returning
//	ctrl-req/object    requests of the controller's client (the floor's
//	                   workers') during the span, per Mydemo
//	ctrl-throttle-s    the time those requests waited on the client-side
//	                   rate limiter, summed over requests
//	ctrl-cpu-s         CPU time of the implementation's process (each runs
//	                   in its own) during the span
//	ctrl-peak-MB       that process's peak resident memory (VmHWM) over
//	                   its life, in MiB
//	bench-cpu-s        CPU time of this process during the span: the
//	                   creator and the watcher, the same for every
//	                   implementation
//	ctrlplane-cpu-s    CPU time of etcd, kube-apiserver and
//	                   kube-controller-manager during the span
//	apiserver-cpu-s    CPU time of kube-apiserver alone during the span
//	other-cpu-s        CPU time of everything else on the machine during
//	                   the span: competition this run had, which should
//	                   be near 0
func BenchmarkMydemoReady(b *testing.B) {
	h := controlPlane(b)
	n := *mydemos
	r := int(round.Add(1) - 1)
	if r == 0 {
		// The first runs on a fresh control plane are faster (a small etcd,
		// nothing compacted yet): an unmeasured floor run takes that
		// advantage away from whichever implementation goes first.
		w := h.run(b, implFloor, n, noTimer{}, "")
		b.Logf("warm-up: %d Mydemos written in %v", n, w.Elapsed.Round(time.Millisecond))
	}
	first := r % len(impls)
	for _, impl := range slices.Concat(impls[first:], impls[:first]) {
		b.Run("impl="+impl, func(b *testing.B) {
			b.StopTimer()
			var sum result
			profile := ""
			if *profileDir != "" {
				profile = filepath.Join(*profileDir, fmt.Sprintf("%s-r%d.cpu.pprof", impl, r))
			}
			for i := range b.N {
				if i > 0 {
					profile = "" // only a round's first run is profiled
				}
				r := h.run(b, impl, n, b, profile)
				sum.Elapsed += r.Elapsed
				sum.Creates += r.Creates
				sum.Controller.Requests += r.Controller.Requests
				sum.Controller.Wait += r.Controller.Wait
				sum.ProcessCPU += r.ProcessCPU
				sum.ControllerCPU += r.ControllerCPU
				sum.ControllerPeakRSS += r.ControllerPeakRSS
				sum.ControlPlaneCPU += r.ControlPlaneCPU
				sum.APIServerCPU += r.APIServerCPU
				sum.OtherCPU += r.OtherCPU
				b.Logf("%s: %d Mydemos Ready in %v (creates done at %v); control plane idle after %v",
					impl, n, r.Elapsed.Round(time.Millisecond), r.Creates.Round(time.Millisecond), r.Settle.Round(time.Second))
			}
			runs := float64(b.N)
			b.ReportMetric(sum.Elapsed.Seconds()/runs, "s")
			b.ReportMetric(float64(n)*runs/sum.Elapsed.Seconds(), "objects/s")
			b.ReportMetric(sum.Creates.Seconds()/runs, "creates-s")
			b.ReportMetric(float64(sum.Controller.Requests)/runs/float64(n), "ctrl-req/object")
			b.ReportMetric(sum.Controller.Wait.Seconds()/runs, "ctrl-throttle-s")
			b.ReportMetric(sum.ControllerCPU.Seconds()/runs, "ctrl-cpu-s")
			b.ReportMetric(float64(sum.ControllerPeakRSS)/runs/(1<<20), "ctrl-peak-MB")
			b.ReportMetric(sum.ProcessCPU.Seconds()/runs, "bench-cpu-s")
			b.ReportMetric(sum.ControlPlaneCPU.Seconds()/runs, "ctrlplane-cpu-s")
			b.ReportMetric(sum.APIServerCPU.Seconds()/runs, "apiserver-cpu-s")
			b.ReportMetric(sum.OtherCPU.Seconds()/runs, "other-cpu-s")
		})
	}
}

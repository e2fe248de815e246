// Command ratios reads `go test -bench` output holding sub-benchmarks
// impl=ctrlgen, impl=ctrlgen-untyped (client-go's untyped handlers on
// ctrlgen's informer) and impl=client-go and prints, per known workload, the
// median of its per-unit metric for each implementation, their ratio and
// whether ctrlgen meets its goal, and for the timed workloads the ratio of
// the CPU time too (the cpu-ns/<unit> metric). Workloads it does not know are skipped,
// so other benchmarks can share the output.
//
// Usage: go run ./internal/ratios results/runtime.txt
package main

import (
	"fmt"
	"strings"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchlines"
)

// workload says how to read one benchmark.
type workload struct {
	bench string // benchmark name without "Benchmark"
	unit  string // the per-unit metric reported by b.ReportMetric
	// lowerIsBetterRatio is true when the goal is ctrlgen ≤ goal × client-go
	// (memory); otherwise it is client-go / ctrlgen ≥ goal (throughput).
	lowerIsBetterRatio bool
	goal               float64
}

var workloads = []workload{
	{bench: "InitialList", unit: "ns/object", goal: 2},
	{bench: "WatchUpdates", unit: "ns/event", goal: 2},
	{bench: "WorkQueue", unit: "ns/item", goal: 1.5},
	{bench: "Memory", unit: "B/object", lowerIsBetterRatio: true, goal: 0.5},
}

func main() {
	lines, _ := benchlines.ReadArg()
	samples := collect(lines)
	for _, w := range workloads {
		for _, impl := range []string{"ctrlgen", "ctrlgen-untyped"} {
			report(samples, w, impl)
		}
	}
}

// report prints one line comparing impl, one of ctrlgen's, with client-go
// on w.
func report(samples map[key][]float64, w workload, impl string) {
	ours, theirs := samples[key{w.bench, impl, w.unit}], samples[key{w.bench, "client-go", w.unit}]
	if len(ours) == 0 || len(theirs) == 0 {
		return
	}
	o, t := benchlines.Median(ours), benchlines.Median(theirs)
	var line string
	var met bool
	if w.lowerIsBetterRatio {
		r := o / t
		met = r <= w.goal
		line = fmt.Sprintf("overhead %.2f× client-go's (goal ≤ %.2f×: %s)", r, w.goal, benchlines.Verdict(met))
	} else {
		r := t / o
		met = r >= w.goal
		line = fmt.Sprintf("%.1f× client-go (goal ≥ %.1f×: %s)", r, w.goal, benchlines.Verdict(met))
		cpu := "cpu-" + w.unit
		if oc, tc := samples[key{w.bench, impl, cpu}], samples[key{w.bench, "client-go", cpu}]; len(oc) > 0 && len(tc) > 0 {
			line += fmt.Sprintf("; by CPU time %.1f× (%s vs %s)",
				benchlines.Median(tc)/benchlines.Median(oc), format(benchlines.Median(oc), w.unit), format(benchlines.Median(tc), w.unit))
		}
	}
	fmt.Printf("%-13s %-15s %9s  client-go %9s  (medians, n=%d/%d)  %s\n",
		w.bench, impl, format(o, w.unit), format(t, w.unit), len(ours), len(theirs), line)
}

func format(v float64, unit string) string {
	if strings.HasPrefix(unit, "ns/") && v >= 1000 {
		return fmt.Sprintf("%.2f µs/%s", v/1000, strings.TrimPrefix(unit, "ns/"))
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

type key struct{ bench, impl, unit string }

// collect collects the values of every benchmark line
// "BenchmarkX/impl=Y-P  N  v1 u1  v2 u2 …" by workload, implementation and unit.
func collect(lines []benchlines.Line) map[key][]float64 {
	out := map[key][]float64{}
	for _, l := range lines {
		impl, ok := l.Sub["impl"]
		if !ok {
			continue
		}
		for unit, v := range l.Values {
			k := key{l.Name, impl, unit}
			out[k] = append(out[k], v)
		}
	}
	return out
}

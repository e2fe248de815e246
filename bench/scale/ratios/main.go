// Command ratios reads the output of BenchmarkInformer (sub-benchmarks
// kind=K/impl=ctrlgen and kind=K/impl=client-go) and prints, per kind and
// metric, the median of each side, ctrlgen's ratio to client-go and, where
// issue 12 sets one, whether ctrlgen meets the goal; then, where the run
// had it, the floor's median (impl=floor: the same watches, read and not
// decoded) and its ratio to client-go, the least either side could reach.
//
// Usage: go run ./scale/ratios results/scale.txt
package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchlines"
)

// metric is one reported unit and its goal, if any.
type metric struct {
	unit string
	// ratioGoal: ctrlgen's median ≤ ratioGoal × client-go's; 0 for none.
	ratioGoal float64
	// absGoal: ctrlgen's median ≤ absGoal; 0 for none.
	absGoal float64
}

var metrics = []metric{
	{unit: "sync-s"},
	{unit: "sync-cpu-s", ratioGoal: 0.5},
	{unit: "peak-rss-MiB", ratioGoal: 0.75},
	{unit: "steady-rss-MiB", ratioGoal: 0.8},
	{unit: "heap-MiB"},
	{unit: "upd-lag-ms"},
	{unit: "upd-cpu-µs/update", ratioGoal: 0.5},
	{unit: "heap-after-upd/sync", absGoal: 1.05},
	{unit: "upd50-cpu-µs/update", ratioGoal: 0.5},
	{unit: "api-cpu-s", ratioGoal: 1},
	{unit: "api-alloc-MiB"},
	{unit: "api-gc"},
	{unit: "api-peak-rss-MiB"},
	{unit: "api-rss-growth-MiB"},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ratios BENCH-OUTPUT")
		os.Exit(2)
	}
	lines, err := benchlines.Read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	type key struct{ kind, impl, unit string }
	samples := map[key][]float64{}
	var kinds []string
	for _, l := range lines {
		kind, impl := l.Sub["kind"], l.Sub["impl"]
		if l.Name != "Informer" || kind == "" || impl == "" {
			continue
		}
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
		for unit, v := range l.Values {
			samples[key{kind, impl, unit}] = append(samples[key{kind, impl, unit}], v)
		}
	}
	if len(kinds) == 0 {
		fmt.Fprintf(os.Stderr, "ratios: no BenchmarkInformer results in %s\n", os.Args[1])
		os.Exit(1)
	}
	for _, kind := range kinds {
		fmt.Printf("%s (medians; n = rounds)\n", kind)
		fmt.Printf("  %-20s %12s %12s %8s  %-20s %10s %8s\n", "metric", "ctrlgen", "client-go", "ratio", "goal", "floor", "÷c-go")
		for _, m := range metrics {
			ours, theirs := samples[key{kind, "ctrlgen", m.unit}], samples[key{kind, "client-go", m.unit}]
			if len(ours) == 0 || len(theirs) == 0 {
				continue
			}
			o, t := median(ours), median(theirs)
			goal := ""
			switch {
			case m.ratioGoal > 0:
				goal = fmt.Sprintf("≤ %.2f×: %s", m.ratioGoal, verdict(o <= m.ratioGoal*t))
			case m.absGoal > 0:
				goal = fmt.Sprintf("ctrlgen ≤ %.2f: %s", m.absGoal, verdict(o <= m.absGoal))
			}
			floor := ""
			if f := samples[key{kind, "floor", m.unit}]; len(f) > 0 {
				floor = fmt.Sprintf("%10.3f %7.2f×", median(f), median(f)/t)
			}
			fmt.Printf("  %-20s %12.3f %12.3f %7.2f×  %-20s %s   (n=%d/%d)\n", m.unit, o, t, o/t, goal, floor, len(ours), len(theirs))
		}
	}
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	n := len(s)
	return (s[n/2-1] + s[n/2]) / 2
}

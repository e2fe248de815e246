// Command ratios reads the output of BenchmarkInformer (sub-benchmarks
// kind=K/impl=ctrlgen and kind=K/impl=client-go) and prints, per kind and
// metric, the median of each side, ctrlgen's ratio to client-go and, where
// issue 12 sets one, whether ctrlgen meets the goal; then, where the run
// had it, the floor's median (impl=floor: the same watches, read and not
// decoded) and its ratio to client-go, the least either side could reach.
// Where the run had the drop-in sides (impl=ctrlgen-dropin and
// impl=client-go-dropin), it prints them the same way, one against the
// other, and then the ratio of each round, ctrlgen-dropin's n-th run over
// client-go-dropin's n-th, for CPU to sync and peak RSS.
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
	{unit: "deliv-s"},
	{unit: "deliv-cpu-s", ratioGoal: 0.5},
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
	lines, path := benchlines.ReadArg()
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
		fmt.Fprintf(os.Stderr, "ratios: no BenchmarkInformer results in %s\n", path)
		os.Exit(1)
	}
	// pairs are the sides compared: ours against theirs.
	pairs := []struct{ ours, theirs, title string }{
		{"ctrlgen", "client-go", ""},
		{"ctrlgen-dropin", "client-go-dropin", ", as a drop-in user writes them"},
	}
	for _, kind := range kinds {
		for _, p := range pairs {
			if len(samples[key{kind, p.ours, "sync-cpu-s"}]) == 0 || len(samples[key{kind, p.theirs, "sync-cpu-s"}]) == 0 {
				continue
			}
			fmt.Printf("%s%s (medians; n = rounds)\n", kind, p.title)
			fmt.Printf("  %-20s %12s %12s %8s  %-20s %10s %8s\n", "metric", p.ours, p.theirs, "ratio", "goal", "floor", "÷theirs")
			for _, m := range metrics {
				ours, theirs := samples[key{kind, p.ours, m.unit}], samples[key{kind, p.theirs, m.unit}]
				if len(ours) == 0 || len(theirs) == 0 {
					continue
				}
				o, t := benchlines.Median(ours), benchlines.Median(theirs)
				goal := ""
				switch {
				case m.ratioGoal > 0:
					goal = fmt.Sprintf("≤ %.2f×: %s", m.ratioGoal, benchlines.Verdict(o <= m.ratioGoal*t))
				case m.absGoal > 0:
					goal = fmt.Sprintf("ctrlgen ≤ %.2f: %s", m.absGoal, benchlines.Verdict(o <= m.absGoal))
				}
				floor := ""
				if f := samples[key{kind, "floor", m.unit}]; len(f) > 0 {
					floor = fmt.Sprintf("%10.3f %7.2f×", benchlines.Median(f), benchlines.Median(f)/t)
				}
				fmt.Printf("  %-20s %12.3f %12.3f %7.2f×  %-20s %s   (n=%d/%d)\n", m.unit, o, t, o/t, goal, floor, len(ours), len(theirs))
			}
		}
		// Per round, where the run had more than one side pair.
		if len(samples[key{kind, "ctrlgen-dropin", "sync-cpu-s"}]) == 0 {
			continue
		}
		fmt.Printf("%s, ratio per round (the n-th run of each side)\n", kind)
		for _, unit := range []string{"sync-cpu-s", "deliv-cpu-s", "peak-rss-MiB"} {
			for _, p := range pairs {
				ours, theirs := samples[key{kind, p.ours, unit}], samples[key{kind, p.theirs, unit}]
				if len(ours) == 0 || len(ours) != len(theirs) {
					continue
				}
				fmt.Printf("  %-14s %-16s", unit, p.ours)
				for i := range ours {
					fmt.Printf(" %5.2f", ours[i]/theirs[i])
				}
				fmt.Println()
			}
		}
	}
}

// Command ratios reads the output of BenchmarkMydemoReady (sub-benchmarks
// impl=ctrlgen, impl=client-go and impl=floor, metric "s") and prints the
// median time of each implementation, ctrlgen's ratios to client-go and
// to the floor, and whether ctrlgen meets its goals: ahead of client-go
// (faster, and significantly so by benchstat's test), and within 20% of
// the floor (by the medians); then, from the CPU time of each
// implementation's own process (metric ctrl-cpu-s), whether the
// controller's CPU beyond the floor's is at most half client-go's, and
// the processes' peak memory (ctrl-peak-rss-MiB). It does the same again
// over the quiet runs
// only, those during which the rest of the machine used less than a
// second of CPU (metric other-cpu-s), when some were not quiet.
//
// Usage: go run ./controller/ratios results/controller.txt
package main

import (
	"fmt"
	"os"
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchlines"
)

// floorGoal is how far above the floor ctrlgen may be.
const floorGoal = 1.20

// cpuGoal is the most ctrlgen's CPU beyond the floor's may be, as a
// fraction of client-go's beyond the floor's.
const cpuGoal = 0.5

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ratios BENCH-OUTPUT")
		os.Exit(2)
	}
	runs, err := read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("All runs:")
	if !report(runs, func(run) bool { return true }) {
		fmt.Fprintf(os.Stderr, "ratios: no runs of some implementation in %s\n", os.Args[1])
		os.Exit(1)
	}
	quiet := func(r run) bool { return r.otherCPU < quietCPU }
	if slices.ContainsFunc(runs, func(r run) bool { return !quiet(r) }) {
		fmt.Printf("\nQuiet runs only (the rest of the machine used < %.0f s of CPU during the run):\n", quietCPU)
		if !report(runs, quiet) {
			fmt.Println("  too few quiet runs of some implementation")
		}
	}
}

// quietCPU is the most CPU time, in seconds, that the rest of the machine
// may use during a quiet run.
const quietCPU = 1.0

// report prints the medians and ratios of the runs that keep selects; it
// returns false if some implementation has none.
func report(runs []run, keep func(run) bool) bool {
	med, cpu, rss := map[string]float64{}, map[string]float64{}, map[string]float64{}
	samples := map[string]*benchmath.Sample{}
	for _, impl := range []string{"ctrlgen", "client-go", "floor"} {
		var s, c, m []float64
		for _, r := range runs {
			if r.impl == impl && keep(r) {
				s, c, m = append(s, r.seconds), append(c, r.ctrlCPU), append(m, r.ctrlPeakRSS)
			}
		}
		if len(s) == 0 {
			return false
		}
		med[impl], cpu[impl], rss[impl] = median(s), median(c), median(m)
		samples[impl] = benchmath.NewSample(s, &benchmath.DefaultThresholds)
		fmt.Printf("  %-9s median %6.2f s over %d runs (min %.2f, max %.2f); its process: %.2f CPU-s, peak RSS %.0f MiB\n",
			impl, med[impl], len(s), slices.Min(s), slices.Max(s), cpu[impl], rss[impl])
	}
	ours, theirs, floor := med["ctrlgen"], med["client-go"], med["floor"]
	// Ahead means faster by more than chance: the Mann-Whitney U test
	// benchstat uses, at its alpha.
	c := benchmath.AssumeNothing.Compare(samples["ctrlgen"], samples["client-go"])
	var ahead string
	switch significant := c.P < c.Alpha; {
	case significant && ours < theirs:
		ahead = "met"
	case significant:
		ahead = "NOT met: client-go is faster"
	default:
		ahead = "not shown: no significant difference"
	}
	fmt.Printf("  ctrlgen vs client-go: %.2f× the time, %s (goal: ahead): %s\n", ours/theirs, c, ahead)
	fmt.Printf("  ctrlgen vs floor:     %.2f× the time (goal: ≤ %.2f×): %s\n", ours/floor, floorGoal, verdict(ours <= floorGoal*floor))
	fmt.Printf("  client-go vs floor:   %.2f× the time\n", theirs/floor)
	if cpu["floor"] > 0 {
		ourCPU, theirCPU := cpu["ctrlgen"]-cpu["floor"], cpu["client-go"]-cpu["floor"]
		fmt.Printf("  controller CPU beyond the floor's: ctrlgen %.2f s, client-go %.2f s: %.2f× (goal: ≤ %.2f×): %s\n",
			ourCPU, theirCPU, ourCPU/theirCPU, cpuGoal, verdict(ourCPU <= cpuGoal*theirCPU))
		fmt.Printf("  controller peak RSS: ctrlgen %.0f MiB, client-go %.0f MiB: %.2f×\n", rss["ctrlgen"], rss["client-go"], rss["ctrlgen"]/rss["client-go"])
	}
	return true
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

// run is one result line.
type run struct {
	impl     string
	seconds  float64 // metric s
	otherCPU float64 // metric other-cpu-s; 0 if missing
	// ctrlCPU and ctrlPeakRSS are metrics ctrl-cpu-s and
	// ctrl-peak-rss-MiB; 0 if missing (runs from before the
	// implementations had processes of their own).
	ctrlCPU, ctrlPeakRSS float64
}

// read returns the runs of BenchmarkMydemoReady in the file.
func read(path string) ([]run, error) {
	lines, err := benchlines.Read(path)
	if err != nil {
		return nil, err
	}
	var out []run
	for _, l := range lines {
		impl, ok := l.Sub["impl"]
		seconds, timed := l.Values["s"]
		if l.Name != "MydemoReady" || !ok || !timed {
			continue
		}
		out = append(out, run{impl: impl, seconds: seconds, otherCPU: l.Values["other-cpu-s"],
			ctrlCPU: l.Values["ctrl-cpu-s"], ctrlPeakRSS: l.Values["ctrl-peak-rss-MiB"]})
	}
	return out, nil
}

func median(s []float64) float64 {
	s = slices.Sorted(slices.Values(s))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

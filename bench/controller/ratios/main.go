// Command ratios reads the output of BenchmarkMydemoReady (sub-benchmarks
// impl=ctrlgen, impl=client-go and impl=floor, metric "s") and prints the
// median time of each implementation, ctrlgen's ratios to client-go and
// to the floor, and whether ctrlgen meets its goals: ahead of client-go
// (faster, and significantly so by benchstat's test), and within 20% of
// the floor (by the medians). It does the same again over the quiet runs
// only, those during which the rest of the machine used less than a
// second of CPU (metric other-cpu-s), when some were not quiet.
//
// With the processes' own CPU (metric ctrl-cpu-s) it compares what each
// controller spends beyond the floor, ctrlgen's against client-go's (goal
// ≤ 0.5×): by the medians of the processes, and by the medians of each
// round's differences from that round's floor.
//
// With impl=ctrlgen-update runs (the same controller with update writes
// instead of server-side apply) it also compares the two: the medians of
// the time, the requests per Mydemo, and the apiserver's and the control
// plane's CPU, over all runs.
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

func main() {
	lines, path := benchlines.ReadArg()
	runs := collect(lines)
	fmt.Println("All runs:")
	if !report(runs, func(run) bool { return true }) {
		fmt.Fprintf(os.Stderr, "ratios: no runs of some implementation in %s\n", path)
		os.Exit(1)
	}
	writes(runs)
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
	med := map[string]float64{}
	samples := map[string]*benchmath.Sample{}
	for _, impl := range []string{"ctrlgen", "client-go", "floor"} {
		var s []float64
		for _, r := range runs {
			if r.impl == impl && keep(r) {
				s = append(s, r.seconds)
			}
		}
		if len(s) == 0 {
			return false
		}
		med[impl] = benchlines.Median(s)
		samples[impl] = benchmath.NewSample(s, &benchmath.DefaultThresholds)
		fmt.Printf("  %-9s median %6.2f s over %d runs (min %.2f, max %.2f)\n", impl, med[impl], len(s), slices.Min(s), slices.Max(s))
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
	fmt.Printf("  ctrlgen vs floor:     %.2f× the time (goal: ≤ %.2f×): %s\n", ours/floor, floorGoal, benchlines.Verdict(ours <= floorGoal*floor))
	fmt.Printf("  client-go vs floor:   %.2f× the time\n", theirs/floor)
	controllerCPU(runs, keep)
	return true
}

// controllerCPU compares the implementations' own processes (metrics
// ctrl-cpu-s and ctrl-peak-MB, in runs that have them): the CPU each
// controller spends beyond what the floor's bare writes cost, ctrlgen's
// against client-go's (goal ≤ 0.5×), by the medians, for each client-go
// side the runs have: client-go (over ctrlgen's clientset) and
// client-go-clientgen (over client-gen's).
func controllerCPU(runs []run, keep func(run) bool) {
	med := map[string][2]float64{}
	for _, impl := range slices.Concat(ctrlgenImpls, clientGoImpls, []string{"floor"}) {
		var rs []run
		for _, r := range runs {
			if r.impl == impl && keep(r) {
				rs = append(rs, r)
			}
		}
		med[impl] = [2]float64{medianOf(rs, "ctrl-cpu-s"), medianOf(rs, "ctrl-peak-MB")}
	}
	floor := med["floor"][0]
	if floor == 0 {
		return
	}
	fmt.Println("  the controller's own process, medians (CPU during the span; peak RSS over its life):")
	for _, impl := range slices.Concat(ctrlgenImpls, clientGoImpls, []string{"floor"}) {
		if m := med[impl]; m[0] > 0 {
			fmt.Printf("    %-20s %6.2f s CPU (%+.2f s beyond the floor), %6.1f MiB\n", impl, m[0], m[0]-floor, m[1])
		}
	}
	for _, ref := range clientGoImpls {
		theirs := med[ref][0] - floor
		for _, impl := range ctrlgenImpls {
			if m := med[impl]; m[0] > 0 && theirs > 0 {
				ratio := (m[0] - floor) / theirs
				fmt.Printf("  %s's CPU beyond the floor vs %s's: %.2f× (goal ≤ 0.5×): %s\n", impl, ref, ratio, benchlines.Verdict(ratio <= 0.5))
			}
		}
	}
	beyondFloorByRound(runs, keep)
}

var (
	ctrlgenImpls  = []string{"ctrlgen", "ctrlgen-update"}
	clientGoImpls = []string{"client-go", "client-go-clientgen"}
)

// beyondFloorByRound measures each controller's CPU beyond the floor of
// its own round, since the floor moves from round to round by as much as
// a controller adds to it. For each ctrlgen side against each client-go
// side, it prints their CPU beyond that round's floor, round by round,
// and the ratio of their medians over the rounds.
func beyondFloorByRound(runs []run, keep func(run) bool) {
	rounds := roundsCPU(runs, keep)
	for _, ref := range clientGoImpls {
		for _, impl := range ctrlgenImpls {
			ours, theirs := beyondFloor(rounds, impl, ref)
			if len(ours) == 0 {
				continue
			}
			line := ""
			for i := range ours {
				line += fmt.Sprintf(" %+.2f/%+.2f", ours[i], theirs[i])
			}
			o, t := benchlines.Median(ours), benchlines.Median(theirs)
			fmt.Printf("  %s vs %s, CPU beyond each round's floor (s):%s\n", impl, ref, line)
			if t <= 0 {
				fmt.Printf("    medians %+.2f vs %+.2f s: %s adds nothing measurable to the floor\n", o, t, ref)
				continue
			}
			fmt.Printf("    medians %+.2f vs %+.2f s: %.2f× (goal ≤ 0.5×): %s over %d rounds\n", o, t, o/t, benchlines.Verdict(o/t <= 0.5), len(ours))
		}
	}
}

// roundsCPU pairs the runs of each round (the i-th run of every
// implementation, in the order of the file): each round's ctrl-cpu-s by
// implementation, for the kept runs that have it.
func roundsCPU(runs []run, keep func(run) bool) []map[string]float64 {
	var rounds []map[string]float64
	seen := map[string]int{}
	for _, r := range runs {
		i := seen[r.impl]
		seen[r.impl]++
		v, ok := r.values["ctrl-cpu-s"]
		if !ok || !keep(r) {
			continue
		}
		for len(rounds) <= i {
			rounds = append(rounds, map[string]float64{})
		}
		rounds[i][r.impl] = v
	}
	return rounds
}

// beyondFloor returns, for the rounds where impl, ref and the floor all
// have a value, impl's and ref's CPU minus the floor's.
func beyondFloor(rounds []map[string]float64, impl, ref string) (ours, theirs []float64) {
	for _, rd := range rounds {
		f, okf := rd["floor"]
		g, okg := rd[ref]
		c, okc := rd[impl]
		if okf && okg && okc {
			ours, theirs = append(ours, c-f), append(theirs, g-f)
		}
	}
	return ours, theirs
}

// writes compares ctrlgen (server-side apply) with ctrlgen-update (update
// writes), if the runs have both.
func writes(runs []run) {
	byImpl := map[string][]run{}
	for _, r := range runs {
		byImpl[r.impl] = append(byImpl[r.impl], r)
	}
	ssa, update := byImpl["ctrlgen"], byImpl["ctrlgen-update"]
	if len(ssa) == 0 || len(update) == 0 {
		return
	}
	fmt.Println("  server-side apply (ctrlgen) vs update writes (ctrlgen-update), medians:")
	for _, m := range []string{"s", "ctrl-req/object", "apiserver-cpu-s", "ctrlplane-cpu-s", "bench-cpu-s"} {
		a, b := medianOf(ssa, m), medianOf(update, m)
		if a == 0 && b == 0 {
			continue
		}
		fmt.Printf("    %-16s %8.3f vs %8.3f: %.3f×\n", m, a, b, a/b)
	}
}

func medianOf(runs []run, metric string) float64 {
	var s []float64
	for _, r := range runs {
		if v, ok := r.values[metric]; ok {
			s = append(s, v)
		}
	}
	if len(s) == 0 {
		return 0
	}
	return benchlines.Median(s)
}

// run is one result line.
type run struct {
	impl     string
	seconds  float64 // metric s
	otherCPU float64 // metric other-cpu-s; 0 if missing
	values   map[string]float64
}

// collect returns the runs of BenchmarkMydemoReady among lines.
func collect(lines []benchlines.Line) []run {
	var out []run
	for _, l := range lines {
		impl, ok := l.Sub["impl"]
		seconds, timed := l.Values["s"]
		if l.Name != "MydemoReady" || !ok || !timed {
			continue
		}
		out = append(out, run{impl: impl, seconds: seconds, otherCPU: l.Values["other-cpu-s"], values: l.Values})
	}
	return out
}

// Command ratios reads the output of BenchmarkMydemoReady (sub-benchmarks
// impl=ctrlgen, impl=client-go and impl=floor, metric "s") and prints the
// median time of each implementation, ctrlgen's ratios to client-go and
// to the floor, and whether ctrlgen meets its goals: ahead of client-go,
// and within 20% of the floor.
//
// Usage: go run ./controller/ratios results/controller.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// floorGoal is how far above the floor ctrlgen may be.
const floorGoal = 1.20

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ratios BENCH-OUTPUT")
		os.Exit(2)
	}
	samples, err := read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	med := map[string]float64{}
	for _, impl := range []string{"ctrlgen", "client-go", "floor"} {
		s := samples[impl]
		if len(s) == 0 {
			fmt.Fprintf(os.Stderr, "ratios: no samples of impl=%s in %s\n", impl, os.Args[1])
			os.Exit(1)
		}
		med[impl] = median(s)
		fmt.Printf("%-9s median %6.2f s over %d runs (min %.2f, max %.2f)\n", impl, med[impl], len(s), slices.Min(s), slices.Max(s))
	}
	ours, theirs, floor := med["ctrlgen"], med["client-go"], med["floor"]
	fmt.Printf("ctrlgen vs client-go: %.2f× the time (client-go/ctrlgen speed-up %.2f×; goal: ahead, > 1.00×): %s\n",
		ours/theirs, theirs/ours, verdict(ours < theirs))
	fmt.Printf("ctrlgen vs floor:     %.2f× the time (goal: ≤ %.2f×): %s\n", ours/floor, floorGoal, verdict(ours <= floorGoal*floor))
	fmt.Printf("client-go vs floor:   %.2f× the time\n", theirs/floor)
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

// read returns the "s" samples of each impl.
func read(path string) (map[string][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "BenchmarkMydemoReady/impl=") {
			continue
		}
		impl := strings.TrimPrefix(fields[0], "BenchmarkMydemoReady/impl=")
		if i := strings.LastIndexByte(impl, '-'); i > 0 {
			if _, err := strconv.Atoi(impl[i+1:]); err == nil {
				impl = impl[:i] // the -GOMAXPROCS suffix
			}
		}
		// After the name and the iteration count: value unit pairs.
		for i := 2; i+1 < len(fields); i += 2 {
			if fields[i+1] != "s" {
				continue
			}
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
			}
			out[impl] = append(out[impl], v)
		}
	}
	return out, sc.Err()
}

func median(s []float64) float64 {
	s = slices.Sorted(slices.Values(s))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

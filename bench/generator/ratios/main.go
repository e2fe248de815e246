// Command ratios reads the output of BenchmarkGenerate and BenchmarkCRD
// and prints, per input, the median wall time, peak RSS and CPU time of
// ctrlgen and the incumbent (code-generator, controller-gen), their
// ratios, and whether ctrlgen meets its goals:
//
//   - one-gv: ≥10× faster;
//   - one-gv-noop: under 0.5 s;
//   - k8s-api: ≥20× faster and at most half the peak memory;
//   - k8s-api-applyconfig: ≥20× faster;
//   - crd-*: ≥10× faster than controller-gen.
//
// Usage: go run ./generator/ratios results/generator.txt
package main

import (
	"fmt"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchlines"
)

type key struct{ input, impl, unit string }

func main() {
	lines, _ := benchlines.ReadArg()
	samples := collect(lines)
	med := func(input, impl, unit string) (float64, bool) {
		v := samples[key{input, impl, unit}]
		if len(v) == 0 {
			return 0, false
		}
		return benchlines.Median(v), true
	}
	goals := []struct {
		input, incumbent string
		speed            float64
	}{
		{"one-gv", "code-generator", 10}, {"k8s-api", "code-generator", 20}, {"k8s-api-applyconfig", "code-generator", 20},
		{"crd-gateway-api", "controller-gen", 10}, {"crd-crdmarkers", "controller-gen", 10},
	}
	for _, g := range goals {
		input := g.input
		ot, ok1 := med(input, "ctrlgen", "ns/op")
		tt, ok2 := med(input, g.incumbent, "ns/op")
		om, _ := med(input, "ctrlgen", "peak-MB")
		tm, _ := med(input, g.incumbent, "peak-MB")
		oc, _ := med(input, "ctrlgen", "cpu-sec/op")
		tc, _ := med(input, g.incumbent, "cpu-sec/op")
		if !ok1 || !ok2 {
			continue
		}
		speed := tt / ot
		fmt.Printf("%-11s ctrlgen %6.3f s %6.1f MB, %s %6.3f s %6.1f MB: ctrlgen is %.1f× faster (goal ≥%g×: %s), uses %.1f× less memory",
			input, ot/1e9, om, g.incumbent, tt/1e9, tm, speed, g.speed, benchlines.Verdict(speed >= g.speed), tm/om)
		if input == "k8s-api" {
			fmt.Printf(" (goal ≥2×: %s)", benchlines.Verdict(tm/om >= 2))
		}
		if oc > 0 {
			fmt.Printf("; CPU time %.3f s vs %.3f s, %.1f× less", oc, tc, tc/oc)
		}
		fmt.Println()
	}
	if t, ok := med("one-gv-noop", "ctrlgen", "ns/op"); ok {
		m, _ := med("one-gv-noop", "ctrlgen", "peak-MB")
		fmt.Printf("%-11s ctrlgen %6.3f s %6.1f MB (goal < 0.5 s: %s)\n", "one-gv-noop", t/1e9, m, benchlines.Verdict(t < 0.5e9))
	}
}

// collect collects every sample of BenchmarkGenerate/input=I/impl=P and
// BenchmarkCRD/input=I/impl=P by unit.
func collect(lines []benchlines.Line) map[key][]float64 {
	samples := map[key][]float64{}
	for _, l := range lines {
		if l.Name != "Generate" && l.Name != "CRD" {
			continue
		}
		for unit, v := range l.Values {
			k := key{l.Sub["input"], l.Sub["impl"], unit}
			samples[k] = append(samples[k], v)
		}
	}
	return samples
}

package main

import (
	"slices"
	"testing"
)

func TestBeyondFloorPairsTheRunsOfEachRound(t *testing.T) {
	r := func(impl string, cpu, other float64) run {
		return run{impl: impl, otherCPU: other, values: map[string]float64{"ctrl-cpu-s": cpu}}
	}
	runs := []run{
		// Round 1, ctrlgen-update first.
		r("ctrlgen-update", 2.5, 0), r("client-go", 2.7, 0), r("floor", 2.0, 0),
		// Round 2 starts elsewhere; its client-go run was not quiet.
		r("floor", 2.4, 0), r("ctrlgen-update", 2.6, 0), r("client-go", 2.9, 5),
		// Round 3.
		r("client-go", 2.5, 0), r("floor", 2.1, 0), r("ctrlgen-update", 2.2, 0),
		// A run without the process's CPU counts for its round, and is skipped.
		{impl: "floor", values: map[string]float64{}},
		r("ctrlgen-update", 9, 0), r("client-go", 9, 0),
	}
	round := func(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
	roundAll := func(s []float64) []float64 {
		for i := range s {
			s[i] = round(s[i])
		}
		return s
	}

	ours, theirs := beyondFloor(roundsCPU(runs, func(run) bool { return true }), "ctrlgen-update", "client-go")
	if want := []float64{0.5, 0.2, 0.1}; !slices.Equal(roundAll(ours), want) {
		t.Errorf("ctrlgen-update beyond the floor %v, want %v", ours, want)
	}
	if want := []float64{0.7, 0.5, 0.4}; !slices.Equal(roundAll(theirs), want) {
		t.Errorf("client-go beyond the floor %v, want %v", theirs, want)
	}

	quiet := func(r run) bool { return r.otherCPU < quietCPU }
	ours, theirs = beyondFloor(roundsCPU(runs, quiet), "ctrlgen-update", "client-go")
	if want := []float64{0.5, 0.1}; !slices.Equal(roundAll(ours), want) {
		t.Errorf("quiet rounds only: ctrlgen-update %v, want %v (round 2 dropped)", ours, want)
	}
	if want := []float64{0.7, 0.4}; !slices.Equal(roundAll(theirs), want) {
		t.Errorf("quiet rounds only: client-go %v, want %v", theirs, want)
	}

	if ours, _ := beyondFloor(roundsCPU(runs, quiet), "ctrlgen", "client-go"); ours != nil {
		t.Errorf("ctrlgen has no runs, got %v", ours)
	}
}

package workqueue

import (
	"math/rand/v2"
	"testing"
)

// TestRingMatchesSliceFIFO drives the ring through growth, wrap-around and
// shrinking and compares it with a plain slice FIFO.
func TestRingMatchesSliceFIFO(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var rg ring[int]
	var ref []int
	next, shrinks := 0, 0
	for step := range 200_000 {
		size := len(rg.buf)
		// Alternate phases that mostly push and mostly pop, so the ring
		// grows to thousands of elements and shrinks back.
		pushBias := 3
		if (step/5000)%2 == 1 {
			pushBias = 1
		}
		if len(ref) == 0 || r.IntN(4) < pushBias {
			rg.push(next)
			ref = append(ref, next)
			next++
		} else {
			got, want := rg.pop(), ref[0]
			ref = ref[1:]
			if got != want {
				t.Fatalf("step %d: pop = %d, want %d", step, got, want)
			}
		}
		if rg.len() != len(ref) {
			t.Fatalf("step %d: len = %d, want %d", step, rg.len(), len(ref))
		}
		if c := len(rg.buf); c > keptRingSize && rg.len() < c/8 {
			t.Fatalf("step %d: %d elements in a buffer of %d: did not shrink", step, rg.len(), c)
		}
		if len(rg.buf) < size {
			shrinks++
		}
	}
	if shrinks == 0 {
		t.Fatal("the ring never shrank")
	}
}

func TestRingPopClearsSlot(t *testing.T) {
	var rg ring[*int]
	x := new(int)
	rg.push(x)
	rg.pop()
	for i, p := range rg.buf {
		if p != nil {
			t.Fatalf("slot %d still references a popped item", i)
		}
	}
}

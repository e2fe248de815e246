package goname

import "testing"

func TestFirstLetter(t *testing.T) {
	for _, tc := range []struct{ in, upper, lower string }{
		{"", "", ""},
		{"crddemo", "Crddemo", "crddemo"},
		{"CrddemoV1", "CrddemoV1", "crddemoV1"},
		{"x", "X", "x"},
		{"éclair", "Éclair", "éclair"},
		{"Ωmega", "Ωmega", "ωmega"},
	} {
		if got := UpperFirst(tc.in); got != tc.upper {
			t.Errorf("UpperFirst(%q) = %q, want %q", tc.in, got, tc.upper)
		}
		if got := LowerFirst(tc.in); got != tc.lower {
			t.Errorf("LowerFirst(%q) = %q, want %q", tc.in, got, tc.lower)
		}
	}
}

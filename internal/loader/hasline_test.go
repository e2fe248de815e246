package loader

import "testing"

func TestHasLineFindsDeclarationsAfterIndentation(t *testing.T) {
	for _, c := range []struct {
		src, w string
		want   bool
	}{
		{"type X int", "type", true}, {"package p\ntype X int", "type", true}, {"package p\ntypes\n", "type", false},
		{"package p\n\ttype X int", "type", true}, {"package p\ntype\tX int", "type", true}, {"package p\nx := typeof(y)", "type", false}, {"package p\nconst (\n", "const", true}, {"\n", "type", false}, {"", "type", false}, {"package p\ntype", "type", false},
		{"x\ntypex\ntype(", "type", true},
	} {
		if got := HasLine([]byte(c.src), c.w); got != c.want {
			t.Errorf("%q %q: %v", c.src, c.w, got)
		}
	}
}

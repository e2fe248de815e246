package jsondecode

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/output"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

var update = flag.Bool("update", false, "rewrite runtime/jsoncodec/"+ShippedFileName)

// TestShippedDecoders checks that the decoders runtime/jsoncodec ships
// are what ShippedFile writes now, byte for byte (-update rewrites
// them), and that they are those of the Shipped types exactly: a type
// they reach but do not list would be decoded by a copy in every typed
// client package.
func TestShippedDecoders(t *testing.T) {
	prog, err := loader.Load(loader.Config{Dir: "../..", Patterns: []string{metav1}})
	if err != nil {
		t.Fatal(err)
	}
	graph := typegraph.New(prog, prog.Fset)
	path := filepath.Join("..", "..", "runtime", "jsoncodec", ShippedFileName)
	f, err := ShippedFile(path, graph.Named)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Content("")
	if err != nil {
		t.Fatal(err)
	}
	var funcs []string
	for _, m := range regexp.MustCompile(`(?m)^func Decode(\w+)\(`).FindAllSubmatch(got, -1) {
		funcs = append(funcs, string(m[1]))
	}
	var want []string
	for _, n := range Shipped {
		want = append(want, n.Name)
	}
	slices.Sort(funcs)
	slices.Sort(want)
	if !slices.Equal(funcs, want) {
		t.Errorf("the shipped file decodes %v; Shipped lists %v", funcs, want)
	}
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, got) {
		var diff bytes.Buffer
		output.Diff(&diff, path, committed, got)
		t.Errorf("%s is stale (go test ./generators/jsondecode -run TestShippedDecoders -update):\n%s", path, diff.String())
	}
}

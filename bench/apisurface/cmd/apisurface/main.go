// Command apisurface compares the exported Go API of two trees generated
// from the same input, code-generator's and ctrlgen's, and prints the
// differences grouped by package: "-" missing in ctrlgen, "+" extra in
// ctrlgen (an addition), "~" changed (both descriptions), "!" a package
// that does not compile. It exits 1 when the APIs differ.
//
//	go run ./apisurface/cmd/apisurface [flags] CODEGEN_TREE CTRLGEN_TREE [PATTERN...]
//
// Each tree is a directory inside a module (usually the module's root);
// PATTERNs, "./..." by default, select its packages, relative to it:
// e.g. ./pkg/apis/... ./pkg/generated/... for a sample-controller layout.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ctrlgen/ctrlgen/bench/apisurface"
)

func main() {
	perPackage := flag.Int("per-package", 0, "print at most this many differences per package (0: all)")
	maxLines := flag.Int("max-lines", 0, "print at most this many lines (0: all)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: apisurface [flags] CODEGEN_TREE CTRLGEN_TREE [PATTERN...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 {
		flag.Usage()
		os.Exit(2)
	}
	patterns := flag.Args()[2:]
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	var apis [2]*apisurface.API
	for i, root := range flag.Args()[:2] {
		api, err := apisurface.Load(root, patterns...)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apisurface:", err)
			os.Exit(2)
		}
		apis[i] = api
	}
	diffs := apisurface.Compare(apis[0], apis[1])
	if len(diffs) == 0 {
		fmt.Printf("%d packages, no differences\n", len(apis[0].Packages))
		return
	}
	fmt.Print(apisurface.Report(diffs, *perPackage, *maxLines))
	os.Exit(1)
}

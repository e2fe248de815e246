// Command ctrlgen generates deep-copy functions, scheme registration, typed
// clientsets, listers, informers and controller skeletons for
// Kubernetes-style API packages in one pass.
//
//	ctrlgen [flags] PACKAGE...
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/ctrlgen/ctrlgen"
)

func main() {
	cfg, err := ctrlgen.ParseArgs(os.Args[1:], os.Stderr)
	if err == nil {
		err = ctrlgen.Run(cfg)
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "ctrlgen:", err)
		os.Exit(1)
	}
}
